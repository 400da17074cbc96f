"""Bura family invariants over random seeds, random options and random legal play, for every preset."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.bura import PRESETS, new_match
from arena.games.options import with_options

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
PLAY = st.integers(min_value=0, max_value=2**32)
HOUSE_RULES = st.fixed_dictionaries({
    "trump_card": st.sampled_from(["bottom", "returned"]),
    "discard": st.sampled_from(["closed", "shown_to_taker", "open"]),
    "molodka": st.sampled_from(["out_of_turn", "in_turn"]),
    "moscow": st.sampled_from(["lead", "instant_win"]),
    "moscow_needs_trump_ace": st.booleans(),
    "small_moscow": st.sampled_from(["off", "tens"]),
    "initial_combo": st.sampled_from(["redeal", "counts"]),
    "unclaimed": st.sampled_from(["void", "most_points", "double_next"]),
    "dealer": st.sampled_from(["winner", "rotate_left", "loser"]),
    "false_claim_deals": st.sampled_from(["winner", "claimer"]),
    "next_lead": st.sampled_from(["taker", "rotate"]),
    "draw_first": st.sampled_from(["taker", "leader"]),
    "mixed_sets": st.sampled_from(["off", "on"]),
    "combo_tie": st.sampled_from(["higher_cards", "turn_order"]),
    "bura_tie": st.sampled_from(["higher_cards", "playoff", "void"]),
    "out_of_turn_lead": st.sampled_from(["any", "whole_hand"]),
    "exactly_31": st.sampled_from([4, 2]),
    "no_trick_penalty": st.sampled_from([6, 8]),
    "match": st.sampled_from(["penalty:12", "rubber:3", "deals:3"]),
})


def rules_for(preset, house, **extra):
    if house["discard"] == "open":  # every card face up: no set can be partly face down
        house = {**house, "mixed_sets": "off"}
    return with_options(PRESETS[preset], {**house, **extra})


def card_places(state):
    trick = [c for _, cards, _ in state.trick_plays for c in cards] if state.phase == "respond" else []
    return ([c for h in state.hands for c in h] + state.stock + [c for p in state.piles for c in p] + trick)


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings_in(v)


def hidden_from(state, seat):
    """Cards ``seat`` must not see now, worked out from the rules rather than from the engine's views."""
    hidden = set(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    for owner, pile in enumerate(state.pile_down):
        for card, by in pile:
            sees = by == seat or owner in state.revealed or (
                owner == seat and state.rules.discard == "shown_to_taker")
            if not sees:
                hidden.add(card)
    if state.phase == "respond":
        hidden.update(c for s, _, down in state.trick_plays if s != seat for c in down)
    # An announced combination shows only its own cards (and a play-off the rivals' combination cards).
    public = {state.trump_card} | {c for combo in state.announced for c in combo["cards"]}
    public |= {c for combo in state.announced for p in combo.get("playoff", ()) for c in p["cards"]}
    return hidden - public


def play(rules, seed, play_seed, after_each=None, limit=20000):
    state = new_match(rules, seed)
    rng = random.Random(play_seed)
    actions = []
    while not state.is_over() and len(actions) < limit:
        seat = state.to_move()
        action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        actions.append((seat, action))
        if after_each:
            after_each(state)
    return state, actions


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, play_seed=PLAY, house=HOUSE_RULES)
def test_every_card_is_in_one_place_and_nothing_hidden_leaks(preset, seed, play_seed, house):
    rules = rules_for(preset, house, deal_limit=4)
    deck = sorted(rules.deck_cards)

    def check(state):
        assert sorted(card_places(state)) == deck
        if state.is_over():
            return
        log = state.events(None)
        deal_start = max(i for i, e in enumerate(log) if e["type"] == "deal")
        for seat in range(state.num_seats):
            hidden = hidden_from(state, seat)
            assert not hidden & set(strings_in(state.observation(seat)))
            assert not hidden & set(strings_in(state.events(seat, deal_start)))

    play(rules, seed, play_seed, check)


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, play_seed=PLAY, house=HOUSE_RULES)
def test_matches_end_and_replay_exactly_and_played_out_deals_hold_120_points(preset, seed, play_seed, house):
    rules = rules_for(preset, house)
    state, actions = play(rules, seed, play_seed)
    assert state.is_over()
    outcome = state.outcome()
    assert outcome["finished"] and sorted(outcome["ranks"])[0] == 1
    for deal in outcome["deals"]:
        if deal["reason"] in ("played-out", "void") and deal["combination"] is None:
            assert sum(deal["trick_points"]) == 120
    replay = new_match(rules, seed)
    for seat, action in actions:
        replay.apply(seat, action)
    assert replay.events(None) == state.events(None)
    assert replay.outcome() == outcome
    for seat in range(state.num_seats):
        assert replay.events(seat) == state.events(seat)


def test_bots_that_never_claim_still_end_at_the_deal_limit():
    rules = with_options(PRESETS["bura"], {"deal_limit": 5})
    state = new_match(rules, 9)
    rng = random.Random(9)
    while not state.is_over():
        seat = state.to_move()
        choices = [a for a in state.legal_actions(seat) if a["type"] != "claim"]
        state.apply(seat, rng.choice(choices))
    outcome = state.outcome()
    assert outcome["ended_by"] == "deal_limit"
    assert {d["reason"] for d in outcome["deals"]} <= {"void", "combination", "redeal"}
