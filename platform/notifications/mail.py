"""A notification by e-mail, through Django's e-mail backend (settings.EMAIL_BACKEND)."""

from __future__ import annotations

import smtplib

from django.conf import settings
from django.core.mail import send_mail

from notifications.models import Notification
from notifications.webhooks import Outcome


def send(notification: Notification) -> Outcome:
    user = notification.user
    if not user.email:
        return Outcome(ok=False, retry=False, error="the account has no e-mail address")
    link = settings.SITE_URL + (notification.url or "/")
    body = (f"{notification.text}\n\n{link}\n\n"
            f"You get these because you opted in on {settings.SITE_URL}/profile/ (turn them off there).")
    try:
        send_mail(f"[Kozyr] {notification.title}", body, None, [user.email])
    except (smtplib.SMTPException, OSError) as err:
        return Outcome(ok=False, retry=True, error=f"the mail server refused it: {err}"[:300])
    return Outcome(ok=True, retry=False)
