"""A seat played over a line channel (a person's page, a remote bot): the referee treats it exactly like a
bot — the same lines, the same clock, the same checks — and the match's watcher hears every action."""

from __future__ import annotations

import queue
import random
import threading
import time

import orjson

from arena import protocol
from arena.bots import make_bot
from arena.channels import ChannelPlayer
from arena.games import resolve
from arena.players import BuiltinPlayer
from arena.referee import TimeControl, play_match


class QueueChannel:
    """Both directions as queues: what the referee sends is read by ``outgoing``, answers go to ``incoming``."""

    def __init__(self):
        self.outgoing: queue.Queue[bytes | None] = queue.Queue()
        self.incoming: queue.Queue[bytes] = queue.Queue()
        self.closed = False

    def send(self, lines):
        for line in lines:
            assert b"\n" not in line
            self.outgoing.put(line)

    def receive(self, deadline):
        try:
            return self.incoming.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def close(self):
        self.closed = True
        self.outgoing.put(None)


def a_person(channel: QueueChannel, seen: list[dict], rng: random.Random, stop_after: int | None = None):
    """Reads the seat's lines and answers the way the play page does: ready, then a legal action per request."""
    answered = 0
    while True:
        line = channel.outgoing.get()
        if line is None:
            return
        message = orjson.loads(line)
        seen.append(message)
        if message["type"] == "hello":
            channel.incoming.put(b'{"type":"ready","name":"a person"}')
        elif message["type"] == "request":
            if stop_after is not None and answered >= stop_after:
                continue  # the tab was closed: the clock runs
            action = rng.choice(message["legal_actions"])
            channel.incoming.put(orjson.dumps({"type": "action", "id": message["id"], "action": action}))
            answered += 1


def bura_players(channel):
    game, rules = resolve("bura", {})
    bot = BuiltinPlayer("builtin:greedy", make_bot(game, "greedy", 1, rules, 7), name="greedy")
    return rules, [ChannelPlayer("@person", channel), bot]


def test_a_whole_match_over_a_channel_with_its_own_clock_and_a_watcher():
    channel = QueueChannel()
    seen: list[dict] = []
    person = threading.Thread(target=a_person, args=(channel, seen, random.Random(3)), daemon=True)
    person.start()
    rules, players = bura_players(channel)
    heard: list[tuple[int, dict]] = []
    human = TimeControl(startup_ms=60_000, move_ms=30_000, bank_ms=120_000)
    record = play_match(rules, 11, players, preset="bura", time_control=TimeControl(move_ms=500),
                        seat_time_controls=[human, None], on_action=lambda seat, action: heard.append((seat, action)))
    person.join(timeout=10)
    assert record.result["ended_by"] == "rules", record.result
    assert record.result["seats"][0]["name"] == "a person"
    assert [(a["seat"], a["action"]) for a in record.replay["actions"]] == heard
    assert channel.closed
    hello = seen[0]
    assert hello["type"] == "hello" and hello["time"] == human.to_dict()
    requests = [m for m in seen if m["type"] == "request"]
    assert requests and requests[0]["time_left_ms"] == 30_000 + 120_000
    assert [m["type"] for m in seen[-2:]] == ["result", "goodbye"]
    assert record.replay["seat_time"] == [human.to_dict(), TimeControl(move_ms=500).to_dict()]


def test_a_silent_channel_times_out_like_a_bot_and_a_failing_watcher_changes_nothing():
    channel = QueueChannel()
    seen: list[dict] = []
    threading.Thread(target=a_person, args=(channel, seen, random.Random(1), 2), daemon=True).start()
    rules, players = bura_players(channel)

    def broken_watcher(seat, action):
        raise ConnectionError("the relay is away")

    record = play_match(rules, 11, players, preset="bura", time_control=TimeControl(move_ms=300, bank_ms=200),
                        on_action=broken_watcher)
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.TIMEOUT, "move")
    assert record.result["ended_by"] == "forfeit" and record.result["ranks"] == [2, 1]


def test_what_comes_back_is_checked_by_the_protocol_code():
    for line, code in ((b"not json", protocol.BAD_JSON), (b"[1]", protocol.NOT_AN_OBJECT),
                       (b"x" * protocol.MAX_LINE_BYTES, protocol.LINE_TOO_LONG)):
        channel = QueueChannel()
        channel.incoming.put(b'{"type":"ready","name":"p"}')
        channel.incoming.put(line)
        rules, players = bura_players(channel)
        record = play_match(rules, 11, players, preset="bura", time_control=TimeControl(move_ms=500))
        seat = record.result["seats"][0]
        assert (seat["verdict"], seat["code"]) == (protocol.PROTOCOL_ERROR, code), seat
    channel = QueueChannel()
    channel.incoming.put(b'{"type":"ready","name":"p"}')
    channel.incoming.put(b'{"type":"action","id":99,"action":{"type":"lead","cards":["AS"]}}')
    rules, players = bura_players(channel)
    seat = play_match(rules, 11, players, preset="bura").result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.PROTOCOL_ERROR, protocol.WRONG_ID)


def test_a_bot_ready_in_time_is_never_failed_for_a_slower_seat_before_it():
    """Readies are awaited soonest deadline first: a person taking a minute to sit down in seat 0 must not
    run out seat 1's ten seconds while seat 1's ready already waits."""
    class PipeLike(QueueChannel):
        def receive(self, deadline):  # as a pipe is read: nothing is taken once the deadline has passed
            return None if time.monotonic() >= deadline else super().receive(deadline)

    person, bot = QueueChannel(), PipeLike()
    bot.incoming.put(b'{"type":"ready","name":"quick"}')

    def sit_down_late():
        time.sleep(1.5)
        person.incoming.put(b'{"type":"ready","name":"slow person"}')

    threading.Thread(target=sit_down_late, daemon=True).start()
    rules, _ = bura_players(person)
    players = [ChannelPlayer("@person", person), ChannelPlayer("quick", bot)]
    record = play_match(rules, 11, players, preset="bura", max_decisions=0,
                        seat_time_controls=[TimeControl(startup_ms=5_000), TimeControl(startup_ms=1_000)])
    assert [s["verdict"] for s in record.result["seats"]] == ["ok", "ok"], record.result["seats"]
    assert [s["name"] for s in record.result["seats"]] == ["slow person", "quick"]


class LateChannel(QueueChannel):
    """A transport that hands over an answer after the seat's clock ran out (a remote seat's relay that once
    restarted the clock on a reconnect): the referee must not take it. ``ready_on_time``: late for requests
    only."""

    def __init__(self, late_by_s: float = 0.3, ready_on_time: bool = False):
        super().__init__()
        self.late_by_s, self.ready_on_time = late_by_s, ready_on_time

    def receive(self, deadline):
        line = self.incoming.get(timeout=30)
        if not (self.ready_on_time and b'"ready"' in line):
            time.sleep(max(0.0, deadline - time.monotonic()) + self.late_by_s)
        return line


def test_an_answer_handed_over_after_the_clock_ran_out_is_a_timeout_not_a_floored_bank():
    channel = LateChannel(late_by_s=0.3)
    person = threading.Thread(target=a_person, args=(channel, [], random.Random(5)), daemon=True)
    person.start()
    rules, players = bura_players(channel)
    clock = TimeControl(startup_ms=5_000, move_ms=100, bank_ms=200)
    # The ready arrives late too, past its start-up time: the seat must not even sit down.
    record = play_match(rules, 11, players, preset="bura", time_control=TimeControl(move_ms=500),
                        seat_time_controls=[clock, None])
    person.join(timeout=10)
    seat = record.result["seats"][0]
    assert seat["verdict"] == "timeout", seat
    assert record.result["seats"][0]["decisions"] == 0


def test_a_late_answer_to_a_request_forfeits_with_the_clock_it_had():
    channel = LateChannel(ready_on_time=True)
    person = threading.Thread(target=a_person, args=(channel, [], random.Random(5)), daemon=True)
    person.start()
    rules, players = bura_players(channel)
    clock = TimeControl(startup_ms=5_000, move_ms=100, bank_ms=200)
    record = play_match(rules, 11, players, preset="bura", time_control=TimeControl(move_ms=500),
                        seat_time_controls=[clock, None])
    person.join(timeout=10)
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == ("timeout", "move"), seat
    assert seat["decisions"] == 0
    assert "100 ms plus 200 ms" in seat["detail"]
