"""SPRT against known values.

The reference LLRs are fastchess's own test cases (Disservin/fastchess, app/tests/sprt_test.cpp), an
independent C++ implementation of the same generalized LLR fishtest uses (Van den Bergh; fishtest
server/fishtest/stats/LLRcalc.py). fastchess checks them to 1% (doctest Approx epsilon 0.01); so do we.
fastchess's `Stats(wins, losses, draws)` is our trinomial [L, D, W]; its `Stats(ll, ld, wl, dd, wd, ww)` is our
pentanomial [LL, LD, WL+DD, WD, WW]. Two of its cases (all draws; all WW) hinge on how empty cells are
regularized, where fastchess differs from fishtest; we follow fishtest and leave them out.
"""

import math

import pytest

from tournaments.pairing.sprt import CONTINUE, H0, H1, bounds, llr, pentanomial, sprt

FASTCHESS = [
    # (results, elo0, elo1, model, expected LLR)
    ([36027, 68692, 36433], 0, 2, "normalized", 0.92),
    ([10650, 20431, 10871], -1.75, 0.25, "normalized", 2.30),
    ([21184, 40708, 21404], 0.5, 2.5, "logistic", -1.57),
    ([57030, 106593, 57433], 0, 2, "logistic", -2.59),
    ([365, 16618, 36029 + 200, 16974, 390], 0, 2, "normalized", 2.25),
    ([127, 4883, 10311 + 401, 5150, 104], -1.75, 0.25, "normalized", 3.01),
    ([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, "logistic", -3.07),
    ([871, 26175, 55003 + 980, 26678, 821], 0, 2, "logistic", -4.98),
]


@pytest.mark.parametrize(("results", "elo0", "elo1", "model", "expected"), FASTCHESS)
def test_llr_matches_the_reference_values(results, elo0, elo1, model, expected):
    assert llr(results, elo0, elo1, model) == pytest.approx(expected, rel=0.01)


def test_wald_bounds_for_five_percent_errors():
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)
    assert bounds(0.01, 0.05) == pytest.approx((math.log(0.05 / 0.99), math.log(0.95 / 0.01)))


@pytest.mark.parametrize(
    ("index", "decision"),
    [(0, CONTINUE), (1, CONTINUE), (5, H1), (6, H0), (7, H0)],
)
def test_decisions_on_the_reference_results(index, decision):
    results, elo0, elo1, model, _ = FASTCHESS[index]
    state = sprt(results, elo0, elo1, alpha=0.05, beta=0.05, model=model)
    assert state.decision == decision
    assert state.samples == sum(results)


def test_a_clearly_better_version_is_accepted_and_a_clearly_worse_one_rejected():
    assert sprt([5, 20, 50, 60, 40], elo0=0, elo1=10).decision == H1
    assert sprt([40, 60, 50, 20, 5], elo0=0, elo1=10).decision == H0
    assert sprt([0, 0, 0, 0, 0]).llr == 0.0


def test_logistic_llr_is_antisymmetric_under_swapping_the_players():
    results, flipped = [30, 90, 200, 110, 25], [25, 110, 200, 90, 30]
    assert llr(results, -2, 5, "logistic") == pytest.approx(-llr(flipped, -5, 2, "logistic"), rel=1e-9)


def test_pentanomial_counts_pairs_by_total_score():
    assert pentanomial([(0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1), (1, 1)]) == [1, 1, 2, 1, 2]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: llr([1, 2]), "trinomial"),
        (lambda: llr([1, 2, -3]), "negative"),
        (lambda: llr([1, 2, 3], elo0=5, elo1=5), "elo0 must be below elo1"),
        (lambda: llr([1, 2, 3], model="bayes"), "unknown Elo model"),
        (lambda: bounds(alpha=0.7), "alpha"),
        (lambda: bounds(beta=0), "beta"),
        (lambda: pentanomial([(1, 2)]), "0, 0.5 or 1"),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
