"""The official intervals' dispersion is clustered by unit — a match, or a duplicate set (docs/ratings.md).

The comparisons of one multi-seat match are not separate games: the seat that finished first won all of
them. Counted as independent, they made the 95% intervals of a 6-seat preset cover the true ratings about
80% of the time; clustered by match they cover 95% (bench/ratings_coverage.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import sparse

from ratings.fit import fit
from ratings.outcomes import Outcomes
from ratings.scale import BASE, ELO_PER_NAT

VERSIONS = 16


def free_for_all(seats: int, matches: int, spread: float, rng: np.random.Generator):
    """True ratings (Elo, mean 0) and seat arrays of ``matches`` free-for-all matches among 16 versions.

    Every seat's performance is its rating plus Gumbel noise and the ranks follow it (a Plackett–Luce
    ranking), so every pair of seats is ordered with the Bradley–Terry odds the fit assumes.
    """
    true = np.linspace(-spread / 2, spread / 2, VERSIONS)
    table = np.argsort(rng.random((matches, VERSIONS)), axis=1)[:, :seats]
    performance = true[table] / ELO_PER_NAT + rng.gumbel(size=table.shape)
    ranks = 1 + np.argsort(np.argsort(-performance, axis=1), axis=1)
    match_ids = np.repeat(np.arange(matches), seats)
    return true, (match_ids, table.ravel(), ranks.ravel(), np.tile(np.arange(seats), matches), match_ids)


def with_units(match_ids, players, ranks, teams, units) -> tuple[Outcomes, np.ndarray]:
    """The builder's outcomes and each row's unit: every version gets a key of its own in every unit, so each
    row's unit is read off its columns; the keys are then folded back onto the versions."""
    built = Outcomes.from_seats(match_ids, units * VERSIONS + players, ranks, teams, units)
    keys = np.asarray(built.players)
    design = built.design.tocsr()
    row_unit = keys[design.indices[design.indptr[:-1]]] // VERSIONS
    fold = sparse.csr_matrix((np.ones(len(keys)), (np.arange(len(keys)), keys % VERSIONS)),
                             shape=(len(keys), VERSIONS))
    folded = (design @ fold).tocsr()
    pattern = np.unique(folded.toarray(), axis=0, return_inverse=True)[1].ravel()
    return Outcomes(tuple(range(VERSIONS)), folded, built.score, built.weight, pattern), row_unit


def per_comparison(outcomes: Outcomes):
    """The fit with every outcome row its own unit: the estimate from before the units were clustered."""
    return fit(outcomes, units=np.arange(outcomes.rows))


def half_widths(ratings) -> np.ndarray:
    return np.array([ratings.rating(v).half_width for v in range(VERSIONS)])


def figures(ratings) -> np.ndarray:
    """Every rated player's rating and interval, in the players' order."""
    return np.array([(r.rating, r.low, r.high) for r in ratings.table().values() if r is not None])


def test_the_recovered_units_are_the_builders_own_outcomes():
    _, seats = free_for_all(4, 300, 400, np.random.default_rng(1))
    outcomes, units = with_units(*seats)
    built = Outcomes.from_seats(*seats)
    assert figures(per_comparison(outcomes)) == pytest.approx(figures(per_comparison(built)), abs=1e-9)
    assert len(set(units)) == 300 and outcomes.rows == built.rows == 300 * 6


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_a_k_seat_match_widens_the_intervals_by_its_design_effect(seats):
    # Between near-equal versions the number of opponents a seat beats is uniform on 0..k−1, variance
    # (k² − 1)/12, against (k − 1)/4 for as many separate games: a unit's score varies (k + 1)/3 times as
    # much as its comparisons counted one by one. The clustered dispersion finds it; the ratings stay put.
    _, arrays = free_for_all(seats, 60 * VERSIONS // seats, 200, np.random.default_rng(seats))
    outcomes, units = with_units(*arrays)
    clustered, separate = fit(outcomes, units=units), per_comparison(outcomes)
    effect = (seats + 1) / 3
    assert clustered.dispersion / separate.dispersion == pytest.approx(effect, rel=0.03)
    ratio = half_widths(clustered) / half_widths(separate)
    # the prior's virtual draws are not scaled by φ, so the widening is a little under √effect
    assert np.all(ratio <= np.sqrt(effect) + 1e-9) and np.all(ratio >= 0.97 * np.sqrt(effect))
    assert clustered.elo() == separate.elo()


def test_six_seat_intervals_cover_the_true_ratings():
    # 30 six-seat presets of 16 versions 600 Elo apart, 40 matches each: the per-comparison intervals
    # covered about 80% of the true ratings (relative to their mean, the fit's anchor), the clustered 95%
    rng = np.random.default_rng(2026)
    covered = {"clustered": [], "per comparison": []}
    for _ in range(30):
        true, arrays = free_for_all(6, 40 * VERSIONS // 6, 600, rng)
        outcomes, units = with_units(*arrays)
        for name, ratings in (("clustered", fit(outcomes, units=units)), ("per comparison", per_comparison(outcomes))):
            error = np.array([ratings.rating(v).rating - BASE for v in range(VERSIONS)]) - (true - true.mean())
            covered[name].extend(np.abs(error) <= half_widths(ratings))
    assert np.mean(covered["clustered"]) >= 0.93
    assert np.mean(covered["per comparison"]) <= 0.85


def test_two_sided_matches_and_duplicate_pairs_keep_the_per_row_statistic():
    # a two-sided match is one comparison, and the two games of a duplicate pair (the same versions, seats
    # swapped) merge into one row: every unit is one row, and clustering changes nothing
    rng = np.random.default_rng(5)
    table = np.repeat(np.argsort(rng.random((200, VERSIONS)), axis=1)[:, :2], 2, axis=0)
    table[1::2] = table[1::2, ::-1]
    score = rng.choice([0.0, 0.5, 1.0], 400)
    ranks = np.stack([np.where(score == 0, 2, 1), np.where(score == 1, 2, 1)], axis=1)  # a draw: 1 and 1
    match_ids = np.repeat(np.arange(400), 2)
    for unit in (match_ids, match_ids // 2):  # lone matches, then duplicate pairs
        outcomes, units = with_units(match_ids, table.ravel(), ranks.ravel(), np.tile([0, 1], 400), unit)
        assert outcomes.rows == len(set(units))
        assert figures(fit(outcomes, units=units)) == pytest.approx(figures(per_comparison(outcomes)), abs=1e-9)


def test_the_clustered_dispersion_is_each_units_squared_score_over_its_expectation():
    _, arrays = free_for_all(3, 60, 300, np.random.default_rng(3))
    outcomes, units = with_units(*arrays)
    ratings = fit(outcomes, units=units)
    theta = np.array([(ratings.rating(v).rating - BASE) / ELO_PER_NAT for v in range(VERSIONS)])
    x = outcomes.design.toarray()
    p = 1 / (1 + np.exp(-(x @ theta)))
    pearson = 0.0
    for unit in np.unique(units):
        rows = units == unit
        u = (outcomes.weight[rows] * (outcomes.score[rows] - p[rows])) @ x[rows]
        expected = np.sum(outcomes.weight[rows] * p[rows] * (1 - p[rows]) * (x[rows] ** 2).sum(axis=1))
        pearson += u @ u / expected
    # a 3-seat match holds 2 independent comparisons: 60 units, 120 comparisons, 16 ratings fitted
    assert ratings.dispersion == pytest.approx(pearson / (60 * (1 - VERSIONS / 120)), rel=1e-9)


def test_units_the_outcomes_record_are_used_and_a_wrong_count_is_refused():
    _, arrays = free_for_all(4, 200, 300, np.random.default_rng(4))
    outcomes, units = with_units(*arrays)

    @dataclasses.dataclass(frozen=True)
    class Recorded(Outcomes):
        unit: np.ndarray | None = None  # what a builder that records each row's unit gives

    recorded = Recorded(outcomes.players, outcomes.design, outcomes.score, outcomes.weight, outcomes.pattern, units)
    assert fit(recorded).table() == fit(outcomes, units=units).table()
    assert fit(recorded).dispersion > 1.5 * per_comparison(outcomes).dispersion
    with pytest.raises(ValueError, match="units: 10 labels for 1200 outcome rows"):
        fit(outcomes, units=units[:10])


def test_the_builders_record_each_rows_unit_so_the_sites_refit_is_clustered():
    # What refit_preset fits: the builder's outcomes as they are, with no units passed.
    _, arrays = free_for_all(6, 60 * VERSIONS // 6, 200, np.random.default_rng(6))
    outcomes, units = with_units(*arrays)
    built = Outcomes.from_seats(*arrays)
    assert built.unit is not None and len(np.unique(built.unit)) == len(np.unique(units))
    assert fit(built).dispersion == pytest.approx(fit(outcomes, units=units).dispersion, rel=1e-9)
    assert fit(built).dispersion > 1.5 * per_comparison(built).dispersion
    pairs = Outcomes.from_pairs([0, 1, 2], [0, 1, 2], [1, 2, 0], [1.0, 0.0, 0.5], duplicate_set=["a", "a", "b"])
    assert pairs.unit is not None and len(pairs.unit) == pairs.rows
