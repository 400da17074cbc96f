"""Who is asking, and how often: the client's address and the rate limits every path shares.

The client's address is ``REMOTE_ADDR``, unless the site runs behind ``KOZYR_TRUSTED_PROXIES`` = N reverse
proxies. Each proxy appends the address it was connected from to ``X-Forwarded-For``, so the N-th entry
from the right is the one the outermost of ours wrote; entries left of it are whatever the client sent and
are never believed. The log-in limits, the sign-up limit and the API's throttles (DRF's ``NUM_PROXIES`` is
set from the same setting) all use :func:`client_ip`.

A limit counts events under a key in Django's cache (Redis whenever Redis is the broker, so every web
process shares the counters; a process's own memory otherwise). It keeps two fixed windows and weighs the
previous one by how much of it still lies inside the sliding window, and it counts an event *before*
deciding (an atomic increment, taken back if the event is refused), so concurrent requests cannot all
slip in under the limit. The API and the pages call the same functions with the same keys, so an upload
through the web form and one through the API spend the same allowance.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import math
import time
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from rest_framework import exceptions
from rest_framework.throttling import ScopedRateThrottle

# ---- the client's address --------------------------------------------------------------------------------


def client_ip(request) -> str:
    """The address of the client (normalised text), from REMOTE_ADDR and the trusted proxies' header."""
    proxies = settings.TRUSTED_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded.strip():
        hops = [hop.strip() for hop in forwarded.split(",")]
        # Fewer entries than proxies: the leftmost was still written by one of ours.
        chosen = _normal(hops[-min(proxies, len(hops))])
        if chosen:
            return chosen
    return _normal(request.META.get("REMOTE_ADDR", "")) or "unknown"


def _normal(text: str) -> str:
    text = text.strip()
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return text[:100]  # a proxy that writes something else (a name, "unknown"): its text, bounded


def address_key(ip: str) -> str:
    """What per-address limits count by: the address, or for IPv6 its /64 (one site's whole block, which a
    client can hop around in at will)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


def client_key(request) -> str:
    return address_key(client_ip(request))


def account_key(username: str) -> str:
    """A log-in name as per-account limits count it (case and Unicode forms folded; hashed, so any text is a
    safe cache key)."""
    folded = unicodedata.normalize("NFKC", str(username or "")).strip()[:150].casefold()
    return hashlib.sha256(folded.encode()).hexdigest()[:32]


# ---- counting ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limit:
    """At most ``count`` events per ``seconds`` for one key; ``what`` names the events in messages."""

    name: str
    count: int
    seconds: int
    what: str

    def describe(self) -> str:
        return f"at most {self.count} {self.what} {per(self.seconds)}"


def per(seconds: int) -> str:
    for unit, size, one in (("day", 86400, "a day"), ("hour", 3600, "an hour"), ("minute", 60, "a minute")):
        if seconds % size == 0:
            n = seconds // size
            return one if n == 1 else f"per {n} {unit}s"
    return f"per {seconds} seconds"


def in_words(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 120:
        return f"{seconds} seconds"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes" if minutes < 120 else f"{math.ceil(minutes / 60)} hours"


class RateLimited(Exception):
    """An event over its limit; the message names the limit and when to try again."""

    def __init__(self, message: str, wait: float):
        super().__init__(message)
        self.wait = max(1, math.ceil(wait))


class Counter:
    """The events of one limit for one key (a user, an address, an account)."""

    def __init__(self, limit: Limit, ident: str, *, count: int | None = None):
        self.limit = limit
        self.allowed = limit.count if count is None else count  # a tighter allowance for this key, if given
        self.prefix = f"kz-limit:{limit.name}:{ident}"

    def _now(self) -> tuple[int, float]:
        index, into = divmod(time.time(), self.limit.seconds)
        return int(index), into / self.limit.seconds

    def _read(self) -> tuple[int, int, float]:
        index, fraction = self._now()
        values = cache.get_many([f"{self.prefix}:{index - 1}", f"{self.prefix}:{index}"])
        return (max(0, values.get(f"{self.prefix}:{index - 1}", 0)), max(0, values.get(f"{self.prefix}:{index}", 0)),
                fraction)

    def used(self) -> float:
        """The events of the last ``seconds`` (the previous window weighted by its part still inside)."""
        previous, current, fraction = self._read()
        return previous * (1 - fraction) + current

    def add(self) -> str:
        """Count one event now; returns its window's key, for :meth:`remove`."""
        index, _ = self._now()
        key = f"{self.prefix}:{index}"
        cache.add(key, 0, 2 * self.limit.seconds + 60)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, 2 * self.limit.seconds + 60)
        return key

    def remove(self, key: str) -> None:
        with contextlib.suppress(ValueError):  # expired meanwhile: nothing to take back
            cache.decr(key)

    def wait(self) -> float:
        """Seconds until one more event fits under the allowance."""
        previous, current, fraction = self._read()
        seconds, room = self.limit.seconds, self.allowed - 1
        if current <= room:  # the current window has room once enough of the previous one has slid out
            return 0.0 if previous == 0 else max(0.0, seconds * (1 - fraction - (room - current) / previous))
        # only in the next window: then this one is the previous, sliding out
        return seconds * (1 - fraction) + seconds * (1 - room / current)

    def take(self) -> str:
        """Count one event, or raise RateLimited (and count nothing) when it would pass the allowance."""
        key = self.add()
        if self.used() > self.allowed + 1e-9:
            self.remove(key)
            wait = self.wait()
            raise RateLimited(f"{self.limit.describe()}; try again in {in_words(wait)}", wait)
        return key


def rate(scope: str, what: str) -> Limit:
    """A limit from REST_FRAMEWORK's DEFAULT_THROTTLE_RATES (``"20/hour"``): one table of rates for all."""
    text = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]
    number, period = text.split("/")
    return Limit(scope, int(number), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]], what)


def uploads() -> Limit:
    return rate("upload", "uploads")


def bot_creations() -> Limit:
    return rate("new-bot", "new bots")


def signups() -> Limit:
    return rate("signup", "new accounts from one address")


def spend(limit: Limit, ident) -> str:
    """Count one event for ``ident`` (a user's pk, an address key); RateLimited when over the limit. The
    returned key gives it back with :func:`give_back` (an event that turned out not to count)."""
    return Counter(limit, str(ident)).take()


def give_back(limit: Limit, ident, key: str) -> None:
    Counter(limit, str(ident)).remove(key)


def throttled(err: RateLimited) -> exceptions.Throttled:
    """The API's 429 (the platform's error shape, Retry-After) for a RateLimited."""
    return exceptions.Throttled(wait=err.wait, detail=str(err))


class ClientAddressThrottle(ScopedRateThrottle):
    """DRF's scoped throttle, with anonymous clients told apart by :func:`client_key`."""

    def get_ident(self, request):
        return client_key(request)
