"""Lost messages are sent again, and only lost ones: on a busy site every queued match waits longer than
REPUBLISH_AFTER, and re-sending each of them every time piled duplicates into the broker for as long as the
ladder kept its queue full. The broker's own count of a queue's messages says whether anything is missing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from kombu import Connection

from matches import actions
from matches.models import Match
from play.tasks import broker_waiting
from tests.support.workers import REDIS_URL, flush_broker, publish_to_redis


@pytest.fixture
def waiting_ladder(house_bots):
    """Three ladder matches queued and published ten minutes ago (their messages may or may not be there)."""
    from bots.actions import house_version

    versions = [house_version("bura", "random"), house_version("bura", "greedy")]
    matches = [actions.create_match(kind="ladder", preset="bura", ranked=True, seat_versions=versions)
               for _ in range(3)]
    Match.objects.filter(pk__in=[m.pk for m in matches]).update(published_at=timezone.now() - timedelta(minutes=10))
    return matches


@pytest.fixture
def sent(monkeypatch):
    published: list[int] = []
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, **_: published.append(match_id))
    return published


def test_it_leaves_a_queue_alone_that_holds_a_message_for_every_queued_match(waiting_ladder, sent):
    assert actions.republish_lost(waiting=lambda queue: 3) == 0
    assert sent == []
    assert actions.republish_lost(waiting=lambda queue: 7) == 0  # duplicates too: nothing is missing


def test_it_sends_again_what_a_queue_that_lost_messages_holds_too_few_of(waiting_ladder, sent):
    assert actions.republish_lost(waiting=lambda queue: 1) == 3
    assert sorted(sent) == sorted(m.pk for m in waiting_ladder)
    assert actions.republish_lost(waiting=lambda queue: 1) == 0  # just sent again: not yet


def test_it_sends_again_when_the_broker_cannot_count(waiting_ladder, sent):
    assert actions.republish_lost(waiting=lambda queue: None) == 3
    assert len(sent) == 3


def test_the_brokers_count_is_every_message_of_the_queue_at_every_priority():
    # A queue no worker of any test consumes (a leftover worker on this broker would take a "ladder" message):
    # the count, not the queue, is what is checked.
    queue = "count-check"
    flush_broker()
    assert broker_waiting(queue, Connection(REDIS_URL)) == 0
    for match_id in (1, 2):
        publish_to_redis(match_id, queue)
    with Connection(REDIS_URL) as connection:
        from tests.support.workers import _sender

        _sender.send_task("matches.tasks.play_match", args=[3], queue=queue, priority=0, connection=connection)
    assert broker_waiting(queue, Connection(REDIS_URL)) == 3
    assert broker_waiting("tournament", Connection(REDIS_URL)) == 0
    flush_broker()  # what a Redis restart without persistence does
    assert broker_waiting(queue, Connection(REDIS_URL)) == 0
    assert broker_waiting(queue, Connection("redis://127.0.0.1:1/0", connect_timeout=1,
                                            transport_options={"max_retries": 0})) is None
