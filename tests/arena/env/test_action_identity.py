"""One index and one engine action per move, both ways, at every decision of every game (issue 40).

A move list maps action indices to engine actions. It must be a bijection: no index twice (two actions under
one index) and no action twice (one action under two indices, with two OpenSpiel action strings); for Bura
and Kozel it covers exactly the engine's legal actions, and for Burraco every listed action is one the
engine accepts.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.env.encoding import BurracoEncoder, action_key, encoder_for
from arena.games import all_presets, new_match, resolve
from arena.games.burraco.state import BurracoState

# Every preset, and options that change the shape of the moves (mixed face-up/face-down sets, open
# discards, bigger hands, forbidden duplicate sets).
VARIANTS = [(preset, {}) for preset in sorted(all_presets())] + [
    ("bura", {"mixed_sets": "on"}), ("burkozel", {"mixed_sets": "on", "hand": "5"}), ("bura", {"discard": "open"}),
    ("bura-3p", {"hand": "6", "deck": "32"}), ("echki-6", {"out_of_turn_lead": "whole_hand"}),
    ("burraco-2p", {"duplicate_sets": "forbidden"}),
]
DECISIONS = 1000  # per example: deep enough into a match to reach melds, adds, claims and widows


def check_bijection(game: str, match, seat: int, moves: list) -> None:
    indices = [index for index, _ in moves]
    keys = [action_key(action) for _, action in moves]
    assert len(set(indices)) == len(indices), f"an index names two actions: {moves}"
    assert len(set(keys)) == len(keys), f"an action has two indices: {moves}"
    strings = [json.dumps(action, separators=(",", ":")) for _, action in moves]
    assert len(set(strings)) == len(strings)
    assert indices == sorted(indices)
    if game != "burraco":  # the engine lists its legal actions: the moves are exactly those
        legal = [action_key(a) for a in match.legal_actions(seat)]
        assert set(legal) == set(keys) and len(set(legal)) == len(legal) == len(keys)
        return
    for _, action in moves:  # the engine lists none: each one listed must be accepted
        match.clone().apply(seat, action)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2 ** 32), choices=st.integers(0, 2 ** 32))
def test_indices_and_engine_actions_are_a_bijection_at_every_decision(variant, seed, choices):
    game, rules = resolve(*variant)
    match = new_match(rules, seed)
    encoder = encoder_for(game, rules, match)
    rng = random.Random(choices)
    for _ in range(DECISIONS):
        if match.is_over():
            break
        seat = match.to_move()
        moves = encoder.moves(match, seat, match.observation(seat))
        check_bijection(game, match, seat, moves)
        match.apply(seat, rng.choice(moves)[1])


def test_a_two_that_extends_a_run_of_its_suit_is_one_add_not_two():
    """2C extends the run 3C-4C-5C as a natural and could also be its wild: the bots' option lists name the
    same add twice (the reported `{"type":"add","meld":2,"cards":["2C"]}` under two indices)."""
    _, rules = resolve("burraco-2p")
    match = BurracoState.from_position(
        rules, hands=[["2C", "9H", "9S", "KD"], ["5D", "6D", "7H", "8H"]], stock=["4S", "4H", "QC"],
        discard_pile=["JD"], pozzetti=[["3S"], ["3H"]], melds=[{"team": 0, "cards": ["3C", "4C", "5C"]}],
        phase="play")
    encoder = BurracoEncoder(rules)
    observation = match.observation(0)
    adds = [c for c in encoder.candidates(observation) if c["type"] == "add"]
    assert adds == [{"type": "add", "meld": 0, "cards": ["2C"]}]
    check_bijection("burraco", match, 0, encoder.moves(match, 0, observation))


@pytest.mark.parametrize("action", [
    {"type": "meld", "cards": ["9H", "9S", "2C"]}, {"type": "respond", "cards": ["AS", "TS"], "face_down": ["TS"]},
])
def test_an_action_key_ignores_the_order_of_its_cards(action):
    shuffled = {k: list(reversed(v)) if isinstance(v, list) else v for k, v in reversed(action.items())}
    assert action_key(shuffled) == action_key(action)
    assert action_key({**action, "cards": action["cards"][:-1]}) != action_key(action)
