"""Burraco rules, one scenario each, from explicit positions (BurracoState.from_position)."""

from __future__ import annotations

import pytest

from arena.games.base import HIDDEN, IllegalAction
from arena.games.burraco import GAME, PRESETS, BurracoState, Rules, new_match
from arena.games.options import RuleOptionError, describe, with_options

R2 = PRESETS["burraco-2p"]
R4 = PRESETS["burraco"]
SPADES = ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"]
DIAMONDS = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]
STOCK = ["3C", "4C", "5C", "6C", "7C"]  # the first is drawn first


def position(rules: Rules = R2, *, hands, stock=STOCK, pile=("9C",), pozzetti=(SPADES, DIAMONDS), **kw):
    return BurracoState.from_position(rules, hands=hands, stock=list(stock), discard_pile=list(pile),
                                      pozzetti=list(pozzetti), **kw)


def refused(state: BurracoState, seat: int, action) -> str:
    before = (state.observation(seat), len(state.events(None)))
    with pytest.raises(IllegalAction) as err:
        state.apply(seat, action)
    assert (state.observation(seat), len(state.events(None))) == before, "a refused action changed the state"
    return err.value.rule


BURRACO = {"team": 0, "cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]}


# ------------------------------------------------------------------------------------------ setup

def test_it_declares_game_presets_and_options():
    assert GAME == "burraco"
    assert R4.players == 4 and R2.players == 2 and R4.target == 2000 and R4.stalemate_turns == 24
    assert with_options(R4, {"target": "2005"}).target == 2005
    assert {row["name"] for row in describe(R4)} == {"players", "target", "stalemate_turns", "duplicate_sets",
                                                     "stock_end"}
    assert (R4.duplicate_sets, R4.stock_end) == (R2.duplicate_sets, R2.stock_end) == ("allowed", "immediate")
    allowed = {row["name"]: row["allowed"] for row in describe(R4)}
    assert allowed["duplicate_sets"] == "allowed | forbidden" and allowed["stock_end"] == "immediate | finish_turn"
    assert all(row["source"] for row in describe(R4))
    with pytest.raises(RuleOptionError):
        Rules(players=3)
    with pytest.raises(RuleOptionError):
        with_options(R4, {"stalemate_turns": "0"})


@pytest.mark.parametrize(("rules", "stock"), [(R4, 41), (R2, 63)])
def test_the_deal_gives_eleven_each_two_pozzetti_one_face_up_card_and_the_stock(rules, stock):
    state = new_match(rules, 7)
    obs = state.observation(0)
    assert obs["hand_sizes"] == [11] * rules.players
    assert obs["stock"] == stock and len(obs["discard_pile"]) == 1
    assert [len(p) for p in state.pozzetti] == [11, 11]
    first = (obs["dealer"] + 1) % rules.players
    assert obs["to_move"] == first and state.observation(first)["decision"] == "draw"
    assert state.legal_actions(first) is None
    assert new_match(rules, 7).observation(1) == state.observation(1)


def test_partners_sit_opposite_and_each_2p_player_is_a_team():
    assert new_match(R4, 1).outcome()["teams"] == [[0, 2], [1, 3]]
    assert new_match(R2, 1).outcome()["teams"] == [[0], [1]]


def test_from_position_refuses_more_copies_than_the_deck_holds():
    with pytest.raises(ValueError, match="more often"):
        position(hands=[["AH", "AH", "AH"], ["KC"]])


# ------------------------------------------------------------------------------------------ turn shape

def test_a_turn_is_draw_then_melds_then_a_discard():
    state = position(hands=[["5H", "6H", "7H", "KC"], ["QC"]])
    assert refused(state, 1, {"type": "draw"}) == "not-your-turn"
    assert refused(state, 0, {"type": "discard", "card": "KC"}) == "draw-first"
    state.apply(0, {"type": "draw"})
    obs = state.observation(0)
    assert obs["decision"] == "play" and "3C" in obs["hand"]
    assert state.events(1)[-1] == {"type": "draw", "seat": 0, "card": HIDDEN, "stock": 4}
    assert state.events(0)[-1]["card"] == "3C"
    assert refused(state, 0, {"type": "draw"}) == "already-drew"
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})
    assert state.observation(1)["melds"][0]["cards"] == ["5H", "6H", "7H"]
    state.apply(0, {"type": "discard", "card": "KC"})
    assert state.observation(1)["decision"] == "draw" and state.observation(1)["discard_pile"] == ["9C", "KC"]


@pytest.mark.parametrize(("action", "rule"), [
    ("draw", "bad-action"),
    ({"type": "fly"}, "bad-action"),
    ({"type": "meld", "cards": "5H 6H 7H"}, "bad-action"),
    ({"type": "meld", "cards": []}, "bad-action"),
    ({"type": "meld", "cards": ["5H", "6H", "ZZ"]}, "bad-card"),
    ({"type": "meld", "cards": ["5H", "6H", "8H"]}, "not-in-hand"),
    ({"type": "meld", "cards": ["5H", "6H", "7H"], "wild_as": 7}, "bad-card"),
    ({"type": "add", "meld": 5, "cards": ["7H"]}, "unknown-meld"),
    ({"type": "add", "meld": True, "cards": ["7H"]}, "unknown-meld"),
    ({"type": "discard", "card": None}, "bad-card"),
    ({"type": "discard", "card": "AS"}, "not-in-hand"),
    ({"type": "discard", "card": "KC", "cards": {"nested": ["KC"]}}, "bad-action"),
    ({"type": "meld", "cards": ["5H", "6H", "7H"], "card": "KC"}, "bad-action"),
    ({"type": "meld", "cards": ["5H"] * 100_000}, "bad-action"),
])
def test_it_refuses_malformed_actions_without_changing_anything(action, rule):
    state = position(hands=[["5H", "6H", "7H", "KC"], ["QC"]], phase="play")
    assert refused(state, 0, action) == rule


def test_a_draw_with_unknown_keys_is_refused():
    state = position(hands=[["5H", "6H", "7H", "KC"], ["QC"]])
    assert refused(state, 0, {"type": "draw", "card": "3C"}) == "bad-action"
    assert refused(state, 0, {"type": "take_pile", "cards": ["9C"]}) == "bad-action"


def test_taking_the_pile_takes_all_of_it_publicly():
    state = position(hands=[["5H", "KC"], ["QC"]], pile=["9C", "8H", "4D"])
    state.apply(0, {"type": "take_pile"})
    assert sorted(state.observation(0)["hand"]) == sorted(["5H", "KC", "9C", "8H", "4D"])
    assert state.observation(1)["discard_pile"] == []
    assert state.events(1)[-1] == {"type": "take_pile", "seat": 0, "cards": ["9C", "8H", "4D"]}
    # a many-card pile has no locked card: its top may go straight back
    state.apply(0, {"type": "discard", "card": "4D"})


def test_the_pile_cannot_be_taken_when_empty():
    state = position(hands=[["5H", "KC"], ["QC"]], pile=[])
    assert refused(state, 0, {"type": "take_pile"}) == "empty-pile"


# ------------------------------------------------------------------------------------------ one-card pile

def test_a_card_taken_as_a_one_card_pile_may_not_be_discarded_that_turn():
    state = position(hands=[["5H", "KC"], ["QC"]], pile=["9H"])
    state.apply(0, {"type": "take_pile"})
    assert state.observation(0)["locked_card"] == "9H"
    assert state.observation(1)["locked_card"] is None
    assert refused(state, 0, {"type": "discard", "card": "9H"}) == "discard-taken-card"
    state.apply(0, {"type": "discard", "card": "KC"})
    assert state.observation(0)["discard_pile"] == ["KC"]


def test_holding_another_copy_of_the_taken_card_allows_discarding_that_copy():
    state = position(hands=[["9H", "KC"], ["QC"]], pile=["9H"])
    state.apply(0, {"type": "take_pile"})
    state.apply(0, {"type": "discard", "card": "9H"})
    assert state.observation(0)["hand"] == ["9H", "KC"]


def test_a_meld_that_leaves_only_the_taken_card_is_refused_and_melding_it_frees_the_lock():
    state = position(hands=[["5H", "6H", "7H"], ["QC"]], pile=["8H"])
    state.apply(0, {"type": "take_pile"})
    assert refused(state, 0, {"type": "meld", "cards": ["5H", "6H", "7H"]}) == "discard-taken-card"
    state.apply(0, {"type": "meld", "cards": ["6H", "7H", "8H"]})
    assert state.observation(0)["locked_card"] is None


# ------------------------------------------------------------------------------------------ melds on the table

def test_adding_to_the_opponents_meld_is_refused():
    state = position(hands=[["8H", "KC", "QC"], ["JC"]], phase="play",
                     melds=[{"team": 1, "cards": ["5H", "6H", "7H"]}])
    assert refused(state, 0, {"type": "add", "meld": 0, "cards": ["8H"]}) == "not-your-meld"


@pytest.mark.parametrize(("cards", "rule"), [
    (["5S", "X", "7S", "2C"], "meld-two-wilds"),
    (["KS", "AS", "2S", "3S"], "sequence-wraps"),
    (["X", "X", "2C"], "only-wilds"),
])
def test_illegal_melds_are_refused_naming_the_rule(cards, rule):
    state = position(hands=[[*cards, "KC", "QC"], ["JC"]], phase="play", pozzetti=[DIAMONDS, None])
    assert refused(state, 0, {"type": "meld", "cards": cards}) == rule


def test_a_set_of_ten_is_refused():
    cards = ["7H", "7H", "7S", "7S", "7D", "7D", "7C", "7C", "X", "2H"]
    state = position(hands=[[*cards, "KC"], ["JC"]], phase="play", stock=["3C", "4C", "5C"], pozzetti=[["KD"], ["QD"]])
    assert refused(state, 0, {"type": "meld", "cards": cards}) == "set-too-large"


def test_adding_the_natural_card_replaces_the_wild_which_moves_to_an_end():
    state = position(hands=[["6H", "KC", "QC"], ["JC"]], phase="play",
                     melds=[{"team": 0, "cards": ["5H", "X", "7H"]}])
    assert state.observation(1)["melds"][0]["wild"] == {"index": 1, "card": "X", "stands_for": "6H"}
    state.apply(0, {"type": "add", "meld": 0, "cards": ["6H"], "wild_as": "8H"})
    meld = state.observation(1)["melds"][0]
    assert meld["cards"] == ["5H", "6H", "7H", "X"] and meld["wild"]["stands_for"] == "8H"
    assert state.events(1)[-1]["type"] == "add" and state.events(1)[-1]["cards"] == ["6H"]


def test_a_natural_two_in_place_lets_a_meld_hold_a_second_wild():
    state = position(hands=[["AH", "2H", "3H", "X", "KC"], ["JC"]], phase="play")
    state.apply(0, {"type": "meld", "cards": ["AH", "2H", "3H", "X"]})
    meld = state.observation(0)["melds"][0]
    assert meld["cards"] == ["AH", "2H", "3H", "X"] and meld["wild"]["stands_for"] == "4H"


def test_a_team_may_hold_two_sequences_of_one_suit_kept_apart():
    state = position(hands=[["3H", "4H", "5H", "9H", "TH", "JH", "KC"], ["QC"]], phase="play")
    state.apply(0, {"type": "meld", "cards": ["3H", "4H", "5H"]})
    state.apply(0, {"type": "meld", "cards": ["9H", "TH", "JH"]})
    assert [m["cards"] for m in state.observation(0)["melds"]] == [["3H", "4H", "5H"], ["9H", "TH", "JH"]]


@pytest.mark.parametrize("option", ["allowed", "forbidden"])
def test_two_sets_of_one_rank_per_team_follow_the_duplicate_sets_option(option):
    rules = with_options(R2, {"duplicate_sets": option})
    state = position(rules, hands=[["7H", "7S", "7D", "7C", "7H", "X", "KC", "QC"], ["QS"]], phase="play",
                     melds=[{"team": 1, "cards": ["9H", "9S", "9D"]}])
    state.apply(0, {"type": "meld", "cards": ["7H", "7S", "7D"]})
    second_set = {"type": "meld", "cards": ["7C", "7H", "X"]}
    if option == "allowed":
        state.apply(0, second_set)
        assert [m["rank"] for m in state.observation(0)["melds"]] == ["9", "7", "7"]
    else:
        assert refused(state, 0, second_set) == "duplicate-set"
        state.apply(0, {"type": "add", "meld": 1, "cards": ["7C", "7H", "X"]})  # adding to it is fine
        assert state.observation(0)["melds"][1]["cards"] == ["7S", "7H", "7H", "7D", "7C", "X"]


def test_duplicate_sets_forbidden_is_per_team_and_only_for_sets():
    rules = with_options(R2, {"duplicate_sets": "forbidden"})
    state = position(rules, hands=[["AC", "AH", "AS", "5H", "6H", "7H", "KC"], ["QC"]], phase="play",
                     melds=[{"team": 1, "cards": ["AH", "AS", "AC"]}, {"team": 0, "cards": ["3H", "4H", "5H"]}])
    state.apply(0, {"type": "meld", "cards": ["AC", "AH", "AS"]})  # the opponents' set of aces does not count
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})  # a second heart sequence is fine
    assert [m["kind"] for m in state.observation(0)["melds"]] == ["set", "sequence", "set", "sequence"]


def test_partners_build_on_each_others_melds():
    state = position(R4, hands=[["KC", "QC"], ["JC"], ["8H", "4C"], ["TC"]], phase="play", to_move=2,
                     melds=[{"team": 0, "cards": ["5H", "6H", "7H"]}])
    state.apply(2, {"type": "add", "meld": 0, "cards": ["8H"]})
    assert state.observation(0)["melds"][0]["cards"] == ["5H", "6H", "7H", "8H"]


# ------------------------------------------------------------------------------------------ last card, pozzetto

def test_nobody_may_meld_their_last_card_once_the_team_has_its_pozzetto():
    state = position(hands=[["5H", "6H"], ["QC"]], stock=["7H", "3C", "4C", "6C"], pozzetti=[None, DIAMONDS])
    state.apply(0, {"type": "draw"})
    assert refused(state, 0, {"type": "meld", "cards": ["5H", "6H", "7H"]}) == "last-card"


def test_melding_every_card_takes_the_pozzetto_direct_and_the_turn_goes_on():
    state = position(hands=[["5H", "6H"], ["QC"]], stock=["7H", "3C", "4C", "6C"])
    state.apply(0, {"type": "draw"})
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})
    obs = state.observation(0)
    assert sorted(obs["hand"]) == sorted(SPADES) and obs["decision"] == "play"
    assert obs["pozzetti"][0] == {"taken": True, "by": 0, "mode": "direct"}
    assert state.events(0)[-1]["cards"] == sorted(SPADES, key=lambda c: "A23456789TJQK".index(c[0]))
    assert state.events(1)[-1] == {"type": "pozzetto", "seat": 0, "team": 0, "mode": "direct",
                                   "cards": [HIDDEN] * 11}
    state.apply(0, {"type": "meld", "cards": ["3S", "4S", "5S"]})  # playing it at once
    state.apply(0, {"type": "discard", "card": "KS"})
    assert state.to_move() == 1


def test_discarding_the_last_card_takes_the_pozzetto_on_discard_for_the_next_turn():
    state = position(hands=[["5H", "6H", "7H"], ["QC", "JC"]], stock=["KC", "3C", "4C", "5C"])
    state.apply(0, {"type": "draw"})
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})
    state.apply(0, {"type": "discard", "card": "KC"})
    obs = state.observation(0)
    assert sorted(obs["hand"]) == sorted(SPADES) and obs["decision"] is None and obs["to_move"] == 1
    assert obs["pozzetti"][0] == {"taken": True, "by": 0, "mode": "discard"}
    assert state.observation(1)["hand_sizes"] == [11, 2]


def test_the_second_pozzetto_goes_to_the_other_team():
    state = position(R4, hands=[["KC", "QC"], ["5H", "6H"], ["JC", "TC"], ["4C"]], to_move=1,
                     stock=["7H", "3C", "4C", "6C"], pozzetti=[None, DIAMONDS])
    state.apply(1, {"type": "draw"})
    state.apply(1, {"type": "meld", "cards": ["5H", "6H", "7H"]})
    assert sorted(state.observation(1)["hand"]) == sorted(DIAMONDS)
    assert state.observation(3)["pozzetti"][1] == {"taken": True, "by": 1, "mode": "direct"}


# ------------------------------------------------------------------------------------------ closing

def test_closing_needs_a_burraco():
    state = position(hands=[["5H", "6H", "7H"], ["QC"]], stock=["KC", "3C", "4C", "6C"], pozzetti=[None, DIAMONDS])
    state.apply(0, {"type": "draw"})
    assert refused(state, 0, {"type": "meld", "cards": ["5H", "6H", "7H"]}) == "closing-needs-burraco"
    lone = position(hands=[["KC"], ["QC"]], phase="play", pozzetti=[None, DIAMONDS])
    assert refused(lone, 0, {"type": "discard", "card": "KC"}) == "closing-needs-burraco"


def test_closing_discard_must_not_be_wild():
    state = position(hands=[["5S", "6S", "7S", "X"], ["QC"]], phase="play", pozzetti=[None, DIAMONDS],
                     melds=[BURRACO])
    assert refused(state, 0, {"type": "meld", "cards": ["5S", "6S", "7S"]}) == "closing-discard-wild"
    lone = position(hands=[["2C"], ["QC"]], phase="play", pozzetti=[None, DIAMONDS], melds=[BURRACO])
    assert refused(lone, 0, {"type": "discard", "card": "2C"}) == "closing-discard-wild"


def test_without_its_pozzetto_a_team_going_out_takes_the_pozzetto_instead_of_closing():
    state = position(hands=[["KC"], ["QC"]], phase="play", melds=[BURRACO])
    state.apply(0, {"type": "discard", "card": "KC"})
    assert not state.deals and state.observation(0)["pozzetti"][0]["mode"] == "discard"


def test_closing_with_pozzetto_and_burraco_ends_the_hand_with_the_bonus():
    state = position(hands=[["5S", "6S", "7S"], ["QC"]], stock=["KC", "3C", "4C", "6C"], pozzetti=[None, DIAMONDS],
                     melds=[BURRACO])
    state.apply(0, {"type": "draw"})
    state.apply(0, {"type": "meld", "cards": ["5S", "6S", "7S"]})
    state.apply(0, {"type": "discard", "card": "KC"})
    deal = state.deals[0]
    assert deal["ended_by"] == "closing" and deal["closed_by"] == 0
    assert deal["scores"][0]["closing"] == 100 and deal["scores"][1]["closing"] == 0
    assert [e["type"] for e in state.events(1)][-3:] == ["discard", "deal_end", "deal"]
    assert state.events(1)[-3] == {"type": "discard", "seat": 0, "card": "KC", "closing": True}


def test_closing_in_the_same_turn_as_taking_the_pozzetto_direct():
    state = position(hands=[["5S", "6S"], ["QC"]], stock=["7S", "3C", "4C", "6C"], melds=[BURRACO],
                     pozzetti=[["8C", "8H", "8D", "KH"], DIAMONDS])
    state.apply(0, {"type": "draw"})
    state.apply(0, {"type": "meld", "cards": ["5S", "6S", "7S"]})
    state.apply(0, {"type": "meld", "cards": ["8C", "8H", "8D"]})
    state.apply(0, {"type": "discard", "card": "KH"})
    assert state.deals[0]["ended_by"] == "closing"


# ------------------------------------------------------------------------------------------ other ends

def test_by_default_the_hand_ends_as_soon_as_a_draw_leaves_two_cards_in_the_stock():
    state = position(hands=[["5H", "6H", "KC", "QC"], ["JC", "TC"]], stock=["7H", "3C", "4C"])
    state.apply(0, {"type": "draw"})  # 2 cards left: play stops at once, before the drawer melds
    deal = state.deals[0]
    assert deal["ended_by"] == "stock" and deal["closed_by"] is None
    assert deal["hands"][0] == ["5H", "6H", "7H", "QC", "KC"]  # the drawn card counts against the drawer
    assert deal["scores"][0]["in_hand"] == -(5 + 5 + 5 + 10 + 10) and deal["scores"][0]["closing"] == 0
    assert state.observation(1)["deal"] == 1 and state.observation(1)["stock"] == 63


def finish_turn_position(**kw):
    return position(with_options(R2, {"stock_end": "finish_turn"}), stock=["7H", "3C", "4C"], **kw)


def test_with_finish_turn_the_drawer_melds_and_discards_then_the_hand_ends():
    state = finish_turn_position(hands=[["5H", "6H", "KC", "QC"], ["JC", "TC"]])
    state.apply(0, {"type": "draw"})
    obs = state.observation(0)
    assert obs["stock"] == 2 and obs["last_turn"] and not state.deals
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})  # the drawer still melds and discards
    state.apply(0, {"type": "discard", "card": "KC"})
    deal = state.deals[0]
    assert deal["ended_by"] == "stock" and deal["closed_by"] is None
    assert deal["scores"][0]["closing"] == 0
    assert state.observation(1)["deal"] == 1 and state.observation(1)["stock"] == 63  # nobody took that pile


def test_with_finish_turn_the_last_discard_never_closes_nor_takes_the_pozzetto():
    # team 0 has its pozzetto and a burraco: a normal turn could close; on the stock's last turn it may not
    state = finish_turn_position(hands=[["5H", "6H", "X"], ["JC", "TC"]], pozzetti=[None, DIAMONDS],
                                 melds=[BURRACO])
    state.apply(0, {"type": "draw"})
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})
    state.apply(0, {"type": "discard", "card": "X"})  # a wild last card: no closing conditions apply
    deal = state.deals[0]
    assert deal["ended_by"] == "stock" and deal["closed_by"] is None and deal["scores"][0]["closing"] == 0
    # a team without its pozzetto: emptying the hand by the last discard takes nothing
    state = finish_turn_position(hands=[["5H", "6H", "KC"], ["JC", "TC"]])
    state.apply(0, {"type": "draw"})
    state.apply(0, {"type": "meld", "cards": ["5H", "6H", "7H"]})
    state.apply(0, {"type": "discard", "card": "KC"})
    deal = state.deals[0]
    assert deal["hands"][0] == [] and deal["scores"][0]["pozzetto"] == -100
    assert not any(e["type"] == "pozzetto" for e in state.events(None))


def test_with_finish_turn_the_last_card_may_not_be_melded():
    state = finish_turn_position(hands=[["5H", "6H"], ["JC", "TC"]])
    state.apply(0, {"type": "draw"})
    assert refused(state, 0, {"type": "meld", "cards": ["5H", "6H", "7H"]}) == "last-card"


def test_the_hand_ends_after_stalemate_turns_without_a_stock_draw():
    rules = with_options(R2, {"stalemate_turns": "3"})
    state = position(rules, hands=[["5H", "KC"], ["QC", "JC"]], pile=["9H"])
    state.apply(0, {"type": "take_pile"})
    state.apply(0, {"type": "discard", "card": "KC"})
    state.apply(1, {"type": "take_pile"})
    state.apply(1, {"type": "discard", "card": "QC"})
    assert state.observation(0)["turns_without_stock"] == 2 and not state.deals
    state.apply(0, {"type": "take_pile"})
    state.apply(0, {"type": "discard", "card": "5H"})
    assert state.deals[0]["ended_by"] == "stalemate"


def test_a_stock_draw_resets_the_stalemate_count():
    rules = with_options(R2, {"stalemate_turns": "2"})
    state = position(rules, hands=[["5H", "KC"], ["QC", "JC"]], pile=["9H"])
    state.apply(0, {"type": "take_pile"})
    state.apply(0, {"type": "discard", "card": "KC"})
    state.apply(1, {"type": "draw"})
    state.apply(1, {"type": "discard", "card": "QC"})
    assert state.observation(0)["turns_without_stock"] == 0 and not state.deals


def test_the_first_dealer_is_drawn_by_lot_from_the_seed_then_the_deal_moves_left():
    rules = with_options(R4, {"stalemate_turns": "1"})
    dealers = {new_match(rules, seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}  # every seat deals first for some seed
    assert all(new_match(rules, seed).dealer == new_match(rules, seed).dealer for seed in range(5))
    state = new_match(rules, 3)
    dealer = state.dealer
    first = (dealer + 1) % 4
    assert state.to_move() == first and state.events(None)[0]["dealer"] == dealer
    state.apply(first, {"type": "take_pile"})
    state.apply(first, {"type": "discard", "card": next(c for c in state.observation(first)["hand"]
                                                        if c != state.observation(first)["locked_card"])})
    assert state.deals[0]["ended_by"] == "stalemate"
    assert (state.dealer, state.to_move(), state.observation(0)["deal"]) == (first, (first + 1) % 4, 1)


# ------------------------------------------------------------------------------------------ scoring

def worked_example(totals=(0, 0)) -> BurracoState:
    """Four players; seat 0 closes. Team 0 (seats 0, 2) holds a clean burraco and a dirty set and has taken
    its pozzetto; team 1 (seats 1, 3) holds a dirty burraco and never took its pozzetto."""
    return position(
        R4, phase="play", totals=totals, pozzetti=[None, DIAMONDS],
        hands=[["8C", "9C", "TC", "4H"], ["QC", "QC"], ["AH", "2C"], ["3C"]],
        stock=["JS", "QS", "KS"],
        melds=[{"team": 0, "cards": ["3S", "4S", "5S", "6S", "7S", "8S", "9S"]},
               {"team": 0, "cards": ["KH", "KD", "X"]},
               {"team": 1, "cards": ["5D", "6D", "7D", "8D", "9D", "TD", "X"], "wild_as": "JD"}])


def close_worked_example(state: BurracoState) -> None:
    state.apply(0, {"type": "meld", "cards": ["8C", "9C", "TC"]})
    state.apply(0, {"type": "discard", "card": "4H"})


def test_the_score_of_a_worked_example_hand():
    state = worked_example()
    close_worked_example(state)
    team0, team1 = state.deals[0]["scores"]
    # Team 0: melded 3S..7S = 5*5 = 25, 8S 9S = 20, KH KD = 20, X = 30, 8C 9C TC = 30 -> 125;
    #         one clean burraco +200; closing +100; seat 2 still holds AH (15) + 2C (20) = -35; pozzetto taken: 0.
    #         125 + 200 + 100 - 35 = 390.
    assert team0 == {"melded": 125, "clean_burraco": 1, "dirty_burraco": 0, "burraco_bonus": 200,
                     "closing": 100, "in_hand": -35, "pozzetto": 0, "total": 390}
    # Team 1: melded 5D 6D 7D = 15, 8D 9D TD = 30, X = 30 -> 75; one dirty burraco +100; no closing;
    #         hands QC QC (20) + 3C (5) = -25; never took its pozzetto -100. 75 + 100 - 25 - 100 = 50.
    assert team1 == {"melded": 75, "clean_burraco": 0, "dirty_burraco": 1, "burraco_bonus": 100,
                     "closing": 0, "in_hand": -25, "pozzetto": -100, "total": 50}
    assert state.outcome()["points"] == [390, 50, 390, 50]
    assert state.events(None)[-2]["hands"] == [[], ["QC", "QC"], ["AH", "2C"], ["3C"]]


def test_a_pozzetto_taken_but_not_played_counts_against_its_team():
    state = position(hands=[["KC"], ["QC"]], phase="play", stock=["JS", "QS", "KS"],
                     pozzetti=[["AD", "X"], DIAMONDS])
    state.apply(0, {"type": "discard", "card": "KC"})  # takes the pozzetto on discard...
    state.apply(1, {"type": "draw"})                     # ...and the stock runs down to two: the hand ends
    score = state.deals[0]["scores"][0]
    assert score["in_hand"] == -(15 + 30) and score["pozzetto"] == 0


def test_the_match_ends_when_a_team_reaches_the_target():
    state = worked_example(totals=(1700, 0))
    close_worked_example(state)
    out = state.outcome()
    assert state.is_over() and state.to_move() is None and out["finished"]
    assert out["ranks"] == [1, 2, 1, 2] and out["points"] == [2090, 50, 2090, 50] and out["points_kind"] == "score"
    assert state.events(None)[-1] == {"type": "match_end", "totals": [2090, 50], "winner_team": 0,
                                      "ranks": [1, 2, 1, 2]}
    assert refused(state, 1, {"type": "draw"}) == "match-over"
    assert state.observation(1)["decision"] is None


def test_when_both_teams_pass_the_target_the_higher_total_wins():
    state = worked_example(totals=(1700, 1990))
    close_worked_example(state)
    assert state.is_over() and state.outcome()["team_points"] == [2090, 2040]
    assert state.outcome()["winner_team"] == 0 and state.outcome()["ranks"] == [1, 2, 1, 2]


def test_an_exact_tie_over_the_target_plays_another_hand():
    state = worked_example(totals=(1700, 2040))
    close_worked_example(state)
    assert state.outcome()["team_points"] == [2090, 2090]
    assert not state.is_over() and state.outcome()["ranks"] == [1, 1, 1, 1]
    assert state.observation(0)["deal"] == 1


def test_clone_is_independent():
    state = position(hands=[["5H", "6H", "7H", "KC"], ["QC"]])
    copy = state.clone()
    copy.apply(0, {"type": "draw"})
    assert state.observation(0)["decision"] == "draw" and copy.observation(0)["decision"] == "play"
