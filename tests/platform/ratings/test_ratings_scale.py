"""The Elo scale and the likelihood-of-superiority formulas, against published values."""

import math

import pytest

from ratings.scale import ELO_PER_NAT, elo_difference, expected_score, los_from_ratings, los_from_results


def test_elo_expected_scores_are_elos_logistic_curve():
    # Elo, "The Rating of Chessplayers, Past and Present" (1978): 400 points = 10:1 odds; the FIDE
    # Handbook B.02 table gives 0.64 for a 100-point and 0.76 for a 200-point difference.
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)
    assert round(expected_score(100), 2) == 0.64
    assert round(expected_score(200), 2) == 0.76


def test_a_score_converts_back_to_its_difference_and_certainty_has_none():
    assert elo_difference(10 / 11) == pytest.approx(400)
    assert elo_difference(0.75) == pytest.approx(190.848501887865)  # 400·log10(3)
    assert elo_difference(0.5) == 0
    assert elo_difference(1.0) is None and elo_difference(0.0) is None


def test_one_nat_of_log_odds_is_400_over_ln_10_elo():
    assert math.isclose(ELO_PER_NAT, 173.71779276130073)
    assert expected_score(ELO_PER_NAT * math.log(3)) == pytest.approx(0.75)


def test_los_from_a_head_to_head_record():
    # Chess Programming Wiki, "Match Statistics": LOS = ½[1 + erf((W − L)/√(2(W + L)))], draws ignored.
    # 60 wins to 40 is two standard deviations: Φ(2) = 0.97725.
    assert los_from_results(60, 40) == pytest.approx(0.9772498680518208)
    assert los_from_results(40, 60) == pytest.approx(1 - 0.9772498680518208)
    assert los_from_results(7, 7) == 0.5
    assert los_from_results(0, 0) is None


def test_los_from_a_rating_difference_and_its_standard_error():
    assert los_from_ratings(20, 10) == pytest.approx(0.9772498680518208)  # Φ(2)
    assert los_from_ratings(0, 10) == 0.5
    assert los_from_ratings(5, 0) == 1.0 and los_from_ratings(-5, 0) == 0.0
