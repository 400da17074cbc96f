"""The real-time relay on the real Redis: bounded, short-lived, never told a seed, never stretching a clock, and a
relay that lost a match aborts it instead of blaming a seat (docs/matches.md "The real-time relay")."""

from __future__ import annotations

import threading
import time
import uuid
from types import SimpleNamespace

import pytest

from arena import protocol
from arena.players import PlayerFailure


@pytest.fixture
def attempt(settings):
    from matches import relay

    settings.REMOTE_GRACE_SECONDS = 30
    name = f"test-{uuid.uuid4().hex}"
    relay.start_match(name, [0, 1])
    yield name
    c = relay.client()
    for found in c.scan_iter(match=f"kozyr:live:{name}:*"):
        c.delete(found)


def test_a_seat_holds_at_most_a_few_unread_lines_each_a_protocol_line(attempt):
    from matches import relay

    line = b'{"type":"action","id":1,"action":{}}'
    results = [relay.push_line(attempt, 1, line) for _ in range(relay.IN_LINES + 50)]
    assert results[:relay.IN_LINES] == [relay.PUSHED] * relay.IN_LINES
    assert set(results[relay.IN_LINES:]) == {relay.FULL}
    assert relay.client().llen(relay.key(attempt, "seat", 1, "in")) == relay.IN_LINES
    # The site's own ruling on the seat still gets through, once.
    assert relay.push_line(attempt, 1, b"\x00failure:{}", force=True) == relay.PUSHED


def test_nothing_is_taken_for_a_seat_once_its_attempt_ended_or_said_goodbye(attempt):
    from matches import relay

    relay.RelayChannel(attempt, 0).close()
    assert relay.push_line(attempt, 0, b'{"type":"ready"}') == relay.ENDED
    assert relay.answer(attempt, 0, 3, b'{"type":"action","id":3,"action":{}}') == relay.ENDED
    assert relay.push_line(attempt, 1, b'{"type":"ready"}') == relay.PUSHED
    relay.end_match(attempt, [0, 1])
    assert relay.push_line(attempt, 1, b'{"type":"ready"}') == relay.ENDED
    assert relay.push_line(attempt, 1, b"\x00failure:{}", force=True) == relay.ENDED
    assert relay.client().llen(relay.key(attempt, "seat", 1, "in")) == 1


def test_every_list_a_seat_can_write_expires_soon(attempt):
    from matches import relay

    counter = relay.key(attempt, "seat", 1, "answers")
    relay.push_line(attempt, 1, b'{"type":"ready"}', counted=True)
    c = relay.client()
    assert 0 < c.ttl(relay.key(attempt, "seat", 1, "in")) <= relay.IN_KEEP_SECONDS
    assert 0 < c.ttl(counter) <= relay.KEEP_SECONDS <= 3600
    relay.end_match(attempt, [0, 1])
    assert 0 < c.ttl(relay.key(attempt, "seat", 1, "in")) <= relay.ENDED_KEEP_SECONDS


def test_a_page_answers_a_request_once(attempt):
    from matches import relay

    line = b'{"type":"action","id":4,"action":{}}'
    assert relay.answer(attempt, 0, 4, line) == relay.PUSHED
    assert relay.answer(attempt, 0, 4, line) == relay.TAKEN
    assert relay.client().llen(relay.key(attempt, "seat", 0, "in")) == 1


def test_a_match_attempts_relay_name_says_nothing_of_its_seed():
    from arena.cards import derive_seed
    from matches import relay

    base_seed = 8_046_913_271_553_209_117
    match = SimpleNamespace(pk=42, base_seed=base_seed, duplicate_set=uuid.uuid4(), attempts=2)
    name = relay.attempt_name(match)
    assert str(base_seed) not in name and str(derive_seed(base_seed, 0)) not in name
    assert name.startswith("42.") and name.endswith(".2")
    other = SimpleNamespace(pk=42, base_seed=base_seed + 1, duplicate_set=match.duplicate_set, attempts=2)
    assert relay.attempt_name(other) == name  # the seed is not in it at all


def test_a_reconnect_never_adds_time_to_the_open_request(attempt):
    """Away for most of the move, back, then answering after the clock ran out: a timeout, not a fresh move
    time from the return (the grace keeps the seat; it never adds time)."""
    from matches import relay

    channel = relay.RemoteChannel(attempt, 1)
    c = relay.client()

    def reconnect_then_answer_late():
        time.sleep(0.6)
        c.set(channel.claim, b"1", ex=relay.CLAIM_SECONDS)
        time.sleep(1.2)  # past the 1.5 s clock, within a move time of the return
        relay.push_line(attempt, 1, b'{"type":"action","id":1,"action":{}}')

    threading.Thread(target=reconnect_then_answer_late, daemon=True).start()
    started = time.monotonic()
    assert channel.receive(started + 1.5) is None


def test_a_seat_away_past_its_clock_times_out_before_the_grace(attempt):
    from matches import relay

    channel = relay.RemoteChannel(attempt, 1)  # never connected; the grace (30 s) is longer
    started = time.monotonic()
    assert channel.receive(started + 0.5) is None
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("kind", ["person", "remote"])
def test_a_relay_that_lost_the_match_aborts_it_and_blames_no_seat(attempt, kind):
    """A flush (Redis restarted without persistence): the attempt's keys are gone. Waiting on would score the
    seat as silent or disconnected; the match is aborted instead, and played again or offered again."""
    from matches import relay

    channel = relay.RelayChannel(attempt, 0) if kind == "person" else relay.RemoteChannel(attempt, 0)
    c = relay.client()
    c.set(relay.seat_key(attempt, 0, "claim"), b"1", ex=relay.CLAIM_SECONDS)
    channel.send([b'{"type":"request","id":1}'])
    for found in c.scan_iter(match=f"kozyr:live:{attempt}:*"):
        c.delete(found)
    with pytest.raises(PlayerFailure) as failure:
        channel.receive(time.monotonic() + 20)
    assert (failure.value.verdict, failure.value.code) == (protocol.ABORTED, relay.RELAY)
    assert "lost this match" in failure.value.detail


def test_a_remote_connections_address_follows_the_sites_one_proxy_rule(settings):
    from matches.relay_socket import _address

    scope = {"client": ("127.0.0.1", 5000), "headers": [(b"x-forwarded-for", b"203.0.113.9, 198.51.100.7")]}
    settings.TRUSTED_PROXIES = 0
    assert _address(scope) == "127.0.0.1"  # nobody's header is believed
    settings.TRUSTED_PROXIES = 1
    assert _address(scope) == "198.51.100.7"  # what our one proxy appended


def test_only_the_relay_module_names_a_relay_key():
    """The relay's keys, bounds and expiries have one home: every consumer calls matches.relay."""
    from pathlib import Path

    platform = Path(__file__).resolve().parents[3] / "platform"
    naming = sorted(str(path.relative_to(platform)) for path in platform.rglob("*.py")
                    if any(prefix in path.read_text() for prefix in ('"kozyr:live', '"kozyr:remote', "kozyr:live:")))
    assert naming == ["matches/relay.py"], naming
