"""A user's notification settings and inbox (``check_*`` validates, ``do_*`` writes)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from notifications.models import Notification, Preferences
from notifications.webhooks import check_url, new_secret


def preferences(user) -> Preferences:
    """The user's preferences, unsaved defaults (nothing beyond the site) when they never chose any."""
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def do_save_preferences(user, *, email: bool, webhook_url: str, webhook_format: str) -> str | None:
    """Save the choices; the webhook's new secret when this adds a webhook (shown once), else None. A URL the
    site will not post to raises a WebhookError naming why."""
    webhook_url = webhook_url.strip()
    if webhook_url:
        check_url(webhook_url)
    with transaction.atomic():
        prefs, _ = Preferences.objects.select_for_update().get_or_create(user=user)
        secret = None
        if webhook_url and not prefs.webhook_secret:
            secret = prefs.webhook_secret = new_secret()
        if not webhook_url:
            prefs.webhook_secret = ""  # a webhook added later gets a new secret
        prefs.email, prefs.webhook_url, prefs.webhook_format = email, webhook_url, webhook_format
        prefs.save()
    return secret


def do_rotate_secret(user) -> str | None:
    """A new secret for the user's webhook (the old one stops signing at once); None without a webhook."""
    secret = new_secret()
    updated = Preferences.objects.filter(user=user).exclude(webhook_url="").update(webhook_secret=secret)
    return secret if updated else None


def do_mark_read(user, ids: list[int] | None = None) -> int:
    """Mark the user's unread notifications read (only ``ids`` when given); how many were unread."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    return unread.update(read_at=timezone.now())
