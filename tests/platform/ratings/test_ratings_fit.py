"""The official rating: a Bradley–Terry fit checked against the literature, and the rules docs/ratings.md states."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from arena.referee import final_ranks
from ratings import fit as fit_module
from ratings.fit import PROVISIONAL_HALF_WIDTH, fit
from ratings.outcomes import MatchResult, Outcomes
from ratings.scale import ELO_PER_NAT, elo_difference

FLAT = 1e7  # a prior this wide leaves the maximum likelihood estimate, to compare with published MLEs


def two_player(record: list[tuple[str, str, float]], duplicate_sets: list | None = None) -> Outcomes:
    """(first, second, first's score) per match, ids 0..n-1."""
    ids = list(range(len(record)))
    first = [r[0] for r in record]
    second = [r[1] for r in record]
    return Outcomes.from_pairs(ids, first, second, [r[2] for r in record], duplicate_sets)


def results_of(record: list[tuple[str, str, float]]) -> dict[int, MatchResult]:
    out = {}
    for i, (a, b, s) in enumerate(record):
        ranks = (1, 2) if s == 1 else (2, 1) if s == 0 else (1, 1)
        out[i] = MatchResult(seats=(a, b), ranks=ranks)
    return out


def diff(ratings, a, b) -> float:
    return ratings.rating(a).rating - ratings.rating(b).rating


# ----------------------------------------------------------------------------------- known values


def test_journal_citations_match_the_published_bradley_terry_fit():
    # Stigler (1994) via Agresti, Categorical Data Analysis (2002) p. 448; BradleyTerry2's citeModel
    # (Turner & Firth 2012) reports log-abilities relative to Biometrika: Comm Statist −2.9491, JASA −0.4796,
    # JRSS-B 0.2690. A citation of journal A by journal B is a win of A over B.
    cited_by = {("Comm Statist", "Biometrika"): 33, ("JASA", "Biometrika"): 320, ("JRSS-B", "Biometrika"): 284,
                ("Biometrika", "Comm Statist"): 730, ("JASA", "Comm Statist"): 813, ("JRSS-B", "Comm Statist"): 276,
                ("Biometrika", "JASA"): 498, ("Comm Statist", "JASA"): 68, ("JRSS-B", "JASA"): 325,
                ("Biometrika", "JRSS-B"): 221, ("Comm Statist", "JRSS-B"): 17, ("JASA", "JRSS-B"): 142}
    record = [(winner, loser, 1.0) for (winner, loser), n in cited_by.items() for _ in range(n)]
    ratings = fit(two_player(record), prior_sd=FLAT, virtual_draws=0)
    for journal, published in (("Comm Statist", -2.9491), ("JASA", -0.4796), ("JRSS-B", 0.2690)):
        assert diff(ratings, journal, "Biometrika") / ELO_PER_NAT == pytest.approx(published, abs=5e-4)


def test_two_players_get_the_log_of_their_win_ratio():
    # Zermelo (1929), Bradley & Terry (1952): with two players the MLE odds are wins/losses.
    record = [("a", "b", 1.0)] * 7 + [("a", "b", 0.0)] * 3
    ratings = fit(two_player(record), prior_sd=FLAT, virtual_draws=0)
    assert diff(ratings, "a", "b") == pytest.approx(ELO_PER_NAT * math.log(7 / 3), abs=1e-3)
    # and its standard error is the inverse Fisher information 1/√(n·p·q) (φ = 1 with this few units)
    p = 0.7
    assert ratings.difference_sd("a", "b") == pytest.approx(ELO_PER_NAT / math.sqrt(10 * p * (1 - p)), rel=1e-4)
    assert ratings.dispersion == 1.0


def hunter_mm(players: list[str], record: list[tuple[str, str, float]], iterations: int = 5000) -> dict:
    """Hunter (2004), "MM algorithms for generalized Bradley–Terry models", eq. (3): γᵢ ← Wᵢ / Σⱼ nᵢⱼ/(γᵢ+γⱼ)."""
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    wins = np.zeros(n)
    games = np.zeros((n, n))
    for a, b, s in record:
        i, j = index[a], index[b]
        wins[i] += s
        wins[j] += 1 - s
        games[i, j] += 1
        games[j, i] += 1
    gamma = np.ones(n)
    for _ in range(iterations):
        gamma = wins / (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        gamma /= np.exp(np.log(gamma).mean())
    return {p: ELO_PER_NAT * math.log(gamma[i]) for p, i in index.items()}


def test_the_newton_fit_agrees_with_hunters_mm_algorithm():
    rng = random.Random(4)
    players = [f"v{i}" for i in range(8)]
    strength = {p: rng.gauss(0, 1) for p in players}
    record = []
    for _ in range(600):
        a, b = rng.sample(players, 2)
        win = rng.random() < 1 / (1 + math.exp(strength[b] - strength[a]))
        record.append((a, b, 1.0 if win else 0.0))
    ratings = fit(two_player(record), prior_sd=FLAT, virtual_draws=0)
    reference = hunter_mm(players, record)
    for p in players:
        assert diff(ratings, p, "v0") == pytest.approx(reference[p] - reference["v0"], abs=1e-3)


# ----------------------------------------------------------------------------------- the scale


def test_the_scale_is_anchored_at_a_mean_of_1500():
    record = [("a", "b", 1.0)] * 5 + [("b", "c", 1.0)] * 4 + [("c", "a", 0.5)] * 3 + [("a", "c", 0.0)]
    ratings = fit(two_player(record))
    values = [r.rating for r in ratings.table().values()]
    assert sum(values) / len(values) == pytest.approx(1500, abs=1e-9)


def test_a_perfect_record_stays_finite_and_provisional():
    ratings = fit(two_player([("a", "b", 1.0)] * 10))
    a, b = ratings.rating("a"), ratings.rating("b")
    assert math.isfinite(a.rating) and a.rating > b.rating
    assert a.rating - b.rating < 1000
    assert a.provisional and b.provisional


def test_enough_games_make_a_rating_established():
    rng = random.Random(8)
    record = [("a", "b", 1.0 if rng.random() < 0.6 else 0.0) for _ in range(400)]
    ratings = fit(two_player(record))
    assert not ratings.rating("a").provisional
    assert ratings.rating("a").half_width < PROVISIONAL_HALF_WIDTH
    few = fit(two_player(record[:5]))
    assert few.rating("a").provisional


# ----------------------------------------------------------------------------------- who gets a rating


def test_a_version_that_met_only_itself_or_nobody_has_no_rating():
    results = {1: MatchResult(seats=("a", "b"), ranks=(1, 2)),
               2: MatchResult(seats=("c", "c"), ranks=(1, 2)),  # c only ever met itself
               3: MatchResult(seats=("d", "e", "d", "e"), ranks=(1, 2, 1, 2), teams=((0, 2), (1, 3)))}
    ratings = fit(Outcomes.from_results(results))
    assert ratings.rating("c") is None and "c" not in ratings
    assert ratings.rating("nobody") is None
    assert ratings.rating("a") is not None and ratings.rating("d") is not None
    assert ratings.los("a", "c") is None and ratings.difference_sd("c", "a") is None
    pairs = Outcomes.from_pairs([1, 2], ["a", "c"], ["b", "c"], [1.0, 0.5])
    assert fit(pairs).rating("c") is None and "c" in pairs.players
    assert fit(Outcomes.from_results({})).rating("a") is None


def test_a_mixed_table_credits_only_the_real_opponents():
    # a sits on both sides of a 2-against-2 match (a+c against b+a): what is left is c against b
    results = {1: MatchResult(seats=("a", "b", "c", "a"), ranks=(1, 2, 1, 2), teams=((0, 2), (1, 3)))}
    outcomes = Outcomes.from_results(results)
    assert outcomes.rows == 1
    row = dict(zip(outcomes.players, outcomes.design.toarray()[0], strict=True))
    assert row["a"] == 0 and abs(row["b"]) == 0.5 and row["c"] == -row["b"]
    ratings = fit(outcomes)
    assert ratings.rating("a") is None
    assert ratings.rating("c").rating > ratings.rating("b").rating


# ----------------------------------------------------------------------------------- order, ids, units


def test_the_same_matches_in_any_order_give_identical_ratings():
    rng = random.Random(11)
    players = [f"v{i}" for i in range(12)]
    record = [(*rng.sample(players, 2), rng.choice([0.0, 0.5, 1.0])) for _ in range(500)]
    results = results_of(record)
    reference = fit(Outcomes.from_results(results)).table()
    items = list(results.items())
    for seed in range(3):
        random.Random(seed).shuffle(items)
        assert fit(Outcomes.from_results(dict(items))).table() == reference
    order = np.random.default_rng(5).permutation(len(record))
    shuffled = Outcomes.from_pairs(order, [record[i][0] for i in order], [record[i][1] for i in order],
                                   [record[i][2] for i in order])
    assert fit(shuffled).table() == reference  # the vectorised builder gives the very same fit


def test_a_match_reported_twice_is_counted_once():
    results = {7: MatchResult(seats=("a", "b"), ranks=(1, 2)), 8: MatchResult(seats=("b", "a"), ranks=(2, 1))}
    once = fit(Outcomes.from_results(results)).table()
    results[7] = MatchResult(seats=("a", "b"), ranks=(1, 2))  # the re-queued match reports again
    assert fit(Outcomes.from_results(results)).table() == once
    with pytest.raises(ValueError, match="match id 7 appears more than once"):
        Outcomes.from_pairs([7, 8, 7], ["a", "b", "a"], ["b", "a", "b"], [1.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="mapping of match id"):
        Outcomes.from_results([MatchResult(seats=("a", "b"), ranks=(1, 2))])


def test_a_duplicate_set_is_one_unit_and_its_cancelled_luck_narrows_the_interval():
    # 200 sets of two games with the seats swapped. When each set splits 1-1 (the deal decided both games)
    # the point estimate is the same as for 200 independent wins and 200 independent losses, but the set's
    # score is exactly ½ every time, so the dispersion collapses and the interval narrows.
    split = [("a", "b", 1.0), ("b", "a", 1.0)] * 200
    sets = [i // 2 for i in range(len(split))]
    as_sets = two_player(split, sets)
    as_games = two_player(split)
    assert as_sets.rows == 200 and as_games.rows == 400  # one outcome per set, of weight 2
    assert set(as_sets.score) == {0.5} and set(as_sets.weight) == {2.0}
    by_sets, by_games = fit(as_sets), fit(as_games)
    assert diff(by_sets, "a", "b") == pytest.approx(0, abs=1e-9)
    assert diff(by_games, "a", "b") == pytest.approx(0, abs=1e-9)
    mixed = [("a", "b", 1.0), ("b", "a", 1.0)] * 150 + [("a", "b", 1.0), ("b", "a", 0.0)] * 30 \
        + [("a", "b", 0.0), ("b", "a", 1.0)] * 20 + [("c", "a", 0.5), ("c", "b", 0.0)] * 40
    sets = [i // 2 for i in range(len(mixed))]
    grouped, loose = fit(two_player(mixed, sets)), fit(two_player(mixed))
    assert diff(grouped, "a", "b") == pytest.approx(diff(loose, "a", "b"), abs=0.5)
    assert grouped.dispersion < loose.dispersion
    assert grouped.difference_sd("a", "b") < loose.difference_sd("a", "b")


# ----------------------------------------------------------------------------------- ties, forfeits, teams


def test_a_draw_is_half_a_win():
    # 2 wins and 2 draws is a score of ¾: the rating difference is Elo's for ¾, 400·log10(3)
    record = [("a", "b", 1.0)] * 2 + [("a", "b", 0.5)] * 2
    ratings = fit(two_player(record), prior_sd=FLAT, virtual_draws=0)
    assert diff(ratings, "a", "b") == pytest.approx(elo_difference(0.75), abs=1e-3)
    level = fit(two_player([("a", "b", 0.5)] * 6))
    assert diff(level, "a", "b") == pytest.approx(0, abs=1e-9)


def test_draws_are_less_variable_than_coin_tosses_so_they_lower_the_dispersion():
    rng = random.Random(3)
    players = [f"v{i}" for i in range(6)]
    decisive = [(*rng.sample(players, 2), rng.choice([0.0, 1.0])) for _ in range(400)]
    drawish = [(a, b, 0.5 if rng.random() < 0.7 else s) for a, b, s in decisive]
    assert fit(two_player(drawish)).dispersion < 0.6 < fit(two_player(decisive)).dispersion


def test_a_forfeit_counts_as_the_loss_the_referee_ranks_it():
    # the referee ranks a forfeiting seat (and its partners) last; the fit takes those ranks as they are
    teams = [[0], [1]]
    forfeited = final_ranks([1, 2], teams, forfeited={0})  # seat 0 was ahead, then timed out
    assert forfeited == [2, 1]
    by_forfeit = {i: MatchResult(seats=("a", "b"), ranks=tuple(forfeited)) for i in range(3)}
    by_play = {i: MatchResult(seats=("a", "b"), ranks=(2, 1)) for i in range(3)}
    by_forfeit[9] = by_play[9] = MatchResult(seats=("a", "b"), ranks=(1, 2))
    assert fit(Outcomes.from_results(by_forfeit)).table() == fit(Outcomes.from_results(by_play)).table()


def test_a_team_of_one_bot_in_both_seats_rates_that_bot_like_a_two_player_game():
    pairs = {i: MatchResult(seats=("x", "y", "x", "y"), ranks=(1, 2, 1, 2) if i < 3 else (2, 1, 2, 1),
                            teams=((0, 2), (1, 3))) for i in range(4)}
    solo = {i: MatchResult(seats=("x", "y"), ranks=(1, 2) if i < 3 else (2, 1)) for i in range(4)}
    assert fit(Outcomes.from_results(pairs)).table() == fit(Outcomes.from_results(solo)).table()
    ratings = fit(Outcomes.from_results(pairs), prior_sd=FLAT, virtual_draws=0)
    assert diff(ratings, "x", "y") == pytest.approx(elo_difference(0.75), abs=1e-3)


def test_a_mixed_team_credits_both_of_its_bots():
    results = {i: MatchResult(seats=("a", "c", "b", "d"), ranks=(1, 2, 1, 2), teams=((0, 2), (1, 3)))
               for i in range(6)}
    results[99] = MatchResult(seats=("a", "c", "b", "d"), ranks=(2, 1, 2, 1), teams=((0, 2), (1, 3)))
    ratings = fit(Outcomes.from_results(results))
    a, b, c, d = (ratings.rating(p) for p in "abcd")
    assert a.rating == pytest.approx(b.rating) and c.rating == pytest.approx(d.rating)
    assert a.rating > c.rating
    assert a.games == pytest.approx(7)


def test_a_multi_seat_match_is_every_pair_of_seats_weighted_to_one_game_per_player():
    results = {1: MatchResult(seats=("a", "b", "c"), ranks=(1, 2, 3)),
               2: MatchResult(seats=("b", "c", "a"), ranks=(1, 1, 3))}
    outcomes = Outcomes.from_results(results)
    assert outcomes.rows == 6 and set(outcomes.weight) == {0.5}
    ratings = fit(outcomes)
    assert all(ratings.rating(p).games == pytest.approx(2) for p in "abc")
    # b beat c once and drew once; a beat both once and lost to both once
    assert ratings.rating("b").rating > ratings.rating("c").rating


def test_bad_results_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="one rank per seat"):
        Outcomes.from_results({1: MatchResult(seats=("a", "b"), ranks=(1,))})
    with pytest.raises(ValueError, match="different ranks"):
        Outcomes.from_results({1: MatchResult(seats=("a", "b", "c", "d"), ranks=(1, 2, 2, 1),
                                              teams=((0, 2), (1, 3)))})
    with pytest.raises(ValueError, match="exactly once"):
        Outcomes.from_results({1: MatchResult(seats=("a", "b", "c"), ranks=(1, 2, 3), teams=((0, 1), (1, 2)))})
    with pytest.raises(ValueError, match="every score"):
        Outcomes.from_pairs([1], ["a"], ["b"], [0.7])
    with pytest.raises(ValueError, match="same length"):
        Outcomes.from_pairs([1, 2], ["a"], ["b"], [1.0])
    with pytest.raises(TypeError, match="sortable"):
        Outcomes.from_results({1: MatchResult(seats=("a", 2), ranks=(1, 2))})


# ----------------------------------------------------------------------------------- intervals, LOS, speed-ups


def simulated(n_players: int, games: int, seed: int) -> Outcomes:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_players)
    a = rng.integers(0, n_players, games)
    b = rng.integers(0, n_players, games)
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    return Outcomes.from_pairs(np.arange(games), a, b, (rng.random(games) < p).astype(float))


def test_los_is_the_normal_probability_of_a_positive_difference():
    ratings = fit(simulated(20, 800, 1))
    for a, b in ((0, 1), (3, 7), (5, 5)):
        d = ratings.rating(a).rating - ratings.rating(b).rating
        sd = ratings.difference_sd(a, b)
        expected = 0.5 if a == b else 0.5 * (1 + math.erf(d / (sd * math.sqrt(2))))
        assert ratings.los(a, b) == pytest.approx(expected)
        assert ratings.los(a, b) + ratings.los(b, a) == pytest.approx(1)


def test_intervals_cover_the_true_difference_about_95_times_in_100():
    rng = np.random.default_rng(12)
    covered = 0
    for trial in range(100):
        p = 1 / (1 + math.exp(-0.5))
        wins = (rng.random(300) < p).astype(float)
        outcomes = Outcomes.from_pairs(np.arange(300), ["a"] * 300, ["b"] * 300, wins)
        ratings = fit(outcomes, prior_sd=FLAT, virtual_draws=0)
        d = diff(ratings, "a", "b")
        covered += abs(d - 0.5 * ELO_PER_NAT) <= 1.959963984540054 * ratings.difference_sd("a", "b")
        assert trial >= 0
    assert 88 <= covered <= 99


def test_a_warm_start_reaches_the_same_ratings_in_fewer_iterations():
    outcomes = simulated(60, 3000, 2)
    cold = fit(outcomes)
    warm = fit(outcomes, previous=cold.elo())
    assert warm.iterations < cold.iterations
    for p, value in cold.elo().items():
        assert warm.elo()[p] == pytest.approx(value, abs=1e-3)


def test_the_sparse_path_for_large_pools_agrees_with_the_exact_one(monkeypatch):
    outcomes = simulated(400, 20000, 3)
    exact = fit(outcomes)
    monkeypatch.setattr(fit_module, "DENSE_LIMIT", 50)
    sparse = fit(outcomes)
    for p in list(exact.elo())[:50]:
        e, s = exact.rating(p), sparse.rating(p)
        assert s.rating == pytest.approx(e.rating, abs=1e-3)
        assert s.half_width == pytest.approx(e.half_width, rel=0.05)
    assert sparse.los(0, 1) == pytest.approx(exact.los(0, 1), abs=1e-6)
    assert sparse.difference_sd(0, 1) == pytest.approx(exact.difference_sd(0, 1), rel=1e-6)


def random_table_results(seed: int, matches: int) -> dict[int, MatchResult]:
    """Mixed presets: 2 seats, 3 seats, and 2-against-2 teams (sometimes one bot per team), in duplicate sets."""
    rng = random.Random(seed)
    players = [f"v{i}" for i in range(9)]
    results = {}
    for i in range(matches):
        kind = rng.choice(["solo", "three", "pairs", "one-bot-teams"])
        if kind == "solo":
            seats, teams = rng.sample(players, 2), None
        elif kind == "three":
            seats, teams = rng.sample(players, 3), None
        elif kind == "pairs":
            seats, teams = rng.sample(players, 4), ((0, 2), (1, 3))
        else:
            x, y = rng.sample(players, 2)
            seats, teams = [x, y, x, y], ((0, 2), (1, 3))
        if teams is None:
            ranks = [rng.randint(1, len(seats)) for _ in seats]
        else:
            first, second = rng.choice([(1, 2), (2, 1), (1, 1)])
            ranks = [first, second, first, second]
        results[1000 + i] = MatchResult(seats=tuple(seats), ranks=tuple(ranks), teams=teams, duplicate_set=i // 3)
    return results


def test_seat_arrays_give_exactly_what_match_results_give():
    results = random_table_results(6, 300)
    by_results = Outcomes.from_results(results)
    match_ids, players, ranks, teams, sets = [], [], [], [], []
    for match_id, result in results.items():
        team_of = {seat: t for t, group in enumerate(result.teams or [[s] for s in range(len(result.seats))])
                   for seat in group}
        for seat, player in enumerate(result.seats):
            match_ids.append(match_id)
            players.append(player)
            ranks.append(result.ranks[seat])
            teams.append(team_of[seat])
            sets.append(result.duplicate_set)
    order = np.random.default_rng(1).permutation(len(match_ids))  # seat rows in any order
    by_seats = Outcomes.from_seats(*(np.array(x)[order] for x in (match_ids, players, ranks, teams, sets)))
    assert by_seats.players == by_results.players
    assert (by_seats.design != by_results.design).nnz == 0
    assert np.array_equal(by_seats.score, by_results.score) and np.array_equal(by_seats.weight, by_results.weight)
    assert fit(by_seats).table() == fit(by_results).table()


def test_every_outcome_compares_sides_whose_coefficients_cancel():
    outcomes = Outcomes.from_results(random_table_results(2, 200))
    assert np.allclose(np.asarray(outcomes.design.sum(axis=1)).ravel(), 0)
    assert set(np.round(np.abs(outcomes.design.data), 12)) <= {0.5, 1.0}
    assert outcomes.design.nnz > 0 and np.all(outcomes.design.data != 0)


def test_bad_seat_arrays_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="one entry per seat"):
        Outcomes.from_seats([1, 1], ["a"], [1, 2])
    with pytest.raises(ValueError, match="match 4: seats of one team have different ranks"):
        Outcomes.from_seats([4, 4, 4, 4], ["a", "b", "c", "d"], [1, 2, 2, 1], teams=[0, 1, 0, 1])
    with pytest.raises(ValueError, match="match 5: needs at least two sides"):
        Outcomes.from_seats([5, 5], ["a", "b"], [1, 1], teams=[0, 0])


def test_two_virtual_draws_per_version_keep_a_perfect_record_at_a_known_value():
    # a and b met only each other: each spreads its 2 virtual draws over that one comparison, so the
    # comparison carries 2 draws; 10 wins + 2 draws is a score of 11/12, i.e. 400·log10(11) ≈ 416.6 Elo
    ratings = fit(two_player([("a", "b", 1.0)] * 10), prior_sd=FLAT)
    assert diff(ratings, "a", "b") == pytest.approx(400 * math.log10(11), abs=1e-3)


def test_the_dispersion_is_pearsons_statistic_over_its_degrees_of_freedom():
    outcomes = simulated(10, 600, 9)
    ratings = fit(outcomes)
    theta = {p: (ratings.rating(p).rating - 1500) / ELO_PER_NAT for p in outcomes.players}
    x = outcomes.design.toarray() @ np.array([theta[p] for p in outcomes.players])
    p = 1 / (1 + np.exp(-x))
    pearson = np.sum(outcomes.weight * (outcomes.score - p) ** 2 / (p * (1 - p)))
    assert ratings.dispersion == pytest.approx(pearson / (outcomes.rows - 10), rel=1e-6)


def test_los_for_many_pairs_matches_one_at_a_time_and_is_close_on_the_sparse_path(monkeypatch):
    outcomes = simulated(300, 15000, 4)
    exact = fit(outcomes)
    order = sorted(exact.elo(), key=lambda p: -exact.elo()[p])
    neighbours = [*itertools.pairwise(order), (order[0], "nobody"), (order[3], order[3])]
    many = exact.los_many(neighbours)
    assert many[-2] is None and many[-1] == 0.5
    for (a, b), value in zip(neighbours[:-2], many[:-2], strict=True):
        assert value == pytest.approx(exact.los(a, b), abs=1e-12)
    monkeypatch.setattr(fit_module, "DENSE_LIMIT", 50)
    approximate = fit(outcomes).los_many(neighbours[:-2])
    assert np.allclose(approximate, many[:-2], atol=2e-3)
