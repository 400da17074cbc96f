"""A user's webhook: which URLs it may have, what is posted to it, how it is signed and sent.

Each POST carries ``X-Kozyr-Timestamp`` (Unix seconds) and ``X-Kozyr-Signature: sha256=<hex>``, the
HMAC-SHA256 of ``<timestamp>.<body>`` under the user's secret (docs/notifications.md says how to check it).
A site in production posts only to https URLs of public addresses, checked when the URL is saved and again at
each delivery (a name may resolve elsewhere later), and never follows a redirect: a webhook is no way to reach
the site's own network (SSRF).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings

from config.errors import ActionError
from notifications.models import Notification, Preferences

USER_AGENT = "Kozyr-Webhook/1"
SECRET_PREFIX = "whsec_"


class WebhookError(ActionError):
    """A webhook URL the site will not post to; the message says why."""


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def check_url(url: str) -> None:
    """Raise a WebhookError naming what is wrong with ``url`` (the field ``webhook_url``)."""
    parts = urlsplit(url)
    public_only = settings.NOTIFY_PUBLIC_WEBHOOKS_ONLY
    allowed = ("https",) if public_only else ("https", "http")
    if parts.scheme not in allowed:
        raise WebhookError(f"the webhook URL must start with {' or '.join(s + '://' for s in allowed)}"
                           f"{'' if parts.scheme else ' (it has no scheme)'}", "webhook_url")
    if not parts.hostname:
        raise WebhookError("the webhook URL has no host name", "webhook_url")
    if parts.username or parts.password:
        raise WebhookError("the webhook URL must not carry a user name or password: check the signature instead",
                           "webhook_url")
    if public_only:
        for address in _addresses(parts.hostname, parts.port or 443):
            if not _public(address):
                raise WebhookError(f"{parts.hostname} resolves to {address}, a private, loopback or reserved "
                                   f"address: webhooks go to public hosts only", "webhook_url")


def _addresses(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as err:
        raise WebhookError(f"{host} does not resolve ({err})", "webhook_url") from None
    return sorted({str(info[4][0]) for info in infos})


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def payload(notification: Notification, style: str) -> dict[str, Any]:
    """The JSON body: Kozyr's own, or one Discord's webhooks accept (``content`` and ``embeds``)."""
    link = settings.SITE_URL + notification.url if notification.url else settings.SITE_URL + "/"
    if style == Preferences.Format.DISCORD:
        return {"username": "Kozyr", "content": notification.title,
                "embeds": [{"title": notification.title[:256], "description": notification.text[:4000],
                            "url": link, "timestamp": notification.created.isoformat()}]}
    return {"id": notification.pk, "event": notification.event, "created": notification.created.isoformat(),
            "title": notification.title, "text": notification.text, "url": link, "data": notification.data}


def body_bytes(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def signature(secret: str, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Outcome:
    ok: bool
    retry: bool  # worth another attempt later (no answer, a timeout, 408, 429, 5xx)
    http_status: int | None = None
    error: str = ""


def post(url: str, secret: str, data: dict[str, Any], *, event: str, delivery_id: int) -> Outcome:
    """One POST, within the site's timeout; never raises for what the endpoint does."""
    try:
        check_url(url)
    except WebhookError as err:
        return Outcome(ok=False, retry=False, error=str(err))
    body = body_bytes(data)
    timestamp = str(int(time.time()))
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "X-Kozyr-Event": event,
               "X-Kozyr-Delivery": str(delivery_id), "X-Kozyr-Timestamp": timestamp,
               "X-Kozyr-Signature": signature(secret, timestamp, body)}
    seconds = settings.NOTIFY_TIMEOUT_SECONDS
    try:
        with httpx.Client(timeout=httpx.Timeout(seconds, connect=min(seconds, 3)), follow_redirects=False,
                          trust_env=False) as client:
            response = client.post(url, content=body, headers=headers)
    except httpx.TimeoutException:
        return Outcome(ok=False, retry=True, error=f"no answer within {seconds} s")
    except httpx.HTTPError as err:
        return Outcome(ok=False, retry=True, error=f"could not connect: {err}"[:300])
    code = response.status_code
    if 200 <= code < 300:
        return Outcome(ok=True, retry=False, http_status=code)
    if 300 <= code < 400:
        return Outcome(ok=False, retry=False, http_status=code, error="redirects are not followed: give the final URL")
    return Outcome(ok=False, retry=code in (408, 429) or code >= 500, http_status=code,
                   error=f"the endpoint answered {code} {response.reason_phrase}"[:300])
