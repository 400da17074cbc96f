"""Telling a user something: ``notify`` records it once the surrounding transaction commits.

Every event is noticed inside a transaction that may still roll back (a match's result, a tournament's start),
so nothing is written or sent before that commit: a rolled-back transaction tells nobody anything. The record
happens once per ``key`` (a unique column), however often the code that notices the event runs. Each channel
the user chose gets a ``Delivery`` row and a task on the ``notify`` queue (notifications.tasks.deliver).
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import IntegrityError, transaction

from notifications import tasks
from notifications.models import Delivery, Event, Notification, Preferences


def notify(user_id: int, event: Event, key: str, title: str, *, text: str = "", url: str = "",
           data: dict[str, Any] | None = None) -> None:
    """Tell ``user_id`` about ``event`` when the surrounding transaction commits (at once outside one)."""
    transaction.on_commit(functools.partial(record, user_id, event, key, title, text=text, url=url, data=data))


def record(user_id: int, event: Event, key: str, title: str, *, text: str = "", url: str = "",
           data: dict[str, Any] | None = None) -> Notification | None:
    """The notification, written now with its deliveries queued; None when ``key`` was recorded before."""
    try:
        with transaction.atomic():
            notification = Notification.objects.create(user_id=user_id, event=event, key=key[:200], title=title[:200],
                                                       text=text, url=url[:300], data=data or {})
            for channel in channels(user_id):
                delivery = Delivery.objects.create(notification=notification, channel=channel)
                tasks.enqueue_delivery(delivery.pk)
    except IntegrityError:
        return None  # the same event noticed twice: its key is taken, it was told once
    return notification


def channels(user_id: int) -> list[str]:
    """The channels beyond the site this user chose (one query)."""
    prefs = (Preferences.objects.filter(user_id=user_id)
             .values("email", "webhook_url", "user__email").first())
    if prefs is None:
        return []
    chosen: list[str] = []
    if prefs["email"] and prefs["user__email"]:
        chosen.append(Delivery.Channel.EMAIL)
    if prefs["webhook_url"]:
        chosen.append(Delivery.Channel.WEBHOOK)
    return chosen
