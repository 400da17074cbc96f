"""Every engine refuses hostile actions with IllegalAction and leaves the state exactly as it was.

Random built-in bots play each preset; at regular decisions the seat to move first sends a batch of
malformed actions (wrong JSON types, nested garbage, duplicates, cards it does not hold, huge lists,
unknown keys). The referee only catches IllegalAction cleanly, so any other exception is a bug, and so
is any change to what a seat can observe.
"""

from __future__ import annotations

import json
import random

import pytest

from arena.bots import make_bot
from arena.cards import BURRACO_DECK
from arena.games import all_presets, new_match
from arena.games.base import IllegalAction

ACTION_TYPES = ["lead", "respond", "claim", "pass", "play", "discard", "draw", "take_pile", "meld", "add"]


def snapshot(state) -> str:
    seats = range(state.num_seats)
    return json.dumps([state.to_move(), [state.observation(s) for s in seats], len(state.events(None)),
                       state.events(None, max(0, len(state.events(None)) - 3)),
                       [state.legal_actions(s) for s in seats], state.outcome()], sort_keys=True)


def garbage(rng: random.Random, mine: str, depth: int = 0):
    roll = rng.random()
    if depth > 2 or roll < 0.4:
        return rng.choice([None, 0, -1, 1.5, True, "", "??", "AS", "X", mine, "1Z", "AS" * 50])
    if roll < 0.7:
        return [garbage(rng, mine, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["type", "cards", "card", "meld"]): garbage(rng, mine, depth + 1) for _ in range(2)}


def hostile_actions(state, seat: int, rng: random.Random) -> list:
    hand = state.observation(seat)["hand"]
    mine = rng.choice(hand) if hand else "AS"
    absent = next(c for c in BURRACO_DECK if c not in hand)  # a card text this seat does not hold
    actions = [
        None, [], "lead", 5, 1.5, True, {}, {"type": 5}, {"type": None}, {"type": ["lead"]}, {"type": {"a": 1}},
        {"type": "lead", "cards": "AS"}, {"type": "lead", "cards": [[mine]]}, {"type": "lead", "cards": [mine, mine]},
        {"type": "lead", "cards": [absent]}, {"type": "lead", "cards": [mine] * 10_000}, {"type": "lead", "cards": []},
        {"type": "lead", "cards": [mine, 5]}, {"type": "lead", "cards": [None]},
        {"type": "respond", "cards": [mine], "face_down": 1}, {"type": "respond", "cards": [mine], "face_down": "no"},
        {"type": "respond", "cards": [absent], "face_down": False}, {"type": "respond", "cards": [mine, mine]},
        {"type": "play", "card": absent}, {"type": "play", "card": None}, {"type": "play", "card": [mine]},
        {"type": "play", "card": mine, "extra": 1}, {"type": "play"}, {"type": "play", "card": "AS" * 100_000},
        {"type": "discard", "card": {"a": 1}}, {"type": "discard", "card": absent},
        {"type": "discard", "cards": [mine, mine]}, {"type": "discard", "cards": [mine, absent]},
        {"type": "discard", "cards": [mine] * 10_000}, {"type": "discard", "card": mine, "cards": [mine]},
        {"type": "meld", "cards": [mine] * 10_000}, {"type": "meld", "cards": [{"c": 1}, mine, mine]},
        {"type": "meld", "cards": [mine, mine, mine]}, {"type": "meld", "cards": [*hand, absent]},
        {"type": "meld", "cards": [mine, absent, "X"], "wild_as": "ZZ"},
        {"type": "add", "meld": "0", "cards": [mine]}, {"type": "add", "meld": -1, "cards": [mine]},
        {"type": "add", "meld": True, "cards": [mine]}, {"type": "add", "meld": 0.0, "cards": [mine]},
        {"type": "add", "meld": 10**30, "cards": [mine]}, {"type": "add", "meld": 0, "cards": []},
        {"type": "add", "meld": 0, "cards": [absent], "wild_as": {"x": 1}},
        {"type": "claim", "cards": []}, {"type": "pass", "x": 1}, {"type": "draw", "card": mine},
        {"type": "take_pile", "cards": [mine]},
    ]
    for kind in ACTION_TYPES:  # nested garbage under real action types; the unknown key keeps each illegal
        actions.append({"type": kind, "junk": garbage(rng, mine), "cards": garbage(rng, mine),
                        "card": garbage(rng, mine)})
    return actions


@pytest.mark.parametrize("preset", list(all_presets()))
def test_hostile_actions_raise_illegal_action_and_change_nothing(preset):
    game, rules = all_presets()[preset]
    rng = random.Random(preset)
    for seed in range(2):
        state = new_match(rules, seed)
        bots = [make_bot(game, "random", s, rules, seed * 10 + s) for s in range(state.num_seats)]
        for step in range(300):
            if state.is_over():
                break
            seat = state.to_move()
            if step % 5 == 0:
                before = snapshot(state)
                for action in hostile_actions(state, seat, rng):
                    with pytest.raises(IllegalAction):
                        state.apply(seat, action)
                for other in range(state.num_seats):
                    if other != seat:
                        with pytest.raises(IllegalAction):
                            state.apply(other, {"type": "pass"})
                assert snapshot(state) == before
            state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))


class EscapingBot:
    """Answers its first decision with a legal-looking action carrying terminal escapes in an unknown key and
    in its values: whatever the rules quote back must reach the record escaped."""

    label = "escaper"

    def launch(self, hello, deadline):
        pass

    def wait_ready(self, deadline):
        return {"type": "ready", "name": "\x1b]0;title\x07escaper"}

    def ask(self, request, deadline, before=()):
        legal = request["legal_actions"]
        base = dict(legal[0]) if legal else {"type": "\x1b[2Jplay"}
        base["\x1b]52;c;cGF5bG9hZA==\x07"] = "\x1b[31mred"
        return {"type": "action", "id": request["id"], "action": base}

    def hang_up(self, farewell):
        pass

    def close(self, farewell=()):
        from arena.players import SeatReport

        return SeatReport()


@pytest.mark.parametrize("preset", list(all_presets()))
def test_escape_sequences_in_a_hostile_action_never_reach_the_record_raw(preset):
    from arena.referee import play_match
    from tests.arena.conftest import builtin

    _, rules = all_presets()[preset]
    seats = new_match(rules, 0).num_seats
    for escaper_seat in range(seats):
        players = [EscapingBot() if s == escaper_seat else builtin(preset, "random", s) for s in range(seats)]
        record = play_match(rules, 0, players, preset=preset)
        stopped = [s for s in record.result["seats"] if s["verdict"] != "ok"]
        if not stopped:
            continue  # the escaper never had to decide before the match ended
        texts = [s["detail"] for s in record.result["seats"]] + [s["name"] for s in record.result["seats"]]
        if record.replay["rejected"] is not None:
            texts.append(record.replay["rejected"]["error"])
        assert all(ch.isprintable() for text in texts for ch in text), texts
        return
    pytest.fail("the escaping bot was never asked to decide")
