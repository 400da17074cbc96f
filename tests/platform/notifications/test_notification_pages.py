"""The notification pages and settings (issue 36, Notifications): the bell's unread count in one query, the inbox
that reads what it shows, privacy (another user's notification is 404), the settings form on the profile page
with its URL checks, the secret shown once, and e-mail only for who opted in."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.emit import record
from notifications.models import Attempt, Delivery, Event, Notification, Preferences
from notifications.tasks import deliver

pytestmark = pytest.mark.django_db


def tell(user, n: int = 1, event=Event.VERSION_VALIDATED) -> list[Notification]:
    first = Notification.objects.filter(user=user).count()
    made = [record(user.pk, event, f"test:{user.pk}:{event}:{i}", f"alice-bura v{i + 1} is validated",
                   text="it passed", url="/bots/") for i in range(first, first + n)]
    return [m for m in made if m is not None]


def bell_count(html: str) -> str | None:
    found = re.search(r'class="bell-count" data-unread="(\d+)"', html)
    return found.group(1) if found else None


def test_it_counts_unread_notifications_in_the_bell_with_one_query_however_many(client, alice):
    client.force_login(alice)
    tell(alice, 3)
    for expected in ("3", "120"):
        with CaptureQueriesContext(connection) as queries:
            html = client.get("/bots/").content.decode()
        assert bell_count(html) == expected
        assert sum("notifications_notification" in q["sql"] for q in queries.captured_queries) == 1
        if expected == "3":
            tell(alice, 120 - 3)
    assert ">99+<" in html  # the badge stays small; its label has the exact count
    assert 'aria-label="Notifications: 120 unread"' in html


def test_it_marks_what_the_inbox_shows_read_and_shows_no_bell_count_after(client, alice):
    client.force_login(alice)
    tell(alice, 2)
    page = client.get("/notifications/").content.decode()
    assert page.count('<span class="new">new</span>') == 2 and "alice-bura v2 is validated" in page
    assert Notification.objects.filter(user=alice, read_at__isnull=True).count() == 0
    again = client.get("/notifications/").content.decode()
    assert bell_count(again) is None and '<span class="new">' not in again


def test_it_shows_a_notification_and_its_log_to_its_owner_only(client, alice, bob):
    Preferences.objects.create(user=alice, webhook_url="http://127.0.0.1:9/hook", webhook_secret="whsec_x")
    notification, = tell(alice)
    delivery = Delivery.objects.get(notification=notification)
    Attempt.objects.create(delivery=delivery, user=alice, number=1, ok=False, http_status=500,
                           error="the endpoint answered 500 Internal Server Error")
    client.force_login(bob)
    assert client.get(f"/notifications/{notification.pk}/").status_code == 404
    assert "500 Internal Server Error" not in client.get("/notifications/deliveries/").content.decode()
    assert "alice-bura" not in client.get("/notifications/").content.decode()
    client.force_login(alice)
    detail = client.get(f"/notifications/{notification.pk}/").content.decode()
    assert "500 Internal Server Error" in detail
    log = client.get("/notifications/deliveries/").content.decode()
    assert "500 Internal Server Error" in log and "webhook" in log


def test_the_delivery_log_reads_its_rows_in_one_query(client, alice, django_assert_max_num_queries):
    Preferences.objects.create(user=alice, webhook_url="http://127.0.0.1:9/hook", webhook_secret="whsec_x")
    for notification in tell(alice, 30):
        Attempt.objects.create(delivery=notification.deliveries.get(), user=alice, number=1, ok=True, http_status=204)
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/notifications/deliveries/").status_code == 200
    assert sum("notifications_attempt" in q["sql"] for q in queries.captured_queries) == 1


def save(client, **fields):
    data = {"email": "", "webhook_url": "", "webhook_format": "json", **fields}
    return client.post("/notifications/settings/", {k: v for k, v in data.items() if v != ""})


def test_the_profile_page_has_the_settings_form_and_a_new_webhook_shows_its_secret_once(client, alice, settings):
    settings.NOTIFY_PUBLIC_WEBHOOKS_ONLY = False
    client.force_login(alice)
    assert 'action="/notifications/settings/"' in client.get("/profile/").content.decode()
    shown = save(client, webhook_url="http://127.0.0.1:8123/hook").content.decode()
    secret = Preferences.objects.get(user=alice).webhook_secret
    assert secret.startswith("whsec_") and secret in shown
    assert secret not in client.get("/profile/").content.decode()
    # saving again keeps the secret (and shows none); rotating makes a new one, shown once
    assert save(client, webhook_url="http://127.0.0.1:8123/hook", email="on").status_code == 302
    assert Preferences.objects.get(user=alice).webhook_secret == secret
    rotated = client.post("/notifications/settings/rotate/").content.decode()
    new = Preferences.objects.get(user=alice).webhook_secret
    assert new != secret and new in rotated


@pytest.mark.parametrize(("url", "says"), [
    ("http://example.com/hook", "must start with https://"),
    ("https://127.0.0.1/hook", "127.0.0.1, a private, loopback or reserved address"),
    ("https://localhost:8443/hook", "a private, loopback or reserved address"),
    ("https://10.1.2.3/hook", "10.1.2.3, a private"),
    ("https://[::ffff:192.168.0.1]/hook", "private, loopback or reserved"),
    ("https://169.254.169.254/latest/meta-data", "169.254.169.254, a private"),
    ("https://user:pw@example.com/hook", "must not carry a user name or password"),
    ("https://no-such-host.invalid/hook", "does not resolve"),
])
def test_a_production_site_refuses_webhooks_it_must_not_call_and_says_why(client, alice, settings, url, says):
    settings.NOTIFY_PUBLIC_WEBHOOKS_ONLY = True
    client.force_login(alice)
    response = save(client, webhook_url=url)
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Preferences.objects.filter(user=alice).exclude(webhook_url="").exists()


def test_it_emails_a_notification_only_to_who_opted_in(client, alice, bob, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alice.email, bob.email = "alice@example.com", "bob@example.com"
    alice.save(), bob.save()
    client.force_login(alice)
    assert save(client, email="on").status_code == 302
    tell(alice), tell(bob)  # bob never opted in
    assert not Delivery.objects.filter(notification__user=bob).exists()
    delivery = Delivery.objects.get(notification__user=alice)
    assert delivery.channel == Delivery.Channel.EMAIL
    assert deliver(delivery.pk) == Delivery.Status.DELIVERED
    assert deliver(delivery.pk) == "nothing to do"  # a message delivered twice sends one e-mail
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    assert "alice-bura v1 is validated" in mail.outbox[0].subject and "/bots/" in mail.outbox[0].body
    assert Attempt.objects.get(delivery=delivery).ok


def test_the_docs_say_how_to_check_a_signature_on_the_site(client):
    page = client.get("/docs/notifications/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "X-Kozyr-Signature" in text and "hmac.compare_digest" in text and "challenge.played" in text
