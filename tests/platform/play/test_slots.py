"""What a worker says it can play at once (play.slots), in the live relay's Redis: announced with a lifetime, read
back for /metrics, and never a reason for a worker to fail when the relay is away. The workers' own announcements,
end to end, are tests/platform/config/test_metrics.py's."""

from __future__ import annotations

import logging
import socket
import threading

import pytest

from play import slots
from tests.support.polling import wait_until
from tests.support.resources import free_port


@pytest.fixture
def relay_keys():
    connection = slots.relay.client()

    def ours() -> list[bytes]:
        return list(connection.scan_iter(match=f"{slots.PREFIX}*"))

    for key in ours():
        connection.delete(key)
    yield ours
    for key in ours():
        connection.delete(key)


@pytest.fixture
def relay_away(settings):
    settings.LIVE_REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there


def test_an_announcement_is_read_back_and_expires_on_its_own(relay_keys):
    slots.announce("bots@host-a", "threads", 3, ["bots", "validation"])
    host = socket.gethostname()
    assert slots.announced() == [{"host": host, "worker": "bots", "pool": "threads", "slots": 3,
                                  "queues": ["bots", "validation"]}]
    [key] = relay_keys()
    assert key.decode() == f"{slots.PREFIX}{host}:bots@host-a"
    assert 0 < slots.relay.client().ttl(key) <= slots.TTL_SECONDS  # a dead worker stops being counted


def test_a_site_without_a_relay_has_no_announcements(settings):
    settings.LIVE_REDIS_URL = ""
    assert slots.announced() == []


def test_a_relay_that_cannot_be_read_gives_none_and_says_why(relay_away, caplog):
    with caplog.at_level(logging.WARNING, logger="play.slots"):
        assert slots.announced() == []
    assert "could not read the workers' slots" in caplog.text


def test_the_announcing_thread_outlives_a_relay_that_is_away_and_stops_when_told(relay_away, caplog):
    before = set(threading.enumerate())
    with caplog.at_level(logging.DEBUG, logger="play.slots"):
        stop = slots.keep_announcing("bots@host-b", "threads", 2, ["bots"])
        try:
            [thread] = [t for t in threading.enumerate() if t not in before and t.name == "kozyr-slots"]
            wait_until(lambda: "could not announce this worker's slots" in caplog.text, 30, "the failed announcement")
            assert thread.is_alive()  # it (and the worker) carry on, announcing again later
        finally:
            stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_the_announcing_thread_announces_at_once(relay_keys):
    stop = slots.keep_announcing("computing@host-c", "prefork", 1, ["ladder"])
    try:
        wait_until(lambda: any(w["worker"] == "computing" for w in slots.announced()), 10, "the first announcement")
    finally:
        stop.set()
