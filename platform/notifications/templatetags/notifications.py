"""``{% notification_bell %}`` in the site's header (one query: the unread count) and
``{% notification_settings %}`` on the profile page."""

from __future__ import annotations

from django import template

from notifications.actions import preferences
from notifications.forms import PreferencesForm
from notifications.models import Notification

register = template.Library()


@register.inclusion_tag("notifications/bell.html", takes_context=True)
def notification_bell(context):
    request = context.get("request")
    user = getattr(request, "user", None)
    count = (Notification.objects.filter(user=user, read_at__isnull=True).count()
             if user is not None and user.is_authenticated else 0)
    return {"count": count, "shown": "99+" if count > 99 else str(count)}


@register.inclusion_tag("notifications/settings_form.html", takes_context=True)
def notification_settings(context):
    prefs = preferences(context["request"].user)
    return {"form": PreferencesForm(instance=prefs), "prefs": prefs, "csrf_token": context.get("csrf_token"),
            "request": context["request"]}
