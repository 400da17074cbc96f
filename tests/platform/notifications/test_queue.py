"""Deliveries never go ahead of a match: their queue comes after every match queue, and their messages carry the
matches' priority (on Redis a message without one is urgent, ahead of every new match of every queue)."""

from __future__ import annotations

import pytest

from config.celery_settings import MAINTENANCE_QUEUE, MATCH_PRIORITY, NOTIFY_PRIORITY, NOTIFY_QUEUE, QUEUE_ORDER
from notifications import tasks
from notifications.emit import record
from notifications.models import Event, Preferences

pytestmark = pytest.mark.django_db
MATCH_QUEUES = ("open", "casual", "tournament", "validation", "challenge", "ladder")


def test_the_notify_queue_comes_after_every_match_queue_at_the_matches_priority():
    assert all(QUEUE_ORDER.index(NOTIFY_QUEUE) > QUEUE_ORDER.index(q) for q in (MAINTENANCE_QUEUE, *MATCH_QUEUES))
    assert NOTIFY_PRIORITY >= MATCH_PRIORITY


def test_a_delivery_is_sent_on_the_notify_queue_at_that_priority_after_the_commit(alice, monkeypatch,
                                                                                   django_capture_on_commit_callbacks):
    sent: list[dict] = []
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda args, **options: sent.append({"args": args, **options}))
    Preferences.objects.create(user=alice, webhook_url="http://127.0.0.1:9/hook", webhook_secret="whsec_x")
    with django_capture_on_commit_callbacks(execute=True):
        notification = record(alice.pk, Event.VERSION_VALIDATED, "q:1", "alice-bura v1 is validated")
        assert sent == []  # not before the commit
    delivery = notification.deliveries.get()
    assert sent == [{"args": (delivery.pk,), "queue": NOTIFY_QUEUE, "priority": NOTIFY_PRIORITY}]
    with django_capture_on_commit_callbacks(execute=True):
        tasks.enqueue_delivery(delivery.pk, countdown=30)  # a retry: the same queue and priority, later
    assert sent[-1] == {"args": (delivery.pk,), "queue": NOTIFY_QUEUE, "priority": NOTIFY_PRIORITY, "countdown": 30}


def test_the_resend_job_queues_again_only_deliveries_whose_message_was_lost(alice, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from notifications.models import Delivery

    Preferences.objects.create(user=alice, webhook_url="http://127.0.0.1:9/hook", webhook_secret="whsec_x")
    old, fresh, done = (record(alice.pk, Event.VERSION_VALIDATED, f"r:{i}", f"v{i}").deliveries.get()
                        for i in range(3))
    long_ago = timezone.now() - timedelta(minutes=tasks.STALE_MINUTES + 1)
    Delivery.objects.filter(pk__in=[old.pk, done.pk]).update(updated=long_ago)
    Delivery.objects.filter(pk=done.pk).update(status=Delivery.Status.DELIVERED)
    again: list[int] = []
    monkeypatch.setattr(tasks, "enqueue_delivery", lambda pk, countdown=None: again.append(pk))
    assert tasks.resend_stale() == 1 and again == [old.pk]
    assert fresh.status == Delivery.Status.PENDING


def test_a_delivery_whose_attempts_all_ended_unlogged_is_failed_not_tried_again(alice, settings):
    from notifications.models import Delivery

    Preferences.objects.create(user=alice, webhook_url="http://127.0.0.1:9/hook", webhook_secret="whsec_x")
    delivery = record(alice.pk, Event.VERSION_VALIDATED, "k:1", "v1").deliveries.get()
    # every attempt's worker was killed mid-post (the task's hard limit): the message comes back each time
    Delivery.objects.filter(pk=delivery.pk).update(attempts=settings.NOTIFY_ATTEMPTS)
    assert tasks.deliver(delivery.pk) == Delivery.Status.FAILED
    assert Delivery.objects.get(pk=delivery.pk).attempts == settings.NOTIFY_ATTEMPTS
