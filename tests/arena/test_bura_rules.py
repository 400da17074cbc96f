"""Bura family: options and presets, card order, set-beats-set, combinations (RULES.md §1)."""

import dataclasses

import pytest

import arena.games.bura as bura
from arena.games import all_presets, resolve
from arena.games.base import RuleOptionError
from arena.games.bura import PRESETS, Rules
from arena.games.bura.combos import best_of_hand, winning_combination
from arena.games.bura.ranking import beats, pairing, points, set_beats, sort_cards
from arena.games.options import describe, with_options


def test_it_registers_the_five_presets():
    assert list(PRESETS) == ["bura", "bura-3p", "burkozel", "burkozel-pairs", "echki-6"]
    assert {name for name, (game, _) in all_presets().items() if game == "bura"} == set(PRESETS)
    assert bura.GAME == "bura"


def test_presets_follow_the_table():
    b, b3, bk, pairs, echki = (PRESETS[p] for p in PRESETS)
    assert (b.players, b.deck, b.hand, b.goal, b.discard, b.match) == (2, 36, 3, "claim", "closed", "penalty:12")
    assert (b3.players, b3.hand, b3.goal) == (3, 3, "claim")
    assert (bk.players, bk.hand, bk.goal, bk.discard, bk.combinations) == (2, 4, "points", "shown_to_taker",
                                                                            "burkozel")
    assert (pairs.players, pairs.teams, pairs.hand) == (4, True, 4)
    assert (echki.deck, echki.hand, echki.goal) == (32, 6, "points")


def test_every_option_names_its_source_document():
    rows = describe(PRESETS["bura"])
    names = {row["name"] for row in rows}
    assert {"players", "deck", "hand", "trump_card", "dealer", "discard", "false_claim", "unclaimed", "claim_61",
            "molodka", "moscow", "moscow_needs_trump_ace", "small_moscow", "initial_combo", "combo_win_penalty",
            "match", "teams"} <= names
    assert all(row["source"] for row in rows)


@pytest.mark.parametrize("overrides, named, allowed", [
    ({"players": 7}, "players", "from 2 to 6"),
    ({"deck": 40}, "deck", "36 | 32 | 24"),
    ({"discard": "peek"}, "discard", "closed | shown_to_taker | open"),
    ({"match": "penalty:twelve"}, "match", "rubber:N"),
    ({"combo_win_penalty": 5}, "combo_win_penalty", "2 | 4 | 6"),
    ({"moscow_needs_trump_ace": "maybe"}, "moscow_needs_trump_ace", "true or false"),
])
def test_it_rejects_bad_option_values_naming_the_option(overrides, named, allowed):
    with pytest.raises(RuleOptionError) as err:
        with_options(PRESETS["bura"], overrides)
    assert repr(named) in str(err.value) and allowed in str(err.value)


@pytest.mark.parametrize("preset, overrides, named", [
    ("bura", {"players": 6, "hand": 6}, "'hand'"),  # 37 cards needed
    ("echki-6", {"players": 6}, "'hand'"),  # 6*6+1 > 32
    ("bura", {"teams": "true"}, "'teams'"),
    ("bura-3p", {"teams": True}, "'teams'"),
    ("bura", {"claim_61": "on"}, "'claim_61'"),
    ("echki-6", {"small_moscow": "sixes"}, "'small_moscow'"),
])
def test_it_rejects_options_that_do_not_fit_together(preset, overrides, named):
    with pytest.raises(RuleOptionError, match=named):
        with_options(PRESETS[preset], overrides)


def test_it_parses_option_strings_and_match_forms():
    _, rules = resolve("burkozel", {"players": "3", "claim_61": "on", "match": "rubber:21"})
    assert (rules.players, rules.claim_61, rules.match_kind, rules.match_target) == (3, "on", "rubber", 21)
    assert rules.low_threshold == 21 and rules.claim_target == 61
    assert Rules(match="deals:10").match_kind == "deals"
    assert dataclasses.replace(PRESETS["burkozel-pairs"]).low_threshold == 31


def test_it_orders_ranks_with_the_ten_above_the_king():
    assert beats("TS", "KS", "H") and not beats("KS", "TS", "H")
    assert beats("AS", "TS", "H")
    assert beats("6H", "AS", "H")  # any trump beats a plain card
    assert not beats("AS", "6H", "H")  # a trump is beaten only by a higher trump
    assert beats("7H", "6H", "H")
    assert not beats("AD", "KS", "H")  # another plain suit never beats
    assert points(["AS", "TS", "KS", "QS", "JS", "9S", "8S", "7S", "6S"]) == 30
    assert sort_cards(["6C", "AS", "TH", "KS"]) == ["AS", "KS", "TH", "6C"]


def test_a_set_beats_only_through_a_real_pairing_not_a_sort():
    # Sorted high to low, 8D would meet AD and fail; pairing 6C (trump) with AD and 8D with 7D works.
    assert set_beats(["8D", "6C"], ["AD", "7D"], "C")
    assert sorted(pairing(["8D", "6C"], ["AD", "7D"], "C")) == [("6C", "AD"), ("8D", "7D")]
    assert not set_beats(["8D", "6S"], ["AD", "7D"], "C")
    assert not set_beats(["AD"], ["KD", "QD"], "C")
    # QD first takes 7C; AD can only be beaten by 7C, so the augmenting path moves QD over to KD.
    assert sorted(pairing(["7C", "KD"], ["QD", "AD"], "C")) == [("7C", "AD"), ("KD", "QD")]
    assert pairing(["TD", "AC", "9C"], ["KD", "QD", "8C"], "C") is not None
    assert pairing(["TD", "9C", "7C"], ["KD", "QD", "TC"], "C") is None


RULES_4 = PRESETS["burkozel"]


def test_burkozel_combinations_rank_bura_four_ends_molodka_moscow():
    hands = {
        0: ["AC", "AH", "AD", "7S"],  # Moscow: three aces with the trump ace
        1: ["KH", "QH", "JH", "9H"],  # Molodka
        2: ["TS", "TH", "TD", "TC"],  # Four ends
        3: ["KC", "QC", "JC", "9C"],  # Bura
    }
    names = {seat: best_of_hand(seat, hand, "C", RULES_4).name for seat, hand in hands.items()}
    assert names == {0: "moscow", 1: "molodka", 2: "four_ends", 3: "bura"}
    order = []
    seats = [0, 1, 2, 3]
    while seats:
        table = [hands[s] if s in seats else [] for s in range(4)]
        winner = winning_combination(table, "C", RULES_4, first=0)
        order.append(winner.name)
        seats.remove(winner.seat)
    assert order == ["bura", "four_ends", "molodka", "moscow"]


def test_burkozel_moscow_needs_the_trump_ace_by_default():
    assert best_of_hand(0, ["AS", "AH", "AD", "7S"], "C", RULES_4) is None
    loose = dataclasses.replace(RULES_4, moscow_needs_trump_ace=False)
    assert best_of_hand(0, ["AS", "AH", "AD", "7S"], "C", loose).name == "moscow"


def test_bura_combinations_rank_bura_moscow_small_moscow_molodka():
    rules = dataclasses.replace(PRESETS["bura"], small_moscow="sixes", players=4)
    hands = [["AS", "AH", "AD"], ["6S", "6H", "6C"], ["KH", "QH", "9H"], ["KC", "QC", "9C"]]
    assert [best_of_hand(s, h, "C", rules).name for s, h in enumerate(hands)] == \
        ["moscow", "small_moscow", "molodka", "bura"]
    assert winning_combination(hands, "C", rules, 0).name == "bura"
    assert winning_combination([*hands[:3], []], "C", rules, 0).name == "moscow"
    assert winning_combination([[], *hands[1:3], []], "C", rules, 0).name == "small_moscow"
    instant = dataclasses.replace(rules, moscow="instant_win")
    combo = winning_combination(hands, "C", instant, 0)
    assert (combo.name, combo.effect) == ("moscow", "instant_win")  # 000: Moscow wins even against a Bura


def test_small_moscow_needs_the_trump_one_and_can_use_tens():
    sixes = dataclasses.replace(PRESETS["bura"], small_moscow="sixes")
    assert best_of_hand(0, ["6S", "6H", "6D"], "C", sixes) is None
    tens = dataclasses.replace(PRESETS["bura"], small_moscow="tens")
    assert best_of_hand(0, ["TS", "TH", "TC"], "C", tens).name == "small_moscow"


def test_molodka_gives_nothing_in_turn_and_a_short_hand_holds_no_combination():
    in_turn = dataclasses.replace(PRESETS["bura"], molodka="in_turn")
    assert best_of_hand(0, ["KH", "QH", "9H"], "C", in_turn) is None
    assert winning_combination([["KC", "QC"], ["7H"]], "C", PRESETS["bura"], 0) is None


def test_equal_combinations_go_to_higher_cards_then_to_the_earlier_seat():
    rules = dataclasses.replace(PRESETS["bura"], players=3, combo_tie="higher_cards")
    hands = [["KH", "QH", "9H"], ["AS", "7S", "6S"], ["KD", "QD", "9D"]]
    assert winning_combination(hands, "C", rules, first=0).seat == 1  # the ace is the higher card
    hands[1] = ["8S", "7S", "6S"]
    assert winning_combination(hands, "C", rules, first=0).seat == 0  # K Q 9 twice: earlier from seat 0
    assert winning_combination(hands, "C", rules, first=2).seat == 2  # from seat 2, seat 2 is earlier
