"""The public view of a running match shows only what every seat already sees: no card of a hand, no card
played face down, nothing one seat knows and another does not; and it still shows the table."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from arena import public_view
from arena.bots import make_bot
from arena.games import new_match, resolve
from arena.players import BuiltinPlayer
from arena.referee import play_match as referee_play
from arena.replay_frames import ReplayRun

CARD = re.compile(r"^(?:[AKQJT98765432][SHDC]|X)$")
STEPS = 240  # enough for several tricks and a deal's end in every game, quick in every game


def cards_in(value) -> Counter:
    """Every card named anywhere in a JSON value, counted (two decks name a card twice)."""
    found: Counter = Counter()
    if isinstance(value, dict):
        for item in value.values():
            found += cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found += cards_in(item)
    elif isinstance(value, str) and CARD.match(value):
        found[value] += 1
    return found


def replay_of(preset: str, seed: int = 7) -> dict:
    game, rules = resolve(preset)
    seats = new_match(rules, seed).num_seats
    players = [BuiltinPlayer(f"builtin:{name}", make_bot(game, name, s, rules, seed), name=name)
               for s, name in zip(range(seats), ["greedy", "random"] * 3, strict=False)]
    return referee_play(rules, seed, players, preset=preset).replay


@pytest.mark.parametrize("preset", ["bura", "burkozel-pairs", "kozel", "burraco-2p", "burraco"])
def test_every_card_the_public_view_shows_is_one_every_seat_sees(preset):
    run = ReplayRun(replay_of(preset))
    stop = min(run.steps, STEPS)
    public = list(public_view.public_frames(run, 0, stop))
    per_seat = [list(run.frames(seat, 0, stop)) for seat in range(run.seats)]
    assert [f["step"] for f in public] == list(range(stop + 1))
    hidden_somewhere = 0
    for k, frame in enumerate(public):
        (shown,) = frame["views"].values()
        assert list(frame["views"]) == ["public"] and "hand" not in shown
        public_cards = cards_in(shown) + cards_in(frame["events"])
        for seat, frames in enumerate(per_seat):
            seen = cards_in(frames[k]["views"][str(seat)]) + cards_in(frames[k]["events"])
            assert not public_cards - seen, (preset, k, seat, public_cards - seen)  # nothing this seat lacks
        for event in frame["events"]:
            if event.get("type") == "deal":
                assert all(card == "??" for hand in event.get("hands") or [] for card in hand)
        hidden_somewhere += sum(f[k]["views"][str(s)].get("hand") is not None for s, f in enumerate(per_seat))
    assert hidden_somewhere  # the seats had hands, which the public view left out


def test_the_public_view_still_shows_the_table():
    run = ReplayRun(replay_of("bura"))
    frames = list(public_view.public_frames(run, 0, min(run.steps, STEPS)))
    seat_view = list(run.frames(0, 0, min(run.steps, STEPS)))
    led = next(k for k, f in enumerate(frames) if (f["views"]["public"].get("trick") or {}).get("plays"))
    board, mine = frames[led]["views"]["public"], seat_view[led]["views"]["0"]
    assert board["trick"]["plays"][0]["cards"] == mine["trick"]["plays"][0]["cards"]  # a face-up lead is public
    for key in ("trump", "stock", "hand_sizes", "penalties", "to_move"):
        assert board[key] == mine[key]
    assert frames[led]["text"] and frames[led]["totals"] == seat_view[led]["totals"]
    meta = public_view.public_meta(run)
    assert meta["steps"] == run.steps and any(m["kind"] == "deal" for m in meta["marks"])


def test_values_the_seats_see_differently_are_hidden_whole():
    common = public_view.common
    assert common([{"a": 1, "b": ["AS", "KD"]}, {"a": 1, "b": ["QH", "KD"]}]) == {"a": 1, "b": ["??", "??"]}
    assert common([["AS"], ["AS", "KD"]]) == []  # the seats do not even agree how many: nothing
    assert common([[{"cards": ["AS"]}], [{"cards": ["??"]}]]) == [{"cards": ["??"]}]
    assert common([{"seat": 0}, {"seat": 1}]) == {"seat": None}
    assert common([{"x": 1}, {"y": 1}]) is None
