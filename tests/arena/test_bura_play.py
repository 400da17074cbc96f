"""Bura family scenarios from explicit positions: tricks, hidden cards, drawing, claims, combinations."""

import pytest

from arena.games.base import HIDDEN, IllegalAction
from arena.games.bura import PRESETS, BuraMatch
from arena.games.options import with_options


def position(preset="bura", overrides=None, **kwargs):
    return BuraMatch.from_position(with_options(PRESETS[preset], overrides or {}), **kwargs)


def lead(state, seat, *cards):
    state.apply(seat, {"type": "lead", "cards": list(cards)})


def respond(state, seat, *cards, down=False):
    state.apply(seat, {"type": "respond", "cards": list(cards), "face_down": down})


def last(state, kind, seat=None):
    return [e for e in state.events(seat) if e["type"] == kind][-1]


def test_a_response_beats_through_a_pairing_a_greedy_sort_would_miss():
    state = position(hands=[["AD", "7D", "9S"], ["8D", "6C", "KH"]], stock=["QS", "QH", "JS", "JH", "TC"],
                     trump_card="TC")
    lead(state, 0, "AD", "7D")
    respond(state, 1, "8D", "6C")
    assert last(state, "trick")["taker"] == 1
    assert sorted(map(tuple, last(state, "play")["pairing"])) == [("6C", "AD"), ("8D", "7D")]
    assert state.observation(1)["decision"] == "claim"


def test_with_three_players_each_must_beat_the_current_best_set():
    hands = [["9H", "7S"], ["TH", "7D"], ["KH", "AH"]]
    state = position("bura-3p", hands=[list(h) for h in hands], trump_card="6C")
    lead(state, 0, "9H")
    respond(state, 1, "TH")
    assert state.observation(2)["trick"]["best_seat"] == 1
    respond(state, 2, "KH")  # beats the lead 9H but not the ten that now stands
    assert last(state, "trick")["taker"] == 1

    state = position("bura-3p", hands=[list(h) for h in hands], trump_card="6C")
    lead(state, 0, "9H")
    respond(state, 1, "TH")
    respond(state, 2, "AH")
    assert last(state, "trick")["taker"] == 2


def test_nobody_beats_so_the_leader_takes_and_a_face_up_loser_is_legal():
    state = position(hands=[["7H"], ["6D"]], trump_card="6S", piles=[["AS"], []])
    respond_event_count = len(state.events(None))
    lead(state, 0, "7H")
    assert {"type": "respond", "cards": ["6D"], "face_down": False} in state.legal_actions(1)
    respond(state, 1, "6D")
    play = state.events(None, respond_event_count)[1]
    assert play["beats"] is False and "pairing" not in play
    assert last(state, "trick")["taker"] == 0


def test_a_face_down_set_never_beats_even_when_it_could():
    state = position(hands=[["7H"], ["AH"]], trump_card="6S")
    lead(state, 0, "7H")
    respond(state, 1, "AH", down=True)
    assert last(state, "trick")["taker"] == 0


def test_closed_face_down_cards_are_hidden_from_everyone_even_the_taker_but_count_in_a_claim():
    state = position(hands=[["AS", "7D"], ["TH", "9D"]], trump_card="6C", stock=["8D", "8C", "6C"],
                     face_down=[[("AH", 1)], []])
    lead(state, 0, "AS")
    respond(state, 1, "TH", down=True)
    mine, theirs = state.observation(0), state.observation(1)
    assert mine["piles"][0] == {"count": 3, "face_up": ["AS"], "face_down_known": []}
    assert theirs["piles"][0]["face_down_known"] == ["AH", "TH"]
    seen_by_taker = [e for e in state.events(0) if e["type"] in ("play", "trick")]
    assert "TH" not in str(seen_by_taker) and "AH" not in str(state.events(0))
    assert last(state, "play", 0)["cards"] == [HIDDEN]
    assert last(state, "trick", 0)["face_down"] == [{"seat": 1, "cards": [HIDDEN]}]
    assert last(state, "trick", 1)["face_down"] == [{"seat": 1, "cards": ["TH"]}]
    state.apply(0, {"type": "claim"})  # 11 + 11 + 10 = 32, though seat 0 could only see 11
    claim = last(state, "claim", 0)
    assert (claim["points"], claim["correct"], claim["piles"]["0"]) == (32, True, ["AS", "AH", "TH"])
    deal = state.outcome()["deals"][-1]
    assert (deal["reason"], deal["winners"], deal["penalties"]) == ("claim", [0], [0, 2])


def test_shown_to_taker_lets_the_taker_alone_see_the_face_down_cards():
    state = position("bura-3p", {"discard": "shown_to_taker"}, hands=[["AS"], ["TH"], ["9D"]], trump_card="6C")
    lead(state, 0, "AS")
    respond(state, 1, "TH", down=True)
    assert state.observation(2)["trick"]["plays"][1] == {"seat": 1, "cards": [HIDDEN], "face_down": True}
    assert state.observation(1)["trick"]["plays"][1]["cards"] == ["TH"]
    respond(state, 2, "9D", down=True)
    assert state.observation(0)["piles"][0]["face_down_known"] == ["TH", "9D"]
    assert state.observation(1)["piles"][0]["face_down_known"] == ["TH"]
    assert last(state, "trick", 0)["face_down"][0]["cards"] == ["TH"]
    assert last(state, "trick", 2)["face_down"][0]["cards"] == [HIDDEN]


def test_open_bura_allows_no_face_down_sets():
    state = position(overrides={"discard": "open"}, hands=[["7H"], ["AH", "6D"]], trump_card="6S")
    lead(state, 0, "7H")
    assert all(a["face_down"] is False for a in state.legal_actions(1))
    with pytest.raises(IllegalAction) as err:
        respond(state, 1, "6D", down=True)
    assert err.value.rule == "face-down-not-allowed"


def test_the_taker_claims_before_drawing_then_draws_first_one_card_at_a_time():
    stock = ["KD", "QD", "JD", "KC", "QC", "JC", "KS", "QS", "6H"]  # the trump card, bottom, is drawn last
    state = position("bura-3p", hands=[["7S"], ["8S"], ["9D"]], stock=stock, trump_card="6H")
    lead(state, 0, "7S")
    respond(state, 1, "8S")
    respond(state, 2, "9D")
    assert state.observation(1)["decision"] == "claim"
    assert state.observation(1)["stock"] == 9 and state.observation(1)["hand"] == []
    assert state.observation(0)["trump_card"] == "6H"
    state.apply(1, {"type": "pass"})
    draw = last(state, "draw")
    assert [d["seat"] for d in draw["draws"]] == [1, 2, 0, 1, 2, 0, 1, 2, 0]
    assert draw["draws"][-1] == {"seat": 0, "card": "6H"}
    assert state.observation(0)["hand"] == ["6H", "JD", "JC"]  # shown in card order: S H D C
    assert state.observation(1)["trump_card"] is None and state.observation(1)["decision"] == "lead"
    seen_by_2 = last(state, "draw", 2)["draws"]
    assert [d["card"] for d in seen_by_2] == [HIDDEN, "QD", HIDDEN, HIDDEN, "QC", HIDDEN, HIDDEN, "QS", "6H"]


def test_a_returned_trump_card_lies_on_top_and_goes_to_the_first_drawer():
    state = position(overrides={"trump_card": "returned"}, hands=[["7S"], ["8D"]], stock=["6H", "KD", "QD"],
                     trump_card="6H")
    lead(state, 0, "7S")
    respond(state, 1, "8D")
    state.apply(0, {"type": "pass"})
    assert state.observation(0)["hand"] == ["6H", "QD"] and state.observation(1)["hand"] == ["KD"]


def test_a_short_stock_gives_later_players_fewer_cards_and_limits_the_lead():
    state = position("bura-3p", hands=[["7S"], ["8S"], ["9D"]], stock=["KD", "QD"], trump_card="6H")
    lead(state, 0, "7S")
    respond(state, 1, "8S")
    respond(state, 2, "9D")
    state.apply(1, {"type": "pass"})
    assert state.observation(0)["hand_sizes"] == [0, 1, 1]
    assert state.observation(1)["lead_limit"] == 1

    limited = position("bura-3p", hands=[["AS", "KS", "QS"], ["7H"], ["8H", "9H"]], trump_card="6C")
    assert limited.lead_limit(0) == 1
    assert all(len(a["cards"]) == 1 for a in limited.legal_actions(0))
    with pytest.raises(IllegalAction) as err:
        lead(limited, 0, "AS", "KS")
    assert err.value.rule == "lead-too-many"


def test_a_lone_holder_plays_out_alone_and_an_empty_leader_passes_the_lead():
    state = position("bura-3p", hands=[[], ["AS"], []], trump_card="6C", leader=0)
    assert state.to_move() == 1
    lead(state, 1, "AS")
    assert last(state, "trick")["taker"] == 1


def test_a_false_claim_loses_double_by_default_and_single_with_lose():
    for false_claim, penalty in (("lose_double", 4), ("lose", 2)):
        state = position(overrides={"false_claim": false_claim}, hands=[["7S"], ["8S"]], trump_card="6H",
                         piles=[["KS"], []], claim_by=0, dealer=0)
        state.apply(0, {"type": "claim"})
        deal = state.outcome()["deals"][-1]
        assert (deal["reason"], deal["penalties"], deal["winners"]) == ("false-claim", [penalty, 0], [1])
        assert state.observation(0)["dealer"] == 1 and state.observation(0)["deal"] == 2  # the winner deals


def test_with_three_players_a_correct_claim_costs_every_other_player_two():
    state = position("bura-3p", hands=[["7S"], ["8S"], ["9S"]], trump_card="6H",
                     piles=[["AS", "TS", "AD"], [], []], claim_by=0)
    state.apply(0, {"type": "claim"})
    assert state.outcome()["deals"][-1]["penalties"] == [0, 2, 2]


def bura_after_draw(stock, overrides=None):
    """Seat 0 takes a one-card trick; then both draw three cards from ``stock`` (trump spades)."""
    state = position(overrides=overrides, hands=[["7H"], ["6D"]], stock=stock, trump_card="6S", dealer=1)
    lead(state, 0, "7H")
    respond(state, 1, "6D")
    state.apply(0, {"type": "pass"})
    return state


def test_a_bura_drawn_wins_the_deal_at_once():
    state = bura_after_draw(["8H", "KS", "9H", "QS", "JH", "JS", "6S"])  # seat 1: KS QS JS
    combo = last(state, "combination")
    assert (combo["seat"], combo["name"], combo["effect"]) == (1, "bura", "instant_win")
    deal = state.outcome()["deals"][-1]
    assert (deal["reason"], deal["winners"], deal["penalties"]) == ("combination", [1], [2, 0])
    assert deal["combination"]["cards"] == ["KS", "QS", "JS"]


def test_a_molodka_leads_out_of_turn_unless_played_in_turn():
    stock = ["8C", "KH", "9D", "QH", "JC", "9H", "6S"]  # seat 1: KH QH 9H
    state = bura_after_draw(stock)
    assert (last(state, "combination")["name"], state.to_move()) == ("molodka", 1)
    assert state.observation(0)["combinations"] == [{"seat": 1, "name": "molodka", "effect": "lead",
                                                     "cards": ["KH", "QH", "9H"]}]
    state = bura_after_draw(stock, {"molodka": "in_turn"})
    assert state.to_move() == 0 and state.observation(0)["combinations"] == []


def test_an_initial_combination_redeals_without_consequences_or_counts():
    hands = [["KH", "QH", "9H"], ["7D", "8S", "9C"]]
    stock = ["JD", "QD", "6S"]
    state = position(hands=[list(h) for h in hands], stock=stock, trump_card="6S", dealer=1, fresh_deal=True,
                     seed=11)
    deal = state.outcome()["deals"][0]
    assert (deal["reason"], deal["penalties"], deal["combination"]["name"]) == ("redeal", [0, 0], "molodka")
    assert last(state, "combination")["effect"] == "redeal"
    assert state.observation(0)["deal"] == 2 and state.observation(0)["dealer"] == 1

    counts = position(overrides={"initial_combo": "counts"}, hands=[list(h) for h in hands], stock=stock,
                      trump_card="6S", dealer=0, fresh_deal=True)
    assert counts.to_move() == 0 and counts.observation(0)["deal"] == 1  # seat 1 was due to lead
    announced = {"seat": 0, "name": "molodka", "effect": "lead", "cards": ["KH", "QH", "9H"]}
    assert counts.observation(1)["combinations"] == [announced]
    assert {k: v for k, v in last(counts, "combination", seat=1).items() if k not in ("type", "deal")} == announced


def test_the_deal_end_reports_the_effect_the_combination_actually_had():
    molodka = [["KH", "QH", "9H"], ["7D", "8S", "9C"]]
    bura = [["KS", "QS", "9S"], ["7D", "8H", "9C"]]
    for hands, intrinsic in ((molodka, "lead"), (bura, "instant_win")):
        state = position(hands=hands, stock=["JD", "QD", "6S"], trump_card="6S", dealer=1, fresh_deal=True, seed=11)
        announced = {k: v for k, v in last(state, "combination").items() if k not in ("type", "deal")}
        assert announced["effect"] == "redeal" != intrinsic
        assert state.outcome()["deals"][0]["combination"] == announced
        assert last(state, "deal_end")["combination"] == announced
    state = bura_after_draw(["8H", "KS", "9H", "QS", "JH", "JS", "6S"])
    assert state.outcome()["deals"][-1]["combination"]["effect"] == last(state, "combination")["effect"]


def test_an_initial_bura_that_counts_wins_at_once():
    state = position(overrides={"initial_combo": "counts"}, hands=[["KS", "QS", "9S"], ["7D", "8H", "9C"]],
                     stock=["JD", "6S"], trump_card="6S", dealer=1, fresh_deal=True, seed=3)
    assert state.outcome()["deals"][0]["reason"] == "combination"
    assert state.observation(0)["deal"] == 2 and state.observation(0)["dealer"] == 0  # the winner deals


def test_an_unclaimed_deal_is_void_and_the_same_dealer_deals_again():
    state = position(hands=[["7H"], ["6D"]], trump_card="6S", piles=[["AS", "TS", "KS"], []], dealer=1)
    lead(state, 0, "7H")
    respond(state, 1, "6D")
    state.apply(0, {"type": "pass"})
    deal = state.outcome()["deals"][-1]
    assert (deal["reason"], deal["penalties"], deal["winners"]) == ("void", [0, 0], [])
    assert state.observation(0)["dealer"] == 1 and state.observation(0)["deal"] == 2


def test_unclaimed_most_points_gives_the_deal_to_the_most_points():
    state = position(overrides={"unclaimed": "most_points"}, hands=[["7H"], ["6D"]], trump_card="6S",
                     piles=[["AS"], ["TS", "KS"]], dealer=1)
    lead(state, 0, "7H")
    respond(state, 1, "6D")
    state.apply(0, {"type": "pass"})
    deal = state.outcome()["deals"][-1]
    assert (deal["reason"], deal["penalties"], deal["winners"]) == ("played-out", [2, 0], [1])


def test_claim_61_in_burkozel_wins_and_others_pay_by_their_points():
    state = position("burkozel", {"claim_61": "on"}, hands=[["7S"], ["8D"]], trump_card="6H",
                     piles=[["AS", "TS", "AD", "TD", "AC", "KS", "KD"], ["QS"]], claim_by=0)
    assert state.legal_actions(0) == [{"type": "claim"}, {"type": "pass"}]
    state.apply(0, {"type": "claim"})
    deal = state.outcome()["deals"][-1]
    assert (deal["reason"], deal["penalties"]) == ("claim", [0, 4])


@pytest.mark.parametrize("seat, action, rule", [
    (1, {"type": "lead", "cards": ["8S"]}, "not-your-turn"),
    (0, ["lead"], "bad-action"),
    (0, {"type": "respond", "cards": ["7S"]}, "wrong-decision"),
    (0, {"type": "lead", "cards": "7S"}, "bad-action"),
    (0, {"type": "lead", "cards": ["ZZ"]}, "unknown-card"),
    (0, {"type": "lead", "cards": [7]}, "unknown-card"),
    (0, {"type": "lead", "cards": ["AH"]}, "card-not-in-hand"),
    (0, {"type": "lead", "cards": ["7S", "7S"]}, "duplicate-card"),
    (0, {"type": "lead", "cards": []}, "lead-empty"),
    (0, {"type": "lead", "cards": ["7S", "KD"]}, "lead-one-suit"),
    (0, {"type": "lead", "cards": ["7S"], "pairing": []}, "bad-action"),
])
def test_it_rejects_illegal_leads_and_leaves_the_state_unchanged(seat, action, rule):
    state = position(hands=[["7S", "KD", "QS"], ["8S", "9S", "TS"]], trump_card="6H")
    before = (state.observation(0), len(state.events(None)))
    with pytest.raises(IllegalAction) as err:
        state.apply(seat, action)
    assert err.value.rule == rule
    assert (state.observation(0), len(state.events(None))) == before


@pytest.mark.parametrize("action, rule", [
    ({"type": "respond", "cards": ["8S", "9S"]}, "must-play-same-count"),
    ({"type": "respond", "cards": ["8S"], "face_down": "yes"}, "bad-action"),
    ({"type": "claim"}, "wrong-decision"),
])
def test_it_rejects_illegal_responses(action, rule):
    state = position(hands=[["7S", "KD", "QS"], ["8S", "9S", "TS"]], trump_card="6H")
    lead(state, 0, "7S")
    with pytest.raises(IllegalAction) as err:
        state.apply(1, action)
    assert err.value.rule == rule


def test_legal_actions_list_same_suit_leads_and_every_response_both_ways():
    state = position(hands=[["7S", "KD", "QS"], ["8S", "9S", "TS"]], trump_card="6H")
    leads = [a["cards"] for a in state.legal_actions(0)]
    assert leads == [["QS"], ["7S"], ["QS", "7S"], ["KD"]]
    assert state.legal_actions(1) == []
    lead(state, 0, "QS", "7S")
    responses = state.legal_actions(1)
    assert len(responses) == 6 and responses[0] == {"type": "respond", "cards": ["TS", "9S"], "face_down": False}
    obs = state.observation(1)
    assert (obs["decision"], obs["trick"]["size"], obs["to_move"]) == ("respond", 2, 1)
    assert state.observation(0)["decision"] is None


def test_observations_and_events_reject_bad_seats_and_events_page_from_start():
    state = position(hands=[["7S"], ["8S"]], trump_card="6H")
    with pytest.raises(ValueError):
        state.observation(2)
    with pytest.raises(ValueError):
        state.events(True)
    lead(state, 0, "7S")
    assert state.events(1, 1) == state.events(1)[1:]


def test_a_clone_plays_on_independently():
    state = position(hands=[["7S", "KD"], ["8S", "9D"]], trump_card="6H")
    twin = state.clone()
    lead(twin, 0, "7S")
    assert state.to_move() == 0 and twin.to_move() == 1


def test_from_position_rejects_duplicate_or_foreign_cards():
    with pytest.raises(ValueError):
        position(hands=[["7S"], ["7S"]], trump_card="6H")
    with pytest.raises(ValueError):
        position(hands=[["2S"], ["7S"]], trump_card="6H")
    with pytest.raises(ValueError):
        position(hands=[["8S"], ["7S"]], trump_card="6H", piles=[["AS"]])
