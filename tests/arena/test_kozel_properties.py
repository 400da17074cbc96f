"""Kozel properties over random play, for both player counts: conservation, scoring totals, termination,
replay determinism and no hidden card reaching a seat that may not see it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import MAX_SEED
from arena.games.base import HIDDEN, IllegalAction
from arena.games.kozel import KozelState, Rules, new_match
from arena.games.kozel.cards import TABLES

MAX_STEPS = 5000  # a match is a few hundred decisions; this only turns a runaway into a failure

rules_strategy = st.builds(Rules, players=st.sampled_from([4, 3]), deck=st.sampled_from(["no-sevens", "no-sixes"]),
                           target=st.sampled_from([12, 5]), tie_doubles=st.booleans())
seeds = st.integers(0, MAX_SEED)
property_settings = settings(max_examples=25, deadline=None)


def cards_in(value, deck: frozenset) -> set[str]:
    """Every concrete card text anywhere inside a JSON value."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v, deck) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(cards_in(v, deck) for v in value))
    return {value} if value in deck else set()


def play_random_match(rules: Rules, seed: int, choice_seed: int, check=None) -> tuple[KozelState, list]:
    state = new_match(rules, seed)
    rng = random.Random(choice_seed)
    actions = []
    for _ in range(MAX_STEPS):
        if state.is_over():
            break
        if check:
            check(state)
        seat = state.to_move()
        action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        actions.append((seat, action))
    assert state.is_over(), "the match did not end"
    return state, actions


def check_cards_conserved(state: KozelState) -> None:
    deck = TABLES[state.rules.deck].deck
    observations = [state.observation(s) for s in range(state.num_seats)]
    held = [c for obs in observations for c in obs["hand"]]
    public = observations[0]
    played = list(public["trick"]) + [c for trick in public["tricks"] for c in trick["cards"]]
    soloist = public["soloist"]
    discard = (observations[soloist]["discard"] or []) if soloist is not None else []
    widow = state._widow if public["contract"] in ("pending", "misere") else []  # out of play: nobody holds it
    every = held + played + discard + widow
    assert sorted(every) == sorted(deck)
    assert public["hand_sizes"] == [len(obs["hand"]) for obs in observations]


def check_following(state: KozelState) -> None:
    """A card left out of the legal list is refused for not following suit, and the state stays as it was."""
    seat = state.to_move()
    obs = state.observation(seat)
    if obs["decision"] != "follow":
        return
    legal = {a["card"] for a in state.legal_actions(seat)}
    table = TABLES[state.rules.deck]
    assert all(table.kind[c] == obs["led"] for c in legal) or legal == set(obs["hand"])
    for card in set(obs["hand"]) - legal:
        try:
            state.apply(seat, {"type": "play", "card": card})
        except IllegalAction as err:
            assert err.rule == "must-follow-suit"
        else:
            raise AssertionError(f"{card} was accepted though it was not listed as legal")
    assert state.observation(seat) == obs


def check_no_leaks(state: KozelState, whole_match: bool = False) -> None:
    """Each seat's observation and event view hold only its own cards, the widow and discard if it is the
    soloist, and cards played face up. Checks the current hand's events, or all of them."""
    deck = frozenset(TABLES[state.rules.deck].deck)
    full = state.events(None)
    start = 0 if whole_match else max(i for i, e in enumerate(full) if e["type"] == "deal")
    full = full[start:]
    for seat in range(state.num_seats):
        mine = state.events(seat, start)
        assert [e["type"] for e in mine] == [e["type"] for e in full]
        allowed: set[str] = set()
        for truth, seen in zip(full, mine, strict=True):
            if truth["type"] == "deal":
                allowed = set(truth["hands"][seat])
                if truth["soloist"] == seat:
                    allowed |= set(truth["widow"])
                for other, hand in enumerate(seen["hands"]):
                    assert hand == (truth["hands"][seat] if other == seat else [HIDDEN] * len(truth["hands"][other]))
                if "widow" in seen:
                    assert seen["widow"] == [HIDDEN] * len(truth["widow"])
            elif truth["type"] in ("widow", "discard"):
                assert seen["cards"] == (truth["cards"] if truth["seat"] == seat else [HIDDEN] * len(truth["cards"]))
                if truth["seat"] == seat:  # the widow joins the taker's hand
                    allowed |= set(truth["cards"])
            elif truth["type"] == "play":
                allowed.add(truth["card"])
            else:
                assert seen == truth  # trick, deal_end, match_end are public
            assert cards_in(seen, deck) <= allowed
        observation = state.observation(seat)
        assert cards_in(observation, deck) <= allowed
        if observation["soloist"] != seat:
            assert observation["widow"] is None and observation["discard"] is None


def check_everything(state: KozelState) -> None:
    check_cards_conserved(state)
    check_following(state)
    check_no_leaks(state)


@pytest.mark.no_cover  # traced, it would cost twice its time and cover nothing more (CONTRIBUTING.md)
@given(rules=rules_strategy, seed=seeds, choice_seed=seeds)
@property_settings
def test_random_matches_conserve_cards_hide_hands_and_end(rules, seed, choice_seed):
    state, _ = play_random_match(rules, seed, choice_seed, check=check_everything)
    check_no_leaks(state, whole_match=True)
    outcome = state.outcome()
    assert outcome["finished"] is True
    assert max(outcome["points"]) >= rules.target
    assert outcome["goats"] == [s for s in range(rules.players) if outcome["points"][s] >= rules.target]
    assert min(outcome["ranks"]) == 1
    worst = max(outcome["ranks"])
    assert all(outcome["ranks"][s] == worst for s in outcome["goats"])


@given(rules=rules_strategy, seed=seeds, choice_seed=seeds)
@property_settings
def test_every_hand_holds_120_points_and_penalties_add_up(rules, seed, choice_seed):
    state, _ = play_random_match(rules, seed, choice_seed)
    totals = [0] * rules.players
    pending = 1  # the multiplier carried from 60:60 hands
    for deal in state.outcome()["deals"]:
        misere = deal.get("contract") == "misere"
        if misere:  # the widow counts for nobody; every seat is a side
            assert sum(deal["points"]) <= 120 and len(deal["points"]) == 3 and not deal["tie"]
            assert deal["penalties"] == [pending * (0 if p < 31 else 2 if p <= 60 else 4) for p in deal["points"]]
        else:
            assert sum(deal["points"]) == 120
            assert deal["tie"] == (deal["points"] == [60, 60])
        assert sum(deal["tricks"]) == rules.hand_size
        assert deal["doubled"] == (pending > 1) and deal.get("multiplier", 2 if pending > 1 else 1) == pending
        if deal["tie"]:
            assert deal["penalties"] == [0] * rules.players
            pending *= 2 if rules.tie_doubles else 1  # x2, x4, ... for 60:60 hands in a row
        else:
            if not misere:
                assert sum(1 for p in deal["penalties"] if p) in ((2,) if rules.players == 4 else (1, 2))
            assert all(p % pending == 0 for p in deal["penalties"])
            pending = 1
        totals = [t + p for t, p in zip(totals, deal["penalties"], strict=True)]
        assert deal["scores"] == totals
    assert state.outcome()["points"] == totals


@given(rules=rules_strategy, seed=seeds, choice_seed=seeds)
@settings(max_examples=15, deadline=None)
def test_the_same_seed_and_actions_replay_the_same_match(rules, seed, choice_seed):
    cursors = {}

    def fetch_incrementally(state):
        for seat in range(state.num_seats):
            got = cursors.setdefault(seat, [])
            got.extend(state.events(seat, len(got)))

    original, actions = play_random_match(rules, seed, choice_seed, check=fetch_incrementally)
    fetch_incrementally(original)
    for seat, got in cursors.items():
        assert got == original.events(seat)

    replay = new_match(rules, seed)
    for seat, action in actions:
        replay.apply(seat, action)
    assert replay.events(None) == original.events(None)
    assert replay.outcome() == original.outcome()


@given(seed=seeds, steps=st.integers(0, 60))
@settings(max_examples=15, deadline=None)
def test_a_clone_plays_on_without_touching_the_original(seed, steps):
    state = new_match(Rules(players=3), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        seat = state.to_move()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    before = (state.events(None), [state.observation(s) for s in range(3)], state.outcome())
    twin = state.clone()
    for _ in range(40):
        if twin.is_over():
            break
        seat = twin.to_move()
        twin.apply(seat, rng.choice(twin.legal_actions(seat)))
    assert (state.events(None), [state.observation(s) for s in range(3)], state.outcome()) == before


def test_a_finished_match_has_no_legal_actions_for_anyone():
    state = new_match(Rules(players=3), 581718846)
    rng = random.Random(0)
    while not state.is_over():
        seat = state.to_move()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.to_move() is None
    assert all(state.legal_actions(s) == [] for s in (None, 0, 1, 2))


def test_changing_what_the_state_hands_out_does_not_change_the_state():
    state = new_match(Rules(), 11)
    seat = state.to_move()
    obs = state.observation(seat)
    obs["hand"].clear()
    state.events(None)[0]["hands"][seat].clear()
    state.outcome()["points"][0] = 99
    assert len(state.observation(seat)["hand"]) == 8
    assert len(state.events(None)[0]["hands"][seat]) == 8
    assert state.outcome()["points"][0] == 0
