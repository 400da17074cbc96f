"""Kozel's built-in bots: always legal, reproducible, and the greedy one plays sensibly and beats random."""

from __future__ import annotations

import pytest

from arena.bots.kozel import BOTS, GreedyBot, RandomBot
from arena.cards import derive_seed
from arena.games.kozel import PRESETS, KozelState, Rules, new_match
from arena.games.kozel.cards import TABLES

FOUR = Rules()
THREE = Rules(players=3)
DECK = TABLES["no-sevens"].deck


def play(rules: Rules, seed: int, names: list[str]) -> KozelState:
    state = new_match(rules, seed)
    bots = [BOTS[name](seat, rules, derive_seed(seed, seat)) for seat, name in enumerate(names)]
    while not state.is_over():
        seat = state.to_move()
        state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))
    return state


@pytest.mark.parametrize("rules", [FOUR, THREE, Rules(players=3, deck="no-sixes")])
def test_both_bots_finish_matches_with_legal_actions_only_and_reproducibly(rules):
    names = (["greedy", "random"] * 2)[:rules.players]
    first = play(rules, 3, names)
    assert first.outcome()["finished"]
    assert play(rules, 3, names).events(None) == first.events(None)


def test_greedy_teams_beat_random_teams():
    wins = 0
    matches = 40
    for seed in range(matches):
        greedy_team = seed % 2
        names = ["greedy" if seat % 2 == greedy_team else "random" for seat in range(4)]
        wins += play(FOUR, seed, names).outcome()["ranks"][greedy_team] == 1
    assert wins >= 30  # about 86% over 500 matches; see docs/rules/kozel.md


def test_a_greedy_seat_beats_two_random_seats():
    firsts = 0
    matches = 30
    for seed in range(matches):
        greedy_seat = seed % 3
        names = ["greedy" if seat == greedy_seat else "random" for seat in range(3)]
        firsts += play(THREE, seed, names).outcome()["ranks"][greedy_seat] == 1
    assert firsts >= 21


def rest(*used) -> list[str]:
    taken = {c for group in used for c in group}
    return [c for c in DECK if c not in taken]


def rules_deck(rules):
    return TABLES[rules.deck].deck


def greedy_choice(state: KozelState) -> str:
    seat = state.to_move()
    action = GreedyBot(seat, state.rules, 0).act(state.observation(seat), state.legal_actions(seat))
    return action.get("card", action.get("cards"))


def two_card_position(hands, plays):
    """Four seats with two cards each; seat 1 leads and ``plays`` are made first."""
    state = KozelState.from_position(FOUR, hands, won=[rest(*hands), [], [], []])
    for card in plays:
        state.apply(state.to_move(), {"type": "play", "card": card})
    return state


def test_greedy_gives_points_to_a_partner_whose_card_must_hold():
    # seat 1 leads 9S, seat 2 (seat 0's partner) takes it with AS, seat 3 follows; seat 0 plays last
    state = two_card_position([["TH", "6H"], ["9S", "8C"], ["AS", "9C"], ["6S", "8H"]], ["9S", "AS", "6S"])
    assert greedy_choice(state) == "TH"


def test_greedy_throws_its_cheapest_card_when_the_opponents_hold_the_trick():
    state = two_card_position([["TH", "6H"], ["AS", "8C"], ["9S", "9C"], ["6S", "8H"]], ["AS", "9S", "6S"])
    assert greedy_choice(state) == "6H"


def test_greedy_takes_a_trick_last_with_its_cheapest_winning_card():
    state = two_card_position([["AD", "QC"], ["TS", "8C"], ["9S", "9C"], ["6S", "8H"]], ["TS", "9S", "6S"])
    assert greedy_choice(state) == "AD"  # the lowest trump that wins, and it brings 11 points


def test_greedy_keeps_a_queen_for_a_trick_worth_it():
    state = two_card_position([["QC", "8H"], ["9S", "8C"], ["8S", "9C"], ["6S", "6H"]], ["9S", "8S", "6S"])
    assert greedy_choice(state) == "8H"


def test_greedy_follows_with_the_plain_card_that_takes_the_trick():
    state = two_card_position([["AS", "KS"], ["TS", "8C"], ["9S", "9C"], ["6S", "8H"]], ["TS", "9S", "6S"])
    assert greedy_choice(state) == "AS"


def test_greedy_leads_trumps_from_strength_and_otherwise_a_boss_card_or_a_low_one():
    strong = [["9C", "9H", "8H"], ["6C", "QC", "QS"], ["AS", "8C", "6H"], ["TS", "KS", "6S"]]
    state = KozelState.from_position(FOUR, strong, won=[rest(*strong), [], [], []])
    assert greedy_choice(state) == "6C"
    boss = [["9C", "9H", "8H"], ["AS", "QC", "6H"], ["6C", "8C", "KH"], ["TS", "KS", "6S"]]
    state = KozelState.from_position(FOUR, boss, won=[rest(*boss), [], [], []])
    assert greedy_choice(state) == "AS"
    low = [["9C", "9H", "8H"], ["TS", "QC", "6H"], ["6C", "8C", "KH"], ["AS", "KS", "6S"]]
    state = KozelState.from_position(FOUR, low, won=[rest(*low), [], [], []])
    assert greedy_choice(state) == "6H"


def test_greedy_discards_the_plain_tens_and_kings_it_could_lose():
    hands = [
        ["AS", "TS", "KS", "QS", "JS", "TC", "9H", "9C", "8S", "8H"],
        ["KD", "QD", "JD", "9S", "6D", "KC", "QC", "JC", "9D", "6C"],
        ["AH", "TH", "KH", "QH", "JH", "TD", "8D", "8C", "6S", "6H"],
    ]
    state = KozelState.from_position(THREE, hands, widow=["AC", "AD"], dealer=0)
    assert state.to_move() == 2
    state.apply(2, {"type": "widow", "take": True})
    assert greedy_choice(state) == ["TH", "KH"]


def greedy_action(state: KozelState) -> dict:
    seat = state.to_move()
    return GreedyBot(seat, state.rules, 0).act(state.observation(seat), state.legal_actions(seat))


def test_greedy_takes_the_widow_with_a_strong_hand_and_declines_it_with_a_weak_one():
    rules = PRESETS["kozel-3p"]
    strong = ["QC", "QS", "JC", "JH", "AD", "TD", "9D", "8C", "7H", "KH"]  # seven trumps, 35 points
    weak = ["AS", "TS", "KS", "AC", "TC", "9H", "8H", "7S", "7C", "KC"]  # no trump, 50 points
    bot = GreedyBot(0, rules, 0)
    assert bot._takes_widow(strong) and not bot._takes_widow(weak)
    rest3 = [c for c in rules_deck(rules) if c not in strong + weak]
    state = KozelState.from_position(rules, [weak, strong, rest3[:10]], widow=rest3[10:], dealer=2)
    assert state.to_move() == 0 and greedy_action(state) == {"type": "widow", "take": False}
    state.apply(0, greedy_action(state))
    assert state.observation(0)["contract"] == "misere"


def test_greedy_ducks_in_a_misere():
    rules = PRESETS["kozel-3p"]
    hands = [["AS", "7S"], ["TS", "8S"], ["KS", "9S"]]
    used = {c for h in hands for c in h}
    rest3 = [c for c in rules_deck(rules) if c not in used]
    state = KozelState.from_position(rules, hands, widow=rest3[:2], misere=True, dealer=2,
                                     won=[rest3[2:], [], []])
    state.apply(0, {"type": "play", "card": "AS"})
    assert greedy_action(state) == {"type": "play", "card": "TS"}  # loses under the ace and sheds ten points


def test_the_random_bot_picks_among_the_listed_actions_from_its_own_seed():
    state = new_match(FOUR, 8)
    seat = state.to_move()
    legal = state.legal_actions(seat)
    picks = {RandomBot(seat, FOUR, s).act(state.observation(seat), legal)["card"] for s in range(30)}
    assert picks <= {a["card"] for a in legal} and len(picks) > 1
    assert RandomBot(seat, FOUR, 4).act({}, legal) == RandomBot(seat, FOUR, 4).act({}, legal)
