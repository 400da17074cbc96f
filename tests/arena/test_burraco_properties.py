"""Burraco properties over whole matches of built-in bots, for both presets: 108 cards at all times, every
meld valid, scores equal to a recomputation from the table, termination, replay, no hidden card leaking."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.burraco import BOTS
from arena.cards import BURRACO_DECK, MAX_SEED
from arena.games.base import HIDDEN
from arena.games.burraco import PRESETS, BurracoState, new_match
from arena.games.burraco.melds import check_meld, meld_from_json
from arena.games.burraco.scoring import team_hand_score
from arena.games.options import with_options

MAX_STEPS = 20_000  # a hand is a few hundred decisions; this only turns a runaway into a failure

rules_strategy = st.builds(
    lambda preset, target, duplicate_sets, stock_end: with_options(
        PRESETS[preset], {"target": target, "duplicate_sets": duplicate_sets, "stock_end": stock_end}),
    st.sampled_from(["burraco", "burraco-2p"]), st.sampled_from([300, 800]),
    st.sampled_from(["allowed", "forbidden"]), st.sampled_from(["immediate", "finish_turn"]))
seeds = st.integers(0, MAX_SEED)
lineups = st.sampled_from([("random", "random"), ("random", "greedy"), ("greedy", "greedy")])
property_settings = settings(max_examples=40, deadline=None)


def play(rules, seed: int, lineup, bot_seed: int, check=None) -> tuple[BurracoState, list]:
    state = new_match(rules, seed)
    bots = [BOTS[lineup[s % 2]](s, rules, bot_seed + s) for s in range(rules.players)]
    actions = []
    for _ in range(MAX_STEPS):
        if state.is_over():
            break
        if check:
            check(state)
        seat = state.to_move()
        action = bots[seat].act(state.observation(seat), state.legal_actions(seat))
        state.apply(seat, action)
        actions.append((seat, action))
    assert state.is_over(), "the match did not end"
    return state, actions


def all_cards(state: BurracoState) -> list[str]:
    cards = [c for h in state.hands for c in h] + state.stock + state.pile
    cards += [c for m in state.melds for c in m.cards] + [c for p in state.pozzetti if p is not None for c in p]
    return cards


def check_table(state: BurracoState) -> None:
    assert sorted(all_cards(state)) == sorted(BURRACO_DECK)
    for meld in state.melds:
        check_meld(meld)
    # the stock's last turn exists only with stock_end=finish_turn; "immediate" ends the hand at the draw
    assert len(state.stock) > 2 or (state.phase == "play" and len(state.stock) == 2
                                    and state.rules.stock_end == "finish_turn")
    if state.rules.duplicate_sets == "forbidden":
        for team in (0, 1):
            ranks = [m.rank for m in state.melds if m.team == team and m.kind == "set"]
            assert len(ranks) == len(set(ranks)), f"team {team} holds two sets of one rank: {ranks}"


@given(rules_strategy, seeds, lineups, st.integers(0, 1000))
@property_settings
def test_cards_are_conserved_and_melds_stay_valid(rules, seed, lineup, bot_seed):
    play(rules, seed, lineup, bot_seed, check=check_table)


def recompute_hand_scores(events: list[dict], num_seats: int) -> list[list[dict]]:
    """Each hand's team scores rebuilt from the public event log alone."""
    team_of = [s % 2 for s in range(num_seats)]
    results, melds, took = [], {}, [False, False]
    for event in events:
        if event["type"] == "deal":
            melds, took = {}, [False, False]
        elif event["type"] in ("meld", "add"):
            melds[event["meld"]["id"]] = meld_from_json(event["meld"])
        elif event["type"] == "pozzetto":
            took[event["team"]] = True
        elif event["type"] == "deal_end":
            closer = event["closed_by"]
            results.append([team_hand_score([m for m in melds.values() if m.team == team],
                                            [h for s, h in enumerate(event["hands"]) if team_of[s] == team],
                                            closed=closer is not None and team_of[closer] == team,
                                            took_pozzetto=took[team]) for team in (0, 1)])
    return results


@given(rules_strategy, seeds, lineups, st.integers(0, 1000))
@property_settings
def test_scores_equal_the_recomputation_from_the_table_and_the_match_ends_at_the_target(rules, seed, lineup,
                                                                                         bot_seed):
    state, _ = play(rules, seed, lineup, bot_seed)
    public = state.events(None)
    assert [d["scores"] for d in state.deals] == recompute_hand_scores(public, rules.players)
    totals = [sum(d["scores"][t]["total"] for d in state.deals) for t in (0, 1)]
    out = state.outcome()
    assert out["team_points"] == totals and out["finished"]
    assert max(totals) >= rules.target and totals[out["winner_team"]] == max(totals)
    assert out["ranks"][out["teams"][out["winner_team"]][0]] == 1
    assert all(d["ended_by"] in ("closing", "stock", "stalemate") for d in state.deals)
    assert public[-1]["type"] == "match_end"


@given(rules_strategy, seeds, st.integers(0, 1000))
@property_settings
def test_same_seed_and_actions_give_the_same_match(rules, seed, bot_seed):
    state, actions = play(rules, seed, ("random", "greedy"), bot_seed)
    replay = new_match(rules, seed)
    for seat, action in actions:
        replay.apply(seat, json.loads(json.dumps(action)))
    assert replay.events(None) == state.events(None)
    assert replay.outcome() == state.outcome()


def check_no_leaks(state: BurracoState, rng: random.Random) -> None:
    """Shuffling every card a seat cannot see must not change its observation; the log hides them too."""
    n = state.num_seats
    for seat in range(n):
        obs = state.observation(seat)
        json.dumps(obs)
        other = state.clone()
        hidden = [c for s in range(n) if s != seat for c in other.hands[s]] + other.stock
        hidden += [c for p in other.pozzetti if p is not None for c in p]
        rng.shuffle(hidden)
        for s in range(n):
            if s != seat:
                other.hands[s], hidden = hidden[:len(other.hands[s])], hidden[len(other.hands[s]):]
        other.stock, hidden = hidden[:len(other.stock)], hidden[len(other.stock):]
        other.pozzetti = [None if p is None else [hidden.pop() for _ in p] for p in other.pozzetti]
        assert other.observation(seat) == obs


def check_log_hides(state: BurracoState) -> None:
    for seat in range(state.num_seats):
        log = state.events(seat)
        assert state.events(seat, len(log) // 2) == log[len(log) // 2:]
        for event in log:
            if event["type"] == "draw" and event["seat"] != seat:
                assert event["card"] == HIDDEN
            elif event["type"] == "pozzetto" and event["seat"] != seat:
                assert set(event["cards"]) == {HIDDEN}
            elif event["type"] == "deal":
                assert all(set(h) == {HIDDEN} for s, h in enumerate(event["hands"]) if s != seat)
                assert HIDDEN not in event["hands"][seat]


@given(rules_strategy, seeds, lineups, st.integers(0, 1000))
@settings(max_examples=10, deadline=None)
def test_no_seat_sees_another_hand_the_stock_or_a_pozzetto(rules, seed, lineup, bot_seed):
    rng = random.Random(seed)
    steps = []

    def sample(state):
        steps.append(1)
        if len(steps) % 7 == 0:
            check_no_leaks(state, rng)

    state, _ = play(rules, seed, lineup, bot_seed, check=sample)
    check_log_hides(state)
    json.dumps(state.events(None))
    json.dumps(state.outcome())
