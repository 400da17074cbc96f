"""The search bots (``search-1``..``search-3``): they decide from their seat's observation alone, their
determinizations show the seat exactly what it saw, a decision is a function of its seed, and they play
under the referee like any built-in bot."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from arena.bots import bots_for, make_bot
from arena.bots.search import LEVELS, SearchBot, best, determinize, sampler_for, search
from arena.cli import main
from arena.games import new_match, resolve
from arena.games.bura.ranking import POINTS, card_sort_key
from arena.games.bura.state import BuraMatch
from arena.games.burraco.state import BurracoState
from arena.games.burraco.views import sort_cards

# Kozel's sampled hands start from the current trick, so its history (the finished tricks as a list, who held
# the widow) is not rebuilt; every field play depends on is.
HISTORY = {"kozel": {"tricks", "widow_holder", "widow"}, "bura": set(), "burraco": set()}
PRESETS = ["bura", "bura-3p", "burkozel", "burkozel-pairs", "echki-6", "kozel", "kozel-3p", "burraco", "burraco-2p"]


def decisions(preset: str, seed: int, limit: int = 400):
    """(state, seat) at each decision of a match between greedy bots; the state moves on after each yield."""
    game, rules = resolve(preset)
    state = new_match(rules, seed)
    bots = [make_bot(game, "greedy", seat, rules, seed + seat) for seat in range(state.num_seats)]
    for _ in range(limit):
        if state.is_over():
            return
        seat = state.to_move()
        yield state, seat
        state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))


def hidden_cards(state, seat: int) -> tuple:
    if isinstance(state, BuraMatch | BurracoState):
        return tuple(tuple(h) for s, h in enumerate(state.hands) if s != seat), tuple(state.stock)
    return tuple(tuple(h) for s, h in enumerate(state._hands) if s != seat)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_sampled_position_shows_the_seat_exactly_what_it_saw(preset):
    game, rules = resolve(preset)
    sampler = sampler_for(game, rules)
    rng = random.Random(3)
    checked = varied = 0
    for state, seat in decisions(preset, 11):
        observation, legal = state.observation(seat), state.legal_actions(seat)
        if sampler.candidates(observation, legal) is None:
            continue
        samples = [determinize(sampler, observation, rng) for _ in range(2)]
        for sample in samples:
            seen = sample.observation(seat)
            assert {k: v for k, v in seen.items() if k not in HISTORY[game]} == \
                   {k: v for k, v in observation.items() if k not in HISTORY[game]}
            assert sample.legal_actions(seat) == legal
            if legal is None:  # Burraco lists none: the candidates the search weighs must be the same
                assert sampler.candidates(seen, None) == sampler.candidates(observation, None)
        checked += 1
        varied += hidden_cards(samples[0], seat) != hidden_cards(samples[1], seat)
    assert checked > 50
    assert varied > checked // 2  # the hidden cards really are drawn afresh


def test_kozel_samples_never_give_a_seat_a_kind_it_showed_it_lacks():
    game, rules = resolve("kozel")
    sampler = sampler_for(game, rules)
    kind = sampler.table.kind
    rng = random.Random(5)
    voids_seen = 0
    for state, seat in decisions("kozel", 21):
        observation = state.observation(seat)
        if observation["decision"] not in ("lead", "follow"):
            continue
        lacking: list[set[str]] = [set() for _ in range(state.num_seats)]
        for trick in observation["tricks"]:
            led = kind[trick["cards"][0]]
            for i, card in enumerate(trick["cards"]):
                if kind[card] != led:
                    lacking[(trick["leader"] + i) % state.num_seats].add(led)
        voids_seen += sum(map(len, lacking))
        sample = determinize(sampler, observation, rng)
        for other, hand in enumerate(sample._hands):
            if other != seat:
                assert not {kind[c] for c in hand} & lacking[other], (other, hand, lacking[other])
    assert voids_seen > 0


def swapped(state, seat: int, rng: random.Random):
    """A copy of ``state`` with hidden cards exchanged between places ``seat`` cannot see (another hand and the
    stock in Bura; two other hands, a card of the same kind each, in Kozel), or None when there is no such
    pair; the observation of ``seat`` is unchanged."""
    other = state.clone()
    if isinstance(other, BurracoState):
        holders = [s for s in range(other.num_seats) if s != seat and other.hands[s]]
        if not other.stock or not holders:
            return None
        hand, at = other.hands[rng.choice(holders)], rng.randrange(len(other.stock))
        index = rng.randrange(len(hand))
        if hand[index] == other.stock[at]:
            return None
        hand[index], other.stock[at] = other.stock[at], hand[index]
        hand[:] = sort_cards(hand)
        return other
    if isinstance(other, BuraMatch):
        trump = other.trump_card if other.trump_in_stock else None
        stock = [i for i, c in enumerate(other.stock) if c != trump]
        holders = [s for s in range(other.num_seats) if s != seat and other.hands[s]]
        if not stock or not holders:
            return None
        holder, at = rng.choice(holders), rng.choice(stock)
        hand = other.hands[holder]
        card = hand.pop(rng.randrange(len(hand)))
        hand.append(other.stock[at])
        hand.sort(key=card_sort_key)
        other.stock[at] = card
        return other
    kind = other._table.kind
    pairs = [(a, b, x, y) for a in range(other.num_seats) for b in range(a + 1, other.num_seats)
             if seat not in (a, b) for x in other._hands[a] for y in other._hands[b] if kind[x] == kind[y]]
    if not pairs:
        return None
    a, b, x, y = rng.choice(pairs)
    hand_a = [y if c == x else c for c in other._hands[a]]
    hand_b = [x if c == y else c for c in other._hands[b]]
    other._pick_up_hand(a, hand_a)
    other._pick_up_hand(b, hand_b)
    return other


@pytest.mark.no_cover  # traced, it would cost twice its time and cover nothing more (CONTRIBUTING.md)
@pytest.mark.parametrize("preset", ["bura", "burkozel-pairs", "kozel", "kozel-3p", "burraco-2p"])
def test_swapping_the_hidden_cards_does_not_change_the_decision(preset):
    game, rules = resolve(preset)
    sampler = sampler_for(game, rules)
    rng = random.Random(8)
    compared = 0
    for state, seat in decisions(preset, 31, limit=300):
        candidates = sampler.candidates(state.observation(seat), state.legal_actions(seat))
        if candidates is None or len(candidates) < 2:
            continue
        other = swapped(state, seat, rng)
        if other is None:
            continue
        assert hidden_cards(other, seat) != hidden_cards(state, seat)
        assert other.observation(seat) == state.observation(seat)
        chosen = [make_bot(game, "search-1", seat, rules, 99).act(s.observation(seat), s.legal_actions(seat))
                  for s in (state, other)]
        assert chosen[0] == chosen[1]
        compared += 1
        if compared == 12:
            break
    assert compared == 12


def test_a_decision_is_a_function_of_the_seed_and_a_budget_in_iterations():
    game, rules = resolve("bura")
    sampler = sampler_for(game, rules)
    state, seat = next((s, seat) for s, seat in decisions("bura", 41) if len(s.legal_actions(seat)) > 3)
    observation, legal = state.observation(seat), state.legal_actions(seat)
    first = search(sampler, observation, legal, iterations=200, seed=7)
    again = search(sampler, observation, legal, iterations=200, seed=7)
    assert [(e.visits, e.mean) for e in first] == [(e.visits, e.mean) for e in again]
    assert sum(e.visits for e in first) == 200
    uniform = search(sampler, observation, legal, iterations=10 * len(legal), seed=7, uniform=True)
    assert {e.visits for e in uniform} == {10}
    with pytest.raises(ValueError, match="at least 1 iteration"):
        search(sampler, observation, legal, iterations=0, seed=7)


@pytest.mark.no_cover  # traced, it would cost twice its time and cover nothing more (CONTRIBUTING.md)
def test_the_search_claims_exactly_when_its_pile_holds_31():
    """At a claim whose pile it knows card by card, the search claims if and only if the pile holds 31."""
    answers = {"claim": 0, "pass": 0}
    for seed in range(60, 70):
        for state, seat in decisions("bura", seed):
            observation = state.observation(seat)
            pile = observation["piles"][seat]
            known = pile["face_up"] + pile["face_down_known"]
            if observation["decision"] != "claim" or pile["count"] != len(known):
                continue
            points = sum(POINTS[c[0]] for c in known)
            expected = "claim" if points >= 31 else "pass"
            bot = make_bot("bura", "search-1", seat, state.rules, seed)
            assert bot.act(observation, state.legal_actions(seat))["type"] == expected, (points, pile)
            answers[expected] += 1
    assert answers["claim"] > 3 and answers["pass"] > 3


def test_the_levels_are_built_in_bots_of_every_game():
    for game in ("bura", "kozel", "burraco"):
        assert {"search-1", "search-2", "search-3"} <= set(bots_for(game))
        assert LEVELS[game]["search-1"] < LEVELS[game]["search-2"] < LEVELS[game]["search-3"]
    game, rules = resolve("kozel-3p")
    bot = make_bot(game, "search-1", 0, rules, 1)
    assert isinstance(bot, SearchBot)
    # The widow decision is not searched: the greedy bot behind the search takes it.
    widow = next(state for state, seat in decisions("kozel-3p", 3) if state.observation(seat)["decision"] == "widow")
    seat = widow.to_move()
    assert bot.sampler.candidates(widow.observation(seat), widow.legal_actions(seat)) is None
    assert make_bot(game, "search-1", seat, rules, 1).act(widow.observation(seat), widow.legal_actions(seat)) == \
        make_bot(game, "greedy", seat, rules, 1).act(widow.observation(seat), widow.legal_actions(seat))


def test_a_budget_in_milliseconds_stops_early_but_tries_every_candidate_first():
    game, rules = resolve("bura")
    state, seat = next((s, seat) for s, seat in decisions("bura", 41) if len(s.legal_actions(seat)) > 3)
    legal = state.legal_actions(seat)
    found = search(sampler_for(game, rules), state.observation(seat), legal, iterations=10**6, seed=2, max_ms=0.001)
    assert all(e.visits >= 1 for e in found)
    assert sum(e.visits for e in found) <= len(legal) + 1


def test_the_most_visited_action_is_the_choice():
    game, rules = resolve("bura")
    state, seat = next((s, seat) for s, seat in decisions("bura", 41) if len(s.legal_actions(seat)) > 3)
    found = search(sampler_for(game, rules), state.observation(seat), state.legal_actions(seat), iterations=300,
                   seed=2)
    assert best(found).visits == max(e.visits for e in found)


@pytest.mark.no_cover  # traced, it would cost twice its time and cover nothing more (CONTRIBUTING.md)
def test_arena_play_runs_a_search_level_under_the_referee(capsys, tmp_path):
    results = tmp_path / "results.json"
    code = main(["play", "bura", "builtin:search-1", "builtin:greedy", "--games", "1", "--duplicate", "--seed", "5",
                 "--json", str(results)])
    capsys.readouterr()
    assert code == 0
    data = json.loads(results.read_text())
    assert len(data["matches"]) == 2
    assert {seat["verdict"] for match in data["matches"] for seat in match["seats"]} == {"ok"}
    assert {row["bot"] for row in data["summary"]} == {"builtin:search-1", "builtin:greedy"}


HASH_SEED_PLAY = """
import hashlib, json, sys
from arena.bots import make_bot
from arena.games import new_match, resolve
game, rules = resolve(sys.argv[1])
digest = hashlib.sha256()
state = new_match(rules, 9000)
bots = [make_bot(game, sys.argv[2], seat, rules, 31 + seat) for seat in range(state.num_seats)]
for _ in range(int(sys.argv[3])):
    if state.is_over():
        break
    seat = state.to_move()
    action = bots[seat].act(state.observation(seat), state.legal_actions(seat))
    digest.update(json.dumps(action, sort_keys=True).encode())
    state.apply(seat, action)
print(digest.hexdigest())
"""


@pytest.mark.parametrize(("preset", "decisions"), [("bura", 120), ("kozel-3p", 120), ("burraco-2p", 150)])
def test_a_search_bot_plays_the_same_whatever_the_hash_seed(preset, decisions):
    """The samplers never iterate a set of cards: processes with different hash seeds (a worker, `arena play`,
    a reproduce command) must choose alike. (Budgets only scale the same code: search-1 stands for them all.)"""
    def digest(hash_seed: str) -> str:
        done = subprocess.run([sys.executable, "-c", HASH_SEED_PLAY, preset, "search-1", str(decisions)],
                              capture_output=True, text=True, check=True, timeout=300,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed})
        return done.stdout.strip()

    assert digest("1") == digest("2")
