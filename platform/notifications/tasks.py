"""Deliveries: one task per notification and channel, on the ``notify`` queue (after every match queue).

The ``Delivery`` row is the truth, the message a wake-up call (docs/matches.md's rule): an attempt is claimed
by a conditional update of its count, so a message delivered twice makes one attempt; a failure worth
retrying is tried again after a pause that doubles each time (settings.NOTIFY_RETRY_SECONDS, then twice that,
…) up to settings.NOTIFY_ATTEMPTS attempts; every attempt is logged for the user (``Attempt``). The endpoint
gets settings.NOTIFY_TIMEOUT_SECONDS to answer and the task a hard limit beyond it, so a dead or slow endpoint
holds one worker slot for seconds, and only when no match is waiting.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from config.celery_settings import NOTIFY_PRIORITY, NOTIFY_QUEUE
from config.enqueue import enqueue_on_commit
from notifications import mail, webhooks
from notifications.models import Attempt, Delivery, Preferences

log = logging.getLogger(__name__)
FINAL = (Delivery.Status.DELIVERED, Delivery.Status.FAILED)
STALE_MINUTES = 15  # a pending delivery this old lost its message (broker away): the resend job sends it again


def backoff(attempt: int) -> int:
    """Seconds before attempt ``attempt + 1``: the base, doubled per attempt made, at most 10 minutes (so a
    delivery waiting for its next attempt is never taken for a lost one by ``resend_stale``)."""
    return min(settings.NOTIFY_RETRY_SECONDS * 2 ** (attempt - 1), 600)


def enqueue_delivery(delivery_id: int, countdown: float | None = None) -> None:
    """A delivery's task, once the surrounding transaction commits, after every match queue (NOTIFY_QUEUE)."""
    options: dict[str, Any] = {"queue": NOTIFY_QUEUE, "priority": NOTIFY_PRIORITY}
    if countdown is not None:
        options["countdown"] = countdown
    enqueue_on_commit(deliver, (delivery_id,), what=f"queue delivery {delivery_id}", logger=log,
                      fallback="the resend job sends it within 20 minutes", **options)


@shared_task(ignore_result=True, acks_late=True, soft_time_limit=60, time_limit=90)
def deliver(delivery_id: int) -> str:
    delivery = (Delivery.objects.select_related("notification__user").filter(pk=delivery_id)
                .exclude(status__in=FINAL).first())
    if delivery is None:
        return "nothing to do"
    if delivery.attempts >= settings.NOTIFY_ATTEMPTS:  # its attempts ended without a word (a killed worker's)
        Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.FAILED, updated=timezone.now())
        return Delivery.Status.FAILED
    number = delivery.attempts + 1
    if not Delivery.objects.filter(pk=delivery.pk, attempts=delivery.attempts).exclude(status__in=FINAL).update(
            attempts=F("attempts") + 1, updated=timezone.now()):
        return "another worker made this attempt"
    started = time.monotonic()
    outcome = _send(delivery)
    Attempt.objects.create(delivery=delivery, user_id=delivery.notification.user_id, number=number, ok=outcome.ok,
                           http_status=outcome.http_status, error=outcome.error,
                           milliseconds=int((time.monotonic() - started) * 1000))
    if outcome.ok:
        status = Delivery.Status.DELIVERED
    elif outcome.retry and number < settings.NOTIFY_ATTEMPTS:
        status = Delivery.Status.RETRYING
    else:
        status = Delivery.Status.FAILED
    Delivery.objects.filter(pk=delivery.pk).update(status=status, updated=timezone.now())
    if status == Delivery.Status.RETRYING:
        enqueue_delivery(delivery.pk, countdown=backoff(number))
    return status


def _send(delivery: Delivery) -> webhooks.Outcome:
    notification = delivery.notification
    if delivery.channel == Delivery.Channel.EMAIL:
        return mail.send(notification)
    prefs = Preferences.objects.filter(user_id=notification.user_id).first()
    if prefs is None or not prefs.webhook_url:
        return webhooks.Outcome(ok=False, retry=False, error="the webhook was removed before this attempt")
    return webhooks.post(prefs.webhook_url, prefs.webhook_secret,
                         webhooks.payload(notification, prefs.webhook_format),
                         event=notification.event, delivery_id=delivery.pk)


@shared_task(ignore_result=True)
def resend_stale() -> int:
    """Beat: deliveries whose message was lost (the broker was away when they were queued) go out again."""
    cutoff = timezone.now() - timedelta(minutes=STALE_MINUTES)
    stale = list(Delivery.objects.filter(status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING],
                                         updated__lt=cutoff).values_list("pk", flat=True)[:500])
    for pk in stale:
        enqueue_delivery(pk)
    return len(stale)
