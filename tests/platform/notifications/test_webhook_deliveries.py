"""Webhook deliveries by a real Celery worker on Redis and PostgreSQL to an HTTP server this test runs (issue 36,
Notifications): the POST is signed (HMAC-SHA256 of "<timestamp>.<body>" under the user's secret), a 500 is tried
again after a pause, a hanging endpoint is given up on at the timeout, and every attempt is in the user's log."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest
from kombu import Connection

from config.celery_settings import NOTIFY_PRIORITY, NOTIFY_QUEUE
from notifications import tasks
from notifications.emit import record
from notifications.models import Attempt, Delivery, Event, Preferences
from tests.platform.faults.test_busy_recovery import site_env
from tests.support.polling import wait_until
from tests.support.webhook_endpoint import Endpoint
from tests.support.workers import REDIS_URL, Worker, _sender, flush_broker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def publish(delivery_id: int, countdown=None) -> None:
    """tasks.enqueue_delivery, to the test's Redis (the test process's own broker is memory://)."""
    with Connection(REDIS_URL) as connection:
        _sender.send_task("notifications.tasks.deliver", args=[delivery_id], queue=NOTIFY_QUEUE,
                          priority=NOTIFY_PRIORITY, countdown=countdown, connection=connection)


@pytest.fixture
def worker(tmp_path, settings, monkeypatch):
    monkeypatch.setattr(tasks, "enqueue_delivery", publish)
    flush_broker()
    started = []

    def start(**env) -> Worker:
        w = Worker("notify", {**site_env(tmp_path, settings, "notify"), **env}, tmp_path / "notify.log")
        started.append(w)
        w.wait_ready()
        return w

    yield start
    for w in started:
        w.stop()


def hooked(user, url: str, style: str = "json") -> str:
    secret = "whsec_test-secret"
    Preferences.objects.create(user=user, webhook_url=url, webhook_secret=secret, webhook_format=style)
    return secret


def test_it_signs_the_post_and_tries_again_after_a_500(worker, alice):
    endpoint = Endpoint([500, 204])
    try:
        secret = hooked(alice, endpoint.url)
        worker(KOZYR_NOTIFY_RETRY_SECONDS="1", KOZYR_NOTIFY_TIMEOUT_SECONDS="3")
        notification = record(alice.pk, Event.VERSION_REJECTED, "t:1", "alice-bura v2 was rejected",
                              text="crash (exit): SyntaxError", url="/bots/alice-bura/", data={"version": 2})
        delivery = Delivery.objects.get(notification=notification)
        wait_until(lambda: Delivery.objects.filter(pk=delivery.pk, status=Delivery.Status.DELIVERED).exists(), 60,
                   lambda: f"a delivered webhook: {list(Attempt.objects.values('number', 'http_status', 'error'))}")
    finally:
        endpoint.close()
    assert len(endpoint.received) == 2
    first, second = endpoint.received
    assert second["at"] - first["at"] >= 0.9  # the pause before the second attempt
    for request in endpoint.received:
        headers, body = request["headers"], request["body"]
        expected = hmac.new(secret.encode(), headers["X-Kozyr-Timestamp"].encode() + b"." + body,
                            hashlib.sha256).hexdigest()
        assert headers["X-Kozyr-Signature"] == f"sha256={expected}"
        assert abs(int(headers["X-Kozyr-Timestamp"]) - time.time()) < 120
        assert headers["X-Kozyr-Event"] == "version.rejected" and headers["Content-Type"] == "application/json"
        payload = json.loads(body)
        assert payload["event"] == "version.rejected" and payload["title"] == "alice-bura v2 was rejected"
        assert payload["url"].endswith("/bots/alice-bura/") and payload["data"] == {"version": 2}
    # a forged body fails the check a receiver makes
    forged = hmac.new(secret.encode(), first["headers"]["X-Kozyr-Timestamp"].encode() + b"." + first["body"] + b" ",
                      hashlib.sha256).hexdigest()
    assert first["headers"]["X-Kozyr-Signature"] != f"sha256={forged}"
    log = list(Attempt.objects.filter(delivery=delivery).order_by("number").values("number", "ok", "http_status"))
    assert log == [{"number": 1, "ok": False, "http_status": 500}, {"number": 2, "ok": True, "http_status": 204}]


def test_it_gives_up_on_a_hanging_endpoint_at_the_timeout_and_logs_each_attempt(worker, alice):
    endpoint = Endpoint(["hang", "hang"], hang=30)
    try:
        hooked(alice, endpoint.url, style="discord")
        worker(KOZYR_NOTIFY_RETRY_SECONDS="1", KOZYR_NOTIFY_TIMEOUT_SECONDS="2", KOZYR_NOTIFY_ATTEMPTS="2")
        notification = record(alice.pk, Event.BOT_SUSPENDED, "t:2", "alice-bura is suspended", text="five crashes")
        delivery = Delivery.objects.get(notification=notification)
        wait_until(lambda: Delivery.objects.filter(pk=delivery.pk, status=Delivery.Status.FAILED).exists(), 60,
                   lambda: f"a failed webhook: {list(Attempt.objects.values('number', 'error', 'milliseconds'))}")
    finally:
        endpoint.close()
    attempts = list(Attempt.objects.filter(delivery=delivery).order_by("number"))
    assert [a.number for a in attempts] == [1, 2]
    for attempt in attempts:
        assert not attempt.ok and attempt.http_status is None and attempt.error == "no answer within 2 s"
        assert 1900 <= attempt.milliseconds < 4000  # the timeout, not the endpoint's 30 s
    payload = json.loads(endpoint.received[0]["body"])  # the Discord-compatible format
    assert payload["content"] == "alice-bura is suspended" and payload["embeds"][0]["description"] == "five crashes"
