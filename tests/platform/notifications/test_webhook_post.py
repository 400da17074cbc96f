"""One webhook POST, as ``notifications.webhooks.post`` sends it, against a local endpoint: what it carries and
signs, and how each answer is judged (delivered, worth another attempt later, or not). The worker's retry loop
around it is test_webhook_deliveries.py's."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket

import pytest

from notifications.webhooks import USER_AGENT, post
from tests.support.webhook_endpoint import Endpoint

SECRET = "whsec_post-test"
DATA = {"id": 7, "event": "version.rejected", "title": "alice-bura v2 was rejected", "data": {"version": 2}}


@pytest.fixture
def loopback_allowed(settings):
    settings.NOTIFY_PUBLIC_WEBHOOKS_ONLY = False  # a development site may post to a local endpoint
    settings.NOTIFY_TIMEOUT_SECONDS = 1


@pytest.fixture
def endpoint():
    made: list[Endpoint] = []

    def make(answers: list, hang: float = 30) -> Endpoint:
        made.append(Endpoint(answers, hang))
        return made[-1]

    yield make
    for e in made:
        e.close()


def send(url: str):
    return post(url, SECRET, DATA, event="version.rejected", delivery_id=41)


def test_a_2xx_is_delivered_with_the_body_signed_and_named(loopback_allowed, endpoint):
    receiver = endpoint([204])
    outcome = send(receiver.url)
    assert (outcome.ok, outcome.retry, outcome.http_status, outcome.error) == (True, False, 204, "")
    [request] = receiver.received
    headers, body = request["headers"], request["body"]
    assert json.loads(body) == DATA
    signed = hmac.new(SECRET.encode(), headers["X-Kozyr-Timestamp"].encode() + b"." + body, hashlib.sha256)
    assert headers["X-Kozyr-Signature"] == f"sha256={signed.hexdigest()}"
    assert headers["X-Kozyr-Event"] == "version.rejected" and headers["X-Kozyr-Delivery"] == "41"
    assert headers["User-Agent"] == USER_AGENT and headers["Content-Type"] == "application/json"


@pytest.mark.parametrize(("status", "retry"), [(500, True), (503, True), (429, True), (408, True),
                                               (404, False), (410, False), (400, False)])
def test_a_server_error_or_a_slow_down_is_tried_again_and_a_refusal_is_not(loopback_allowed, endpoint, status, retry):
    outcome = send(endpoint([status]).url)
    assert not outcome.ok and outcome.retry is retry and outcome.http_status == status
    assert outcome.error.startswith(f"the endpoint answered {status} ")


def test_a_redirect_is_not_followed_and_says_to_give_the_final_url(loopback_allowed, endpoint):
    receiver = endpoint([302])
    outcome = send(receiver.url)
    assert (outcome.ok, outcome.retry, outcome.http_status) == (False, False, 302)
    assert outcome.error == "redirects are not followed: give the final URL"
    assert len(receiver.received) == 1  # /elsewhere was never asked for


def test_an_endpoint_that_says_nothing_is_given_up_at_the_timeout_and_tried_again_later(loopback_allowed, endpoint):
    receiver = endpoint(["hang"])
    outcome = send(receiver.url)
    assert (outcome.ok, outcome.retry, outcome.http_status) == (False, True, None)
    assert outcome.error == "no answer within 1 s"


def test_a_closed_port_is_tried_again_later(loopback_allowed):
    with socket.socket() as probe:  # a port nobody listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcome = send(f"http://127.0.0.1:{port}/hook")
    assert (outcome.ok, outcome.retry, outcome.http_status) == (False, True, None)
    assert outcome.error.startswith("could not connect: ")


def test_a_production_site_posts_nothing_to_its_own_network_and_does_not_try_again(settings, endpoint):
    settings.NOTIFY_PUBLIC_WEBHOOKS_ONLY = True
    receiver = endpoint([204])
    for url in (receiver.url, receiver.url.replace("http://", "https://")):
        outcome = send(url)
        assert (outcome.ok, outcome.retry, outcome.http_status) == (False, False, None)
        assert outcome.error  # names why: the scheme, or the loopback address
    assert "127.0.0.1, a private, loopback or reserved address" in outcome.error
    assert receiver.received == []
