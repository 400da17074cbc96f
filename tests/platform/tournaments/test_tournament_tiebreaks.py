"""Tie-breaks on worked examples (definitions after FIDE Handbook C.07, Tie-Break Regulations; see
docs/tournaments.md). Each example is computed by hand in its comments."""

from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.pairing.records import Result, bye
from tournaments.pairing.tiebreaks import crosstable, standings


def table(rows):
    return [(s.rank, s.entrant, s.points, s.buchholz, s.sonneborn_berger, s.head_to_head, s.point_difference)
            for s in rows]


def test_sonneborn_berger_separates_equal_points_and_buchholz():
    # Round robin of four. A: beat D, lost to B, beat C = 2. B: drew C, beat A, drew D = 2. C: 1.5. D: 0.5.
    # Buchholz (opponents' points): A = B2 + C1.5 + D0.5 = 4 = B's (A2 + C1.5 + D0.5).
    # Sonneborn-Berger: A = D0.5 + C1.5 (two wins) = 2.0; B = A2 (win) + C1.5/2 + D0.5/2 = 3.0.
    results = [
        Result(1, "A", "D", 1.0), Result(1, "B", "C", 0.5),
        Result(2, "D", "C", 0.0), Result(2, "A", "B", 0.0),
        Result(3, "B", "D", 0.5), Result(3, "C", "A", 0.0),
    ]
    # C: opponents B2 + D0.5 + A2 = 4.5; SB drew B (2/2) + beat D (0.5) = 1.5.
    # D: opponents A2 + C1.5 + B2 = 5.5; SB drew B (2/2) = 1.0.
    assert table(standings(["A", "B", "C", "D"], results)) == [
        (1, "B", 2.0, 4.0, 3.0, 0.0, 0.0),
        (2, "A", 2.0, 4.0, 2.0, 0.0, 0.0),
        (3, "C", 1.5, 4.5, 1.5, 0.0, 0.0),
        (4, "D", 0.5, 5.5, 1.0, 0.0, 0.0),
    ]


def test_head_to_head_separates_what_points_buchholz_and_sonneborn_berger_cannot():
    # Round robin of four: A beat B, drew C, lost to D; B beat C, drew D; C drew D.
    # Points A 1.5, B 1.5, C 1, D 2. Buchholz A = B1.5 + C1 + D2 = 4.5 = B's (A1.5 + C1 + D2).
    # SB A = B1.5 + C1/2 = 2.0; B = C1 + D2/2 = 2.0. A beat B, so A is ahead on head-to-head (1 to 0).
    results = [
        Result(1, "A", "B", 1.0), Result(1, "C", "D", 0.5),
        Result(2, "A", "C", 0.5), Result(2, "B", "D", 0.5),
        Result(3, "D", "A", 1.0), Result(3, "B", "C", 1.0),
    ]
    rows = table(standings(["A", "B", "C", "D"], results))
    assert rows[1:3] == [(2, "A", 1.5, 4.5, 2.0, 1.0, 0.0), (3, "B", 1.5, 4.5, 2.0, 0.0, 0.0)]
    assert [r[1] for r in rows] == ["D", "A", "B", "C"]


def test_duplicate_point_difference_is_the_last_tiebreak():
    # A and B draw each other and both beat C and D; C beats D. Points A 2.5, B 2.5, C 1, D 0.
    # Buchholz A = B2.5 + C1 + D0 = 3.5 = B's; SB A = B2.5/2 + C1 + D0 = 2.25 = B's; head-to-head 0.5 each.
    # Margins: A 0 + 30 + 20 = 50; B 0 + 50 + 15 = 65, so B is first.
    results = [
        Result(1, "A", "B", 0.5, margin=0), Result(1, "C", "D", 1.0, margin=5),
        Result(2, "A", "C", 1.0, margin=30), Result(2, "B", "D", 1.0, margin=50),
        Result(3, "D", "A", 0.0, margin=-20), Result(3, "B", "C", 1.0, margin=15),
    ]
    rows = table(standings(["A", "B", "C", "D"], results))
    assert rows[:2] == [(1, "B", 2.5, 3.5, 2.25, 0.5, 65.0), (2, "A", 2.5, 3.5, 2.25, 0.5, 50.0)]


def test_a_bye_counts_as_a_dummy_opponent_with_the_entrants_own_points_in_buchholz():
    # Three entrants, two rounds. R1: A beat B, C bye. R2: C drew A, B bye.
    # Points: A 1.5, C 1 + 0.5 = 1.5, B 0 + 1 = 1.
    # Buchholz: A = B1 + C1.5 = 2.5; C = A1.5 + own 1.5 (bye) = 3.0; B = A1.5 + own 1 (bye) = 2.5.
    # SB: A = B1 + C1.5/2 = 1.75; C = A1.5/2 = 0.75 (the bye adds nothing); B = 0.
    results = [Result(1, "A", "B", 1.0), bye(1, "C"), Result(2, "C", "A", 0.5), bye(2, "B")]
    assert table(standings(["A", "B", "C"], results)) == [
        (1, "C", 1.5, 3.0, 0.75, 0.0, 0.0),
        (2, "A", 1.5, 2.5, 1.75, 0.0, 0.0),
        (3, "B", 1.0, 2.5, 0.0, 0.0, 0.0),
    ]


def test_head_to_head_is_skipped_when_the_tied_entrants_have_not_all_met():
    # Swiss-like: A and B level on everything and never met: no head-to-head, they share the rank.
    results = [Result(1, "A", "C", 1.0), Result(1, "B", "D", 1.0)]
    rows = standings(["A", "B", "C", "D"], results)
    assert [(s.rank, s.entrant, s.head_to_head) for s in rows] == [(1, "A", 0.0), (1, "B", 0.0), (3, "C", 0.0),
                                                                   (3, "D", 0.0)]


def test_crosstable_lists_points_per_opponent_in_round_order():
    results = [Result(2, "B", "A", 0.5), Result(1, "A", "B", 1.0), bye(3, "A")]
    assert crosstable(["A", "B"], results) == {"A": {"B": [1.0, 0.5]}, "B": {"A": [0.0, 0.5]}}


@pytest.mark.parametrize("call", [lambda: standings(["A"], [Result(1, "A", "Z", 1.0)]),
                                  lambda: crosstable(["A"], [Result(1, "Z", "A", 1.0)])])
def test_results_naming_strangers_are_refused(call):
    with pytest.raises(ValueError, match="'Z', who is not an entrant"):
        call()


@given(st.integers(2, 8).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.sampled_from([0.0, 0.5, 1.0]),
                                                                           min_size=n * (n - 1) // 2,
                                                                           max_size=n * (n - 1) // 2))))
def test_round_robin_standings_are_ordered_and_consistent(case):
    n, scores = case
    entrants = list(range(n))
    results = [Result(1, a, b, s) for (a, b), s in zip(combinations(entrants, 2), scores, strict=True)]
    rows = standings(entrants, results)
    assert sorted(r.entrant for r in rows) == entrants
    keys = [r.key() for r in rows]
    assert keys == sorted(keys, reverse=True)
    assert sum(r.points for r in rows) == n * (n - 1) / 2
    for earlier, later in pairwise(rows):
        assert (earlier.rank == later.rank) == (earlier.key() == later.key())
    # in a round robin everyone met everyone: Buchholz is the field's points minus one's own
    assert all(r.buchholz == n * (n - 1) / 2 - r.points for r in rows)
