"""Knockout: standard seeding (1 v N), byes to the top seeds, favourites meeting as late as possible, and a
tied match broken by extra sets."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.pairing.knockout import Decision, Knockout, Tie, bracket_order
from tournaments.pairing.records import Pairing, Result


def test_bracket_order_is_the_standard_seeding():
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_a_full_field_pairs_one_against_n():
    ko = Knockout([f"s{i}" for i in range(1, 9)])
    assert ko.size == 8 and ko.rounds == 3
    assert [(t.top, t.bottom) for t in ko.first_round()] == [("s1", "s8"), ("s4", "s5"), ("s2", "s7"), ("s3", "s6")]


def test_byes_go_to_the_top_seeds():
    ko = Knockout(["s1", "s2", "s3", "s4", "s5", "s6"])
    assert [(t.top, t.bottom) for t in ko.first_round()] == [("s1", None), ("s4", "s5"), ("s2", None), ("s3", "s6")]
    assert ko.decide(Tie("s1", None), []) == Decision(winner="s1")


@given(st.integers(2, 70))
def test_every_bye_goes_to_a_top_seed_and_favourites_meet_only_in_the_final(n):
    entrants = list(range(1, n + 1))  # entrant k is seed k
    ko = Knockout(entrants)
    ties = ko.first_round()
    byes = sorted(t.top for t in ties if t.is_bye)
    assert byes == list(range(1, ko.size - n + 1))
    assert sorted(e for t in ties for e in (t.top, t.bottom) if e is not None) == entrants
    while len(ties) > 1:  # the better seed always wins
        ties = ko.next_round([min(e for e in (t.top, t.bottom) if e is not None) for t in ties])
    assert (ties[0].top, ties[0].bottom) == (1, 2)


def test_semi_finals_are_one_v_four_and_two_v_three_when_favourites_win():
    ko = Knockout(list(range(1, 9)))
    quarter = ko.next_round([1, 4, 2, 3])
    assert [(t.top, t.bottom) for t in quarter] == [(1, 4), (2, 3)]
    assert [(t.top, t.bottom) for t in ko.next_round([5, 1])] == [(1, 5)]  # the better seed is on top


def test_a_won_set_decides_the_match():
    ko = Knockout(["a", "b"])
    tie = ko.first_round()[0]
    assert ko.decide(tie, []) == Decision(winner=None, next_set=Pairing("a", "b"))
    assert ko.decide(tie, [Result(1, "a", "b", 0.0)]).winner == "b"


def test_a_tied_match_needs_a_tiebreak_set_with_seats_swapped():
    ko = Knockout(["a", "b"])
    tie = ko.first_round()[0]
    sets = [Result(1, "a", "b", 0.5, margin=12)]
    assert ko.decide(tie, sets) == Decision(winner=None, needs_tiebreak_set=True, next_set=Pairing("b", "a"))
    sets.append(Result(1, "b", "a", 1.0))
    assert ko.decide(tie, sets).winner == "b"


def test_endless_ties_go_to_the_point_difference_then_the_higher_seed():
    ko = Knockout(["a", "b"])
    tie = ko.first_round()[0]
    drawn = [Result(1, "a", "b", 0.5, margin=-4), Result(1, "b", "a", 0.5, margin=-6),
             Result(1, "a", "b", 0.5), Result(1, "b", "a", 0.5)]
    assert ko.decide(tie, drawn[:3]).needs_tiebreak_set
    # a: -4 + 6 = +2 over the four sets
    assert ko.decide(tie, drawn) == Decision(winner="a")
    level = [Result(1, "a", "b", 0.5)] * 2
    assert ko.decide(tie, level, max_tiebreak_sets=1) == Decision(winner="a")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bracket_order(6), "power of two"),
        (lambda: Knockout(["a"]), "at least 2"),
        (lambda: Knockout(["a", "b", "c"]).next_round(["a"]), "even number"),
        (lambda: Knockout(["a", "b"]).next_round(["a", "z"]), "'z' is not an entrant"),
        (lambda: Knockout(["a", "b", "c"]).decide(Tie("a", "b"), [Result(1, "a", "c", 1.0)]), "not part of"),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
