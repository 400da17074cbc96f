"""Built-in Bura bots: random stays legal and seeded; greedy claims only when sure and beats random."""

import pytest

from arena.bots import bots_for, make_bot
from arena.bots.bura import GreedyBot, RandomBot
from arena.games.bura import PRESETS, BuraMatch, new_match
from arena.games.options import with_options


def play(rules, seed, names):
    state = new_match(rules, seed)
    bots = [make_bot("bura", name, seat, rules, seed + seat) for seat, name in enumerate(names)]
    while not state.is_over():
        seat = state.to_move()
        action = bots[seat].act(state.observation(seat), state.legal_actions(seat))
        assert action in state.legal_actions(seat)
        state.apply(seat, action)
    return state


def test_the_registry_offers_random_and_greedy():
    assert {"random", "greedy"} <= set(bots_for("bura"))


def test_random_is_reproducible_from_its_seed():
    rules = PRESETS["bura"]
    first = play(rules, 5, ["random", "random"]).events(None)
    assert play(rules, 5, ["random", "random"]).events(None) == first


@pytest.mark.parametrize("preset", list(PRESETS))
def test_greedy_beats_random_well_above_half(preset):
    rules = PRESETS[preset]
    wins = pairs = 0.0
    for i in range(16):
        names = ["greedy" if (seat + i) % 2 == 0 else "random" for seat in range(rules.players)]
        ranks = play(rules, 100 + i, names).outcome()["ranks"]
        for g in range(rules.players):
            for r in range(rules.players):
                if names[g] == "greedy" and names[r] == "random":
                    pairs += 1
                    wins += 1 if ranks[g] < ranks[r] else 0.5 if ranks[g] == ranks[r] else 0
    assert wins / pairs > 0.7


@pytest.mark.parametrize("preset", ["bura", "bura-3p"])
def test_greedy_never_makes_a_false_claim(preset):
    rules = PRESETS[preset]
    for seed in range(12):
        names = ["greedy"] * rules.players
        deals = play(rules, seed, names).outcome()["deals"]
        assert all(d["reason"] != "false-claim" for d in deals)
        assert any(d["reason"] == "claim" for d in deals)


def test_greedy_counts_unknown_face_down_cards_as_nothing_in_closed_mode():
    rules = PRESETS["bura"]
    state = BuraMatch.from_position(rules, hands=[["7D"], ["9D"]], trump_card="6C",
                                    piles=[["AS", "TS"], []], face_down=[[("AH", 1)], []], claim_by=0)
    bot = GreedyBot(0, rules, 1)
    assert bot.act(state.observation(0), state.legal_actions(0)) == {"type": "pass"}  # 21 known, 32 real
    shown = with_options(rules, {"discard": "shown_to_taker"})
    state = BuraMatch.from_position(shown, hands=[["7D"], ["9D"]], trump_card="6C",
                                    piles=[["AS", "TS"], []], face_down=[[("AH", 1)], []], claim_by=0)
    assert GreedyBot(0, shown, 1).act(state.observation(0), state.legal_actions(0)) == {"type": "claim"}


def test_greedy_takes_points_cheaply_and_otherwise_throws_its_cheapest_cards_face_down():
    rules = PRESETS["burkozel"]
    state = BuraMatch.from_position(rules, hands=[["TS", "7D"], ["AS", "6H", "8C", "9C"]], trump_card="7H",
                                    stock=["7C", "7H"])
    state.apply(0, {"type": "lead", "cards": ["TS"]})
    bot = GreedyBot(1, rules, 1)
    assert bot.act(state.observation(1), state.legal_actions(1))["cards"] == ["AS"]  # not the trump
    state = BuraMatch.from_position(rules, hands=[["AS", "7D"], ["KS", "8C", "9C", "TD"]], trump_card="6H",
                                    stock=["7C", "6H"])
    state.apply(0, {"type": "lead", "cards": ["AS"]})
    assert bot.act(state.observation(1), state.legal_actions(1)) == \
        {"type": "respond", "cards": ["8C"], "face_down": True}


def test_greedy_leads_cheap_cards_and_gifts_points_to_a_partner_who_holds_the_trick():
    rules = PRESETS["burkozel-pairs"]
    state = BuraMatch.from_position(rules, hands=[["7S", "AD", "KC"], ["8S"], ["AS", "8D", "9H"], ["QS"]],
                                    trump_card="6C")
    bot = GreedyBot(0, rules, 1)
    assert bot.act(state.observation(0), state.legal_actions(0))["cards"] == ["7S"]
    state.apply(0, {"type": "lead", "cards": ["7S"]})
    state.apply(1, {"type": "respond", "cards": ["8S"], "face_down": False})
    state.apply(2, {"type": "respond", "cards": ["AS"], "face_down": False})
    rng_bot = RandomBot(3, rules, 4)
    assert rng_bot.act(state.observation(3), state.legal_actions(3)) in state.legal_actions(3)
    state = BuraMatch.from_position(rules, hands=[["7S"], ["9S"], ["8S"], ["AD", "TH", "KC"]], trump_card="6C")
    state.apply(0, {"type": "lead", "cards": ["7S"]})
    state.apply(1, {"type": "respond", "cards": ["9S"], "face_down": False})  # seat 3's partner holds the trick
    state.apply(2, {"type": "respond", "cards": ["8S"], "face_down": False})
    partner = GreedyBot(3, rules, 1)
    assert partner.act(state.observation(3), state.legal_actions(3)) == \
        {"type": "respond", "cards": ["AD"], "face_down": False}
