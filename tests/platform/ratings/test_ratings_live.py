"""The live rating: OpenSkill Plackett–Luce updates per match, new versions, and the Elo display."""

from __future__ import annotations

import math
import random

import pytest
from openskill.models import PlackettLuce

from ratings import live
from ratings.live import ELO_PER_MU, Skill, initial, rate_match, successor, to_elo
from ratings.scale import expected_score

# openskill's documented examples were computed before its dynamics term existed: tau = 0 reproduces them.
STATIC = PlackettLuce(tau=0)


def test_the_documented_two_against_two_example():
    # openskill.py manual, "Usage": a1, a2 win against b1, b2
    skills = {"a1": Skill(25.0, 25 / 3), "a2": Skill(32.444, 5.123), "b1": Skill(43.381, 2.421),
              "b2": Skill(25.188, 6.211)}
    new = rate_match(skills, ["a1", "a2", "b1", "b2"], [1, 1, 2, 2], teams=[[0, 1], [2, 3]], model=STATIC)
    assert new["a1"] == Skill(pytest.approx(28.669648436582808), pytest.approx(8.071520788025197))
    assert new["a2"] == Skill(pytest.approx(33.83086971107981), pytest.approx(5.062772998705765))
    assert new["b1"] == Skill(pytest.approx(43.071274808241974), pytest.approx(2.4166900452721256))
    assert new["b2"] == Skill(pytest.approx(23.149503312339064), pytest.approx(6.1378606973362135))


def test_the_documented_four_player_ranking_example():
    # openskill.py manual, "Artificial Ranks": four new players finishing 4th, 1st, 3rd, 2nd
    skills = {p: initial(STATIC) for p in "abcd"}
    new = rate_match(skills, ["a", "b", "c", "d"], [4, 1, 3, 2], model=STATIC)
    assert new["a"] == Skill(pytest.approx(20.96265504062538), pytest.approx(8.083731307186588))
    assert new["b"] == Skill(pytest.approx(27.795084971874736), pytest.approx(8.263160757613477))
    assert new["c"].mu < new["d"].mu < new["b"].mu


def test_a_new_version_keeps_its_bots_mu_with_a_fresh_sigma():
    assert successor(Skill(31.5, 1.2)) == Skill(31.5, live.MODEL.sigma)
    assert successor(None) == initial() == Skill(25.0, 25 / 3)


def test_a_team_of_one_bot_in_both_seats_is_rated_as_that_bot_once():
    skills = {"x": initial(), "y": initial()}
    team = rate_match(skills, ["x", "y", "x", "y"], [1, 2, 1, 2], teams=[[0, 2], [1, 3]])
    solo = rate_match(skills, ["x", "y"], [1, 2])
    assert team == solo and set(team) == {"x", "y"}


def test_a_mixed_team_credits_both_bots():
    skills = {p: initial() for p in "abcd"}
    new = rate_match(skills, ["a", "c", "b", "d"], [1, 2, 1, 2], teams=[[0, 2], [1, 3]])
    assert new["a"].mu > 25 and new["b"].mu > 25 and new["c"].mu < 25 and new["d"].mu < 25


def test_a_version_on_two_sides_is_left_out():
    skills = {p: initial() for p in "abc"}
    assert rate_match(skills, ["a", "a"], [1, 2]) == {}
    new = rate_match(skills, ["a", "b", "a", "c"], [1, 2, 3, 4])
    assert set(new) == {"b", "c"} and new["b"].mu > new["c"].mu


def test_ties_and_forfeits_enter_as_the_ranks_say():
    skills = {"a": Skill(30.0, 3.0), "b": Skill(20.0, 3.0)}
    draw = rate_match(skills, ["a", "b"], [1, 1])
    assert draw["a"].mu < 30 and draw["b"].mu > 20  # a draw against a weaker player costs the stronger
    forfeit = rate_match(skills, ["a", "b"], [2, 1])  # the referee ranks a forfeiting seat last
    assert forfeit["a"].mu < draw["a"].mu


def test_bad_input_is_refused_with_a_clear_error():
    skills = {"a": initial(), "b": initial()}
    with pytest.raises(ValueError, match="one rank per seat"):
        rate_match(skills, ["a", "b"], [1])
    with pytest.raises(ValueError, match="different ranks"):
        rate_match(skills, ["a", "b", "a", "b"], [1, 2, 2, 1], teams=[[0, 2], [1, 3]])
    with pytest.raises(ValueError, match="exactly once"):
        rate_match(skills, ["a", "b"], [1, 2], teams=[[0], [0]])
    with pytest.raises(ValueError, match="successor"):
        rate_match(skills, ["a", "new"], [1, 2])


def test_the_elo_display_puts_a_new_bot_at_1500_and_400_points_at_ten_to_one():
    assert to_elo(25.0) == 1500
    # Plackett–Luce odds between settled players are e^(Δμ/(√2·β)); Elo odds are 10^(D/400)
    ten_to_one = math.log(10) * math.sqrt(2) * live.MODEL.beta
    assert to_elo(25.0 + ten_to_one) == pytest.approx(1900)
    assert expected_score(to_elo(25 + ten_to_one) - to_elo(25)) == pytest.approx(10 / 11)
    assert pytest.approx(29.48, abs=0.01) == ELO_PER_MU
    assert Skill(25.0, 2.0).elo_half_width == pytest.approx(1.959963984540054 * 2.0 * ELO_PER_MU)


def test_live_ratings_settle_near_the_true_elo_difference():
    # a wins 10 games in 11 (400 Elo): after many games the live display shows roughly that
    skills = {"a": initial(), "b": initial()}
    rng = random.Random(1)
    for _ in range(2000):
        ranks = [1, 2] if rng.random() < 10 / 11 else [2, 1]
        skills.update(rate_match(skills, ["a", "b"], ranks))
    assert 330 < skills["a"].elo - skills["b"].elo < 470
