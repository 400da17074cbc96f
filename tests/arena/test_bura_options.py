"""Bura family options added by issue 10 (RULES.md §1), one scenario per value: the position, the action,
the expected outcome. Also the changed preset defaults, combinations in larger hands and announcements
that show only the combination's cards."""

import dataclasses

import pytest

from arena.games.base import HIDDEN, IllegalAction
from arena.games.bura import PRESETS, BuraMatch
from arena.games.bura.combos import best_of_hand, resolve_combinations, winning_combination
from arena.games.bura.scoring import points_table
from arena.games.options import describe, with_options


def position(preset="bura", overrides=None, **kwargs):
    return BuraMatch.from_position(with_options(PRESETS[preset], overrides or {}), **kwargs)


def lead(state, seat, *cards):
    state.apply(seat, {"type": "lead", "cards": list(cards)})


def respond(state, seat, *cards, down=False):
    state.apply(seat, {"type": "respond", "cards": list(cards), "face_down": down})


def events(state, kind, seat=None):
    return [e for e in state.events(seat) if e["type"] == kind]


def last(state, kind, seat=None):
    return events(state, kind, seat)[-1]


# ------------------------------------------------------------------ presets and the option listing

def test_the_changed_preset_defaults():
    rows = {name: (r.dealer, r.trump_card, r.combo_tie) for name, r in PRESETS.items()}
    assert rows == {
        "bura": ("winner", "bottom", "turn_order"),
        "bura-3p": ("winner", "bottom", "turn_order"),
        "burkozel": ("rotate_left", "returned", "higher_cards"),
        "burkozel-pairs": ("rotate_left", "returned", "higher_cards"),
        "echki-6": ("winner", "bottom", "higher_cards"),
    }
    new = {"false_claim_deals": "winner", "next_lead": "taker", "draw_first": "taker", "mixed_sets": "off",
           "unclaimed": "void", "bura_tie": "higher_cards", "out_of_turn_lead": "any", "exactly_31": 4,
           "no_trick_penalty": 6}
    for rules in PRESETS.values():
        assert {k: getattr(rules, k) for k in new} == new


def test_every_new_option_lists_its_allowed_values():
    allowed = {row["name"]: row["allowed"] for row in describe(PRESETS["bura"])}
    assert allowed["dealer"] == "winner | rotate_left | loser"
    assert allowed["false_claim_deals"] == "winner | claimer"
    assert allowed["next_lead"] == "taker | rotate"
    assert allowed["draw_first"] == "taker | leader"
    assert allowed["mixed_sets"] == "off | on"
    assert allowed["unclaimed"] == "void | most_points | double_next"
    assert allowed["combo_tie"] == "higher_cards | turn_order"
    assert allowed["bura_tie"] == "higher_cards | playoff | void"
    assert allowed["out_of_turn_lead"] == "any | whole_hand"
    assert allowed["exactly_31"] == "4 | 2"
    assert allowed["no_trick_penalty"] == "6 | 8"


def test_mixed_sets_needs_face_down_cards():
    with pytest.raises(ValueError, match="mixed_sets"):
        with_options(PRESETS["bura"], {"discard": "open", "mixed_sets": "on"})


# ------------------------------------------------------------------ who deals next

def claim_deal(overrides, piles, dealer=0):
    """Seat 0 (dealer ``dealer``) takes 6D with its ace and claims with ``piles`` already taken."""
    state = position(overrides=overrides, hands=[["AS", "9H"], ["6D", "7C"]], trump_card="6C", piles=piles,
                     leader=0, dealer=dealer, seed=5)
    lead(state, 0, "AS")
    respond(state, 1, "6D")
    state.apply(0, {"type": "claim"})
    return state


@pytest.mark.parametrize("dealer, after_claim, after_void", [
    ("winner", 0, 0), ("loser", 1, 0), ("rotate_left", 1, 1)])
def test_the_dealer_option_after_a_won_deal_and_after_a_void_one(dealer, after_claim, after_void):
    overrides = {"dealer": dealer, "initial_combo": "counts"}
    won = claim_deal(overrides, [["AH", "TH"], []])
    assert won.outcome()["deals"][0]["reason"] == "claim" and won.outcome()["deals"][0]["winners"] == [0]
    assert won.observation(0)["dealer"] == after_claim
    void = position(overrides=overrides, hands=[["7H"], ["6D"]], trump_card="6S", piles=[["AS", "TS", "KS"], []],
                    leader=0, dealer=0, seed=5)
    lead(void, 0, "7H")
    respond(void, 1, "6D")
    void.apply(0, {"type": "pass"})
    assert void.outcome()["deals"][0]["reason"] == "void"
    assert void.observation(0)["dealer"] == after_void  # rotate_left passes the deal after a void deal too


@pytest.mark.parametrize("option, next_dealer", [("winner", 1), ("claimer", 0)])
def test_false_claim_deals(option, next_dealer):
    state = claim_deal({"false_claim_deals": option, "initial_combo": "counts"}, [[], []])
    deal = state.outcome()["deals"][0]
    assert (deal["reason"], deal["winners"]) == ("false-claim", [1])
    assert state.observation(0)["dealer"] == next_dealer


def test_a_redeal_keeps_its_dealer_even_when_the_deal_rotates():
    hands = [["KH", "QH", "9H"], ["7D", "8S", "9C"]]
    state = position(overrides={"dealer": "rotate_left"}, hands=hands, stock=["JD", "QD", "6S"], trump_card="6S",
                     dealer=1, fresh_deal=True, seed=11)
    assert state.outcome()["deals"][0]["reason"] == "redeal" and state.observation(0)["dealer"] == 1


# ------------------------------------------------------------------ leading and drawing

def three_player_trick(overrides, stock=()):
    """Seat 0 leads 9H, seat 1 plays 7D (no beat), seat 2 takes with KH; seat 2 passes the claim."""
    state = position("bura-3p", overrides, hands=[["9H", "7S"], ["7D", "8C"], ["KH", "6C"]], trump_card="6S",
                     stock=list(stock), leader=0)
    lead(state, 0, "9H")
    respond(state, 1, "7D")
    respond(state, 2, "KH")
    state.apply(2, {"type": "pass"})
    return state


@pytest.mark.parametrize("option, leader", [("taker", 2), ("rotate", 1)])
def test_next_lead(option, leader):
    state = three_player_trick({"next_lead": option})
    assert last(state, "trick")["taker"] == 2
    assert state.to_move() == leader and state.observation(leader)["decision"] == "lead"


@pytest.mark.parametrize("option, order", [("taker", [2, 0, 1]), ("leader", [0, 1, 2])])
def test_draw_first(option, order):
    state = three_player_trick({"draw_first": option}, stock=["QD", "JD", "6S"])
    assert [d["seat"] for d in last(state, "draw")["draws"]] == order


# ------------------------------------------------------------------ sets partly face down

def mixed_position(option):
    state = position(overrides={"mixed_sets": option}, hands=[["AH", "KH", "9D"], ["7S", "6C", "8D"]],
                     trump_card="6S", leader=0)
    lead(state, 0, "AH", "KH")
    return state


def test_mixed_sets_on_a_set_partly_face_down_never_beats_and_hides_only_its_face_down_cards():
    state = mixed_position("on")
    mixed = {"type": "respond", "cards": ["7S", "6C"], "face_down": ["6C"]}
    assert mixed in state.legal_actions(1)
    state.apply(1, mixed)
    play = last(state, "play")
    assert play["beats"] is False and play["cards"] == ["7S", "6C"] and play["face_down"] == ["6C"]
    seen = last(state, "play", seat=0)
    assert seen["cards"] == ["7S", HIDDEN] and seen["face_down"] == [HIDDEN]
    trick = last(state, "trick", seat=0)
    assert trick["taker"] == 0 and trick["face_up"] == ["7S", "AH", "KH"]
    assert trick["face_down"] == [{"seat": 1, "cards": [HIDDEN]}]
    assert state.observation(0)["piles"][0]["face_down_known"] == []  # discard=closed: only seat 1 knows
    assert state.observation(1)["piles"][0]["face_down_known"] == ["6C"]


def test_a_set_all_face_up_as_an_empty_list_beats_as_usual():
    state = mixed_position("on")
    state.apply(1, {"type": "respond", "cards": ["7S", "6C"], "face_down": []})
    assert last(state, "play")["beats"] is False  # 6C cannot beat a heart; 7S alone is not enough
    state = position(overrides={"mixed_sets": "on"}, hands=[["9H"], ["7S"]], trump_card="6S", leader=0)
    lead(state, 0, "9H")
    state.apply(1, {"type": "respond", "cards": ["7S"], "face_down": []})
    assert last(state, "trick")["taker"] == 1


def test_mixed_sets_off_refuses_a_partly_face_down_set():
    state = mixed_position("off")
    assert all(isinstance(a["face_down"], bool) for a in state.legal_actions(1))
    with pytest.raises(IllegalAction) as err:
        state.apply(1, {"type": "respond", "cards": ["7S", "6C"], "face_down": ["6C"]})
    assert err.value.rule == "bad-action"


# ------------------------------------------------------------------ unclaimed deals, the points table

def unclaimed(overrides, multiplier=1):
    state = position(overrides=overrides, hands=[["7H"], ["6D"]], trump_card="6S", piles=[["AS", "TS", "KS"], []],
                     dealer=1, multiplier=multiplier, seed=5)
    lead(state, 0, "7H")
    respond(state, 1, "6D")
    state.apply(0, {"type": "pass"})
    return state


@pytest.mark.parametrize("option, reason, penalties, multiplier", [
    ("void", "void", [0, 0], 1), ("most_points", "played-out", [0, 2], 1), ("double_next", "void", [0, 0], 2)])
def test_unclaimed(option, reason, penalties, multiplier):
    state = unclaimed({"unclaimed": option, "initial_combo": "counts"})
    deal = state.outcome()["deals"][0]
    assert (deal["reason"], deal["penalties"], deal["doubles_next"]) == (reason, penalties, option == "double_next")
    assert state.observation(0)["multiplier"] == multiplier


def test_double_next_stacks():
    state = unclaimed({"unclaimed": "double_next", "initial_combo": "counts"}, multiplier=2)
    assert state.observation(0)["multiplier"] == 4


@pytest.mark.parametrize("option, players, points, penalty", [
    (4, 2, 31, 4), (2, 2, 31, 2), (2, 2, 30, 4), (2, 2, 32, 2), (4, 3, 21, 4), (2, 3, 21, 2), (2, 3, 22, 2)])
def test_exactly_31(option, players, points, penalty):
    rules = with_options(PRESETS["burkozel"], {"players": players, "exactly_31": option})
    assert points_table(points, rules) == penalty


def burkozel_last_trick(overrides, pile_1, tricks):
    """Seat 0 leads 7S and takes the last trick (nothing beats it); seat 1 has ``pile_1``."""
    rules = with_options(PRESETS["burkozel"], overrides)
    rest = [c for c in rules.deck_cards if c not in ("7S", "8D", "6H", *pile_1)]
    state = BuraMatch.from_position(rules, hands=[["7S"], ["8D"]], trump_card="6H", piles=[rest, list(pile_1)],
                                    tricks=tricks, leader=0)
    lead(state, 0, "7S")
    respond(state, 1, "8D")
    return state.outcome()["deals"][0]


@pytest.mark.parametrize("option, pile_1, tricks, penalty", [
    (6, [], [5, 0], 6), (8, [], [5, 0], 8), (8, ["9C", "9S"], [4, 1], 6), (6, ["9C", "9S"], [4, 1], 6)])
def test_no_trick_penalty(option, pile_1, tricks, penalty):
    deal = burkozel_last_trick({"no_trick_penalty": option}, pile_1, tricks)
    assert deal["trick_points"][1] == 0 and deal["penalties"] == [0, penalty]


# ------------------------------------------------------------------ combinations

def test_combo_tie_turn_order_ignores_the_cards():
    rules = dataclasses.replace(PRESETS["bura"], players=3)
    assert rules.combo_tie == "turn_order"
    hands = [["KH", "QH", "9H"], ["AS", "7S", "6S"], ["KD", "QD", "9D"]]
    assert winning_combination(hands, "C", rules, first=0).seat == 0  # the ace does not matter
    assert winning_combination(hands, "C", rules, first=1).seat == 1
    higher = dataclasses.replace(rules, combo_tie="higher_cards")
    assert winning_combination(hands, "C", higher, first=0).seat == 1


TWO_BURAS = [["KS", "QS", "9S"], ["AS", "JS", "8S"]]  # trump spades; seat 1 holds the ace


@pytest.mark.parametrize("option, first, winner", [
    ("higher_cards", 0, 1), ("higher_cards", 1, 1),
    ("playoff", 0, 0),  # seat 0 leads K Q 9; A J 8 cannot cover the queen and the king both
    ("playoff", 1, 1),  # seat 1 leads A J 8; nothing beats the ace
])
def test_bura_tie_between_two_instant_wins(option, first, winner):
    rules = dataclasses.replace(PRESETS["bura"], bura_tie=option)
    found = resolve_combinations(TWO_BURAS, "S", rules, first)
    assert found.combo.seat == winner and not found.void
    if option == "playoff":
        assert [seat for seat, _ in found.playoff] == [first, 1 - first]


def test_bura_tie_void_and_different_kinds_still_go_by_precedence():
    rules = dataclasses.replace(PRESETS["bura"], bura_tie="void")
    found = resolve_combinations(TWO_BURAS, "S", rules, 0)
    assert found.void and found.combo is None and [c.seat for c in found.tied] == [0, 1]
    instant = dataclasses.replace(rules, moscow="instant_win")
    hands = [["KS", "QS", "9S"], ["AD", "AH", "AC"]]
    assert resolve_combinations(hands, "S", instant, 0).combo.name == "moscow"  # three aces > Bura


def initial_two_buras(option):
    return position(overrides={"bura_tie": option, "initial_combo": "counts"}, hands=[list(h) for h in TWO_BURAS],
                    stock=["7D", "6S"], trump_card="6S", dealer=1, fresh_deal=True, seed=3)


def test_a_bura_tie_void_deal_scores_nothing_and_announces_both():
    state = initial_two_buras("void")
    deal = state.outcome()["deals"][0]
    assert (deal["reason"], deal["penalties"], deal["winners"]) == ("void", [0, 0], [])
    announced = events(state, "combination")[:2]
    assert [(c["seat"], c["effect"]) for c in announced] == [(0, "void"), (1, "void")]
    assert state.observation(0)["dealer"] == 1  # dealer=winner keeps the dealer of a void deal


def test_a_bura_tie_playoff_is_shown_and_decides_the_deal():
    state = initial_two_buras("playoff")
    combo = events(state, "combination")[0]
    assert combo["seat"] == 0 and combo["effect"] == "instant_win"
    assert combo["playoff"] == [{"seat": 0, "cards": ["KS", "QS", "9S"]}, {"seat": 1, "cards": ["AS", "JS", "8S"]}]
    assert state.outcome()["deals"][0]["winners"] == [0]


def molodka_after_draw(overrides, stock):
    """Seat 0 takes a one-card trick, passes, and both draw (taker first) from ``stock`` (trump spades)."""
    state = position(overrides=overrides, hands=[["7H"], ["6D"]], stock=stock, trump_card="6S", dealer=1)
    lead(state, 0, "7H")
    respond(state, 1, "6D")
    state.apply(0, {"type": "pass"})
    return state


SEAT_1_MOLODKA = ["8C", "KH", "9D", "QH", "JC", "9H", "6S"]  # seat 1 draws KH QH 9H


def test_out_of_turn_lead_whole_hand_binds_the_moved_lead_to_the_combination():
    state = molodka_after_draw({"out_of_turn_lead": "whole_hand"}, SEAT_1_MOLODKA)
    assert state.to_move() == 1
    assert state.legal_actions(1) == [{"type": "lead", "cards": ["KH", "QH", "9H"]}]
    assert state.observation(1)["forced_lead"] == ["KH", "QH", "9H"]
    with pytest.raises(IllegalAction) as err:
        lead(state, 1, "KH")
    assert err.value.rule == "lead-combination"
    lead(state, 1, "9H", "KH", "QH")
    assert state.observation(0)["trick"]["size"] == 3


def test_out_of_turn_lead_any_leaves_the_lead_free():
    state = molodka_after_draw({"out_of_turn_lead": "any"}, SEAT_1_MOLODKA)
    assert state.to_move() == 1 and len(state.legal_actions(1)) > 1
    assert state.observation(1)["forced_lead"] is None


def test_whole_hand_does_not_bind_a_holder_whose_turn_it_was():
    state = molodka_after_draw({"out_of_turn_lead": "whole_hand"}, ["KH", "8C", "QH", "9D", "9H", "JC", "6S"])
    assert last(state, "combination")["seat"] == 0 and state.to_move() == 0
    assert len(state.legal_actions(0)) > 1 and state.observation(0)["forced_lead"] is None


def test_whole_hand_does_not_bind_when_another_player_holds_fewer_cards():
    rules = {"out_of_turn_lead": "whole_hand", "draw_first": "leader"}
    state = position(overrides=rules, hands=[["7H", "9C"], ["8H", "6D"]], stock=["KC", "9D", "QC"],
                     trump_card="6S", leader=0)
    lead(state, 0, "7H")
    respond(state, 1, "8H")  # seat 1 takes; the leader draws first and the stock runs out
    state.apply(1, {"type": "pass"})
    assert last(state, "combination")["name"] == "molodka" and state.to_move() == 0
    assert state.observation(0)["hand_sizes"] == [3, 2]
    assert state.observation(0)["forced_lead"] is None
    assert {"type": "lead", "cards": ["9C"]} in state.legal_actions(0)


def test_combinations_in_a_six_card_hand_are_any_four_of_its_cards():
    echki = PRESETS["echki-6"]
    found = best_of_hand(0, ["AC", "TC", "KC", "QC", "7C", "8D"], "C", echki)
    assert (found.name, found.cards) == ("bura", ("AC", "TC", "KC", "QC"))  # the highest four trumps
    found = best_of_hand(0, ["AH", "KH", "QH", "9H", "8H", "7D"], "C", echki)
    assert (found.name, found.cards) == ("molodka", ("AH", "KH", "QH", "9H"))
    found = best_of_hand(0, ["AH", "AD", "AC", "KS", "QS", "7D"], "C", echki)
    assert (found.name, found.cards) == ("moscow", ("AH", "AD", "AC"))
    found = best_of_hand(0, ["AH", "AD", "AC", "AS", "QS", "7D"], "C", echki)
    assert (found.name, found.cards) == ("four_ends", ("AS", "AH", "AD", "AC"))
    assert best_of_hand(0, ["AH", "KH", "QH", "7C", "8D", "9S"], "C", echki) is None  # three hearts: not four


def test_a_bura_table_combination_in_a_four_card_hand_is_any_three_cards():
    rules = dataclasses.replace(PRESETS["bura"], hand=4)
    assert best_of_hand(0, ["KC", "QC", "9C", "7H"], "C", rules).cards == ("KC", "QC", "9C")
    assert best_of_hand(0, ["AS", "AH", "AD", "AC"], "C", rules).cards == ("AS", "AH", "AC")  # trump, then S H D C
    small = dataclasses.replace(rules, hand=3, combinations="burkozel")
    assert best_of_hand(0, ["KC", "QC", "9C"], "C", small) is None  # smaller than the Burkozel size


def test_an_announced_combination_shows_only_its_own_cards():
    state = position("burkozel", hands=[["7H", "8C", "TC", "JC"], ["6D", "AS", "AH", "9C"]], stock=["8H", "AD"],
                     trump_card="6S", leader=0)
    lead(state, 0, "7H")
    respond(state, 1, "6D")  # seat 0 takes; seat 0 draws 8H, seat 1 draws AD: AS AH AD 9C
    combo = last(state, "combination", seat=0)
    assert (combo["seat"], combo["name"], combo["cards"]) == (1, "moscow", ["AS", "AH", "AD"])
    assert state.observation(0)["combinations"][0]["cards"] == ["AS", "AH", "AD"]
    for seen in (state.observation(0), state.events(0)):
        assert "9C" not in str(seen)  # the holder's fourth card stays hidden
