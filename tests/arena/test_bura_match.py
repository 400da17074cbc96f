"""Bura family deal scoring and match ends: Burkozel tables, doubling, the goat, teams, rubbers, outcome."""

import pytest

import arena.games.bura as bura
from arena.games.bura import PRESETS, BuraMatch
from arena.games.bura.scoring import points_table
from arena.games.options import with_options

SIXTY_A = ["AS", "TS", "AD", "TD", "KS", "KD", "QS", "JS", "QD", "JD"]  # 60 points
SIXTY_B = ["AC", "TC", "AH", "TH", "KC", "KH", "QC", "JC", "QH", "JH"]  # 60 points


def last_trick(preset, piles, overrides=None, hands=None, **kwargs):
    """Play the deal's last trick (nothing beats the leader's 7S) from a position with the given piles."""
    rules = with_options(PRESETS[preset], overrides or {})
    hands = hands or [["7S"], ["8D"], ["9D"], ["7D"]][:rules.players]
    state = BuraMatch.from_position(rules, hands=hands, trump_card="6H", piles=piles, **kwargs)
    for seat in range(rules.players):
        state.apply(seat, {"type": "lead", "cards": hands[0]} if seat == 0 else
                    {"type": "respond", "cards": hands[seat], "face_down": False})
    if rules.claims_allowed:
        state.apply(0, {"type": "pass"})
    return state


@pytest.mark.parametrize("points, players, penalty", [
    (0, 2, 6), (1, 2, 4), (31, 2, 4), (32, 2, 2), (21, 3, 4), (22, 3, 2), (0, 3, 6)])
def test_burkozel_penalties_follow_the_points_table(points, players, penalty):
    assert points_table(points, with_options(PRESETS["burkozel"], {"players": players})) == penalty


def test_a_played_out_burkozel_deal_gives_the_most_points_nothing_and_the_others_by_the_table():
    state = last_trick("burkozel", [[*SIXTY_A, "AC", "TC"], ["KC", "KH", "QC", "JC", "QH", "JH"]])
    deal = state.outcome()["deals"][-1]
    assert (deal["reason"], deal["trick_points"], deal["penalties"], deal["winners"]) == \
        ("played-out", [81, 18], [0, 4], [0])


def test_sixty_sixty_scores_nothing_and_doubles_the_next_deal():
    state = last_trick("burkozel", [SIXTY_A, SIXTY_B], dealer=1)
    deal = state.outcome()["deals"][-1]
    assert (deal["penalties"], deal["winners"], deal["doubles_next"]) == ([0, 0], [], True)
    assert state.observation(0)["multiplier"] == 2 and state.observation(0)["dealer"] == 0  # burkozel rotates

    doubled = last_trick("burkozel", [[*SIXTY_A, "AC", "TC"], ["KC", "KH", "QC", "JC", "QH", "JH"]], multiplier=2)
    deal = doubled.outcome()["deals"][-1]
    assert (deal["penalties"], deal["multiplier"]) == ([0, 8], 2)
    assert doubled.observation(0)["multiplier"] == 1


def test_with_three_players_the_four_point_band_ends_at_21():
    piles = [["AS", "TS", "AD", "TD", "KS", "KD"], ["AC", "TC", "KC"], ["AH", "TH"]]
    state = last_trick("burkozel", piles, {"players": 3})
    assert state.outcome()["deals"][-1]["penalties"] == [0, 2, 4]  # 25 > 21 pays 2; 21 pays 4


def test_teams_add_partners_points_and_pay_once_per_team():
    piles = [["AS", "TS"], ["KD", "QS"], ["AD", "TD", "KS"], []]
    state = last_trick("burkozel-pairs", piles)
    deal = state.outcome()["deals"][-1]
    assert (deal["trick_points"], deal["penalties"], deal["winners"]) == ([21, 7, 25, 0], [0, 4, 0, 4], [0, 2])
    outcome = state.outcome()
    assert (outcome["teams"], outcome["penalties"], outcome["ranks"]) == ([[0, 2], [1, 3]], [0, 4, 0, 4], [1, 2, 1, 2])


def test_a_team_claim_counts_the_partners_pile():
    rules = with_options(PRESETS["burkozel-pairs"], {"claim_61": "on"})
    state = BuraMatch.from_position(rules, hands=[["7S"], ["8D"], ["9D"], ["7D"]], trump_card="6H",
                                    piles=[["AS", "TS", "AD"], [], ["TD", "AC", "TC"], ["KS"]], claim_by=0)
    state.apply(0, {"type": "claim"})
    claim = [e for e in state.events(1) if e["type"] == "claim"][-1]
    assert (claim["points"], claim["correct"], sorted(claim["piles"])) == (63, True, ["0", "2"])
    assert state.outcome()["deals"][-1]["penalties"] == [0, 4, 0, 4]


def test_the_goat_reaches_twelve_and_loses_the_match():
    rules = PRESETS["bura"]
    state = BuraMatch.from_position(rules, hands=[["7S"], ["8S"]], trump_card="6H", piles=[["KS"], []],
                                    claim_by=0, penalties=[10, 0])
    state.apply(0, {"type": "claim"})  # a false claim: +4
    outcome = state.outcome()
    assert state.is_over() and state.to_move() is None
    assert (outcome["finished"], outcome["points"], outcome["ranks"], outcome["goat"]) == (True, [14, 0], [2, 1], [0])
    assert outcome["points_kind"] == "penalty" and outcome["ended_by"] == "rules"
    assert state.events(1)[-1]["type"] == "match_end" and state.legal_actions(0) == []
    with pytest.raises(bura.state.IllegalAction) as err:
        state.apply(0, {"type": "pass"})
    assert err.value.rule == "match-over"


def test_a_rubber_needs_the_target_and_a_lead_of_two():
    won = last_trick("burkozel", [["AS"], []], {"match": "rubber:11"}, deals_won=[10, 9])
    outcome = won.outcome()
    assert (outcome["finished"], outcome["points"], outcome["points_kind"], outcome["ranks"]) == \
        (True, [11, 9], "score", [1, 2])
    close = last_trick("burkozel", [["AS"], []], {"match": "rubber:11"}, deals_won=[10, 10])
    assert not close.is_over() and close.outcome()["points"] == [11, 10]


def test_a_fixed_number_of_deals_and_the_deal_limit_end_the_match():
    fixed = last_trick("burkozel", [["AS"], []], {"match": "deals:1"})
    assert fixed.is_over() and fixed.outcome()["ended_by"] == "rules"
    limited = last_trick("bura", [["AS"], []], {"deal_limit": 1})
    assert limited.outcome()["deals"][-1]["reason"] == "void"
    assert limited.is_over() and limited.outcome()["ended_by"] == "deal_limit"


def test_rotate_left_passes_the_deal_to_the_next_seat():
    state = last_trick("burkozel", [["AS"], [], []], {"dealer": "rotate_left", "players": 3}, dealer=1)
    assert state.observation(0)["dealer"] == 2


def test_the_winner_deals_next():
    state = last_trick("burkozel", [[], ["AS"], []], {"players": 3}, dealer=0)
    assert state.observation(0)["dealer"] == 1


def test_a_new_match_deals_from_its_seed_and_starts_left_of_the_dealer():
    state = bura.new_match(PRESETS["bura"], 42)
    again = bura.new_match(PRESETS["bura"], 42)
    assert state.events(None) == again.events(None)
    first = state.events(None)[0]
    assert first["type"] == "deal" and len(first["hands"][0]) == 3 and first["stock"] == 30
    assert state.outcome()["finished"] is False and state.outcome()["deals"] == []
    assert state.observation(0)["game"] == "bura"
    with pytest.raises(TypeError):
        bura.new_match(PRESETS["bura"].__dict__, 1)
