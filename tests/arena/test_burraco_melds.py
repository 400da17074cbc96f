"""Burraco melds as pure functions: what is a set, what is a sequence, where the wild goes."""

from __future__ import annotations

import pytest

from arena.games.burraco.melds import MeldError, check_meld, extend_meld, make_meld, meld_from_json


def meld(text: str, **kw):
    return make_meld(text.split(), team=0, meld_id=0, **kw)


def refused(text: str, **kw) -> str:
    with pytest.raises(MeldError) as err:
        meld(text, **kw)
    return err.value.rule


def grown(base, text: str, **kw):
    return extend_meld(base, text.split(), **kw)


def add_refused(base, text: str, **kw) -> str:
    with pytest.raises(MeldError) as err:
        grown(base, text, **kw)
    return err.value.rule


@pytest.mark.parametrize(("cards", "rule"), [
    ("5H X 7H 2C", "meld-two-wilds"),           # two wilds in a sequence
    ("6H 7H 8H 2H X", "meld-two-wilds"),        # the two of the suit far from its place is a second wild
    ("7H 7S X 2C", "meld-two-wilds"),           # two wilds in a set
    ("7H 7H 7S 7S 7D 7D 7C 7C X 2H", "set-too-large"),  # a set of ten
    ("KH AH 2H 3H", "sequence-wraps"),          # K-A-2 turns the corner
    ("AH KH AH", "sequence-wraps"),             # the ace both high and low
    ("QH KH AH 2H 3H 4H", "sequence-wraps"),
    ("X X X", "only-wilds"),
    ("2H 2S 2D", "only-wilds"),                 # twos are wild in a set, so a set of twos is all wilds
    ("5H 6H 9H", "sequence-gap"),
    ("5H 5H 6H", "sequence-duplicate"),
    ("7H 8S 9H", "sequence-suit"),
    ("7H X", "meld-too-small"),
])
def test_it_refuses_each_kind_of_illegal_meld(cards, rule):
    assert refused(cards) == rule


def test_a_set_holds_one_rank_duplicates_and_at_most_one_wild_listed_last():
    m = meld("7C 7H X 7H")
    assert m.kind == "set" and m.rank == "7"
    assert m.cards == ("7H", "7H", "7C", "X") and m.stands_for() == "7" and not m.clean


def test_a_set_of_nine_is_the_largest():
    m = meld("7H 7H 7S 7S 7D 7D 7C 7C X")
    assert len(m.cards) == 9 and m.is_burraco
    assert add_refused(meld("7H 7H 7S 7S 7D 7D 7C 7C"), "X 2C") == "set-too-large"


def test_a_natural_two_in_place_lets_the_sequence_hold_another_wild():
    m = meld("AH 2H 3H X")
    assert m.cards == ("AH", "2H", "3H", "X")
    assert m.stands_for() == "4H"
    assert m.wild == 3


def test_a_two_of_the_suit_out_of_place_is_the_wild():
    m = meld("3H 2H 5H")
    assert m.cards == ("3H", "2H", "5H") and m.stands_for() == "4H"
    # with a joker to fill the four, the two goes back to its own place and is natural again
    assert meld("3H 2H 5H X").cards == ("2H", "3H", "X", "5H")


def test_two_twos_of_the_suit_one_natural_one_wild():
    m = meld("2H 2H 3H 4H")
    assert m.cards == ("2H", "2H", "3H", "4H") and m.wild == 0 and m.stands_for() == "AH"


def test_aces_go_high_or_low():
    assert meld("QH KH AH").low == 12
    assert meld("AH 2H 3H").low == 1 and meld("AH 2H 3H").clean


def test_a_wild_at_an_end_goes_low_by_default_or_where_wild_as_says():
    assert meld("5H 6H X").stands_for() == "4H"
    assert meld("5H 6H X", wild_as="7H").stands_for() == "7H"
    assert meld("QH KH X").stands_for() == "JH"  # nothing above the ace... the low end it is
    assert meld("JH QH KH X").stands_for() == "TH"
    assert meld("JH QH KH X", wild_as="AH").cards == ("JH", "QH", "KH", "X")
    assert refused("5H 6H X", wild_as="9H") == "bad-wild-as"
    assert refused("7H 7S X", wild_as="8H") == "bad-wild-as"


def test_replacing_a_bound_wild_by_its_natural_card_moves_the_wild_to_an_end_high_when_both_are_free():
    base = meld("5H X 7H")
    assert base.stands_for() == "6H"
    m = grown(base, "6H")
    assert m.cards == ("5H", "6H", "7H", "X") and m.stands_for() == "8H"  # RULES.md §3: the high end
    assert grown(base, "6H", wild_as="4H").cards == ("X", "5H", "6H", "7H")
    # the high end is taken (the ace is high): the low end it is
    assert grown(meld("QH X AH"), "KH").cards == ("X", "QH", "KH", "AH")


def test_a_bound_wild_stays_put_unless_its_natural_card_comes():
    base = meld("5H X 7H")
    assert grown(base, "8H").cards == ("5H", "X", "7H", "8H")
    assert add_refused(base, "9H") == "sequence-gap"
    # its natural card and the one beyond together: the freed wild fills the new gap
    assert grown(base, "6H 9H").cards == ("5H", "6H", "7H", "X", "9H")


def test_a_free_wild_at_an_end_may_move_to_where_a_card_needs_it():
    base = meld("X 5H 6H")  # the wild stands for 4H, at the low end
    assert grown(base, "8H").cards == ("5H", "6H", "X", "8H")
    assert grown(base, "7H").cards == ("X", "5H", "6H", "7H")  # it stays when it can


def test_a_meld_never_takes_a_second_wild_or_a_wrong_card():
    assert add_refused(meld("5H X 7H"), "2C") == "meld-two-wilds"
    assert add_refused(meld("7H 7S X"), "X") == "meld-two-wilds"
    assert add_refused(meld("7H 7S 7D"), "8H") == "set-rank"
    assert add_refused(meld("5H 6H 7H"), "8S") == "sequence-suit"
    assert add_refused(meld("AH 2H 3H"), "KH") == "sequence-wraps"


def test_a_full_sequence_has_no_room_for_a_wild():
    two_to_ace = grown(meld("QH KH AH"), "2H 3H 4H 5H 6H 7H 8H 9H TH JH")  # the ace lies high on the table
    assert two_to_ace.low == 2 and two_to_ace.clean
    assert add_refused(two_to_ace, "X") == "sequence-full"


def test_a_natural_ace_to_king_takes_a_wild_as_the_fourteenth_card_for_the_high_ace():
    run = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
    m = grown(meld(run), "X")
    assert m.cards == (*run.split(), "X") and m.stands_for() == "AH" and m.low == 1 and len(m.cards) == 14
    check_meld(m)
    assert meld_from_json(m.to_json()).cards == m.cards and meld_from_json(m.to_json()).low == 1
    assert meld(run + " 2C").stands_for() == "AH"  # also as a new meld
    # a bound wild in an A-K run, freed by its natural card, goes to the only end left: the high ace
    bound = meld("AH 2H 3H 4H 5H 6H X 8H 9H TH JH QH KH")
    assert grown(bound, "7H").cards == (*run.split(), "X")
    # the high ace may be a wild only above a natural A-K: with a wild inside, no natural ace fits on top
    assert add_refused(bound, "AH") == "sequence-wraps"


@pytest.mark.parametrize(("table", "added", "result"), [
    # the three cases: each is a legal meld, so the add is legal (RULES.md §3, one rule)
    ("3H 4H 2H 6H", "5H X", ("X", "2H", "3H", "4H", "5H", "6H")),  # a new wild: low by default
    ("2C 5C 6C", "4C 2H", ("2C", "2H", "4C", "5C", "6C")),
    ("2H 4H 5H 6H", "X", ("2H", "X", "4H", "5H", "6H")),
])
def test_an_add_is_legal_exactly_when_the_cards_together_form_a_legal_meld(table, added, result):
    base = meld(table)
    assert base.wild is not None  # the two is the meld's wild on the table
    m = grown(base, added)
    assert m.cards == result
    assert meld(" ".join(result)).cards == m.cards  # the same cards are accepted as a new meld
    check_meld(m)


def test_a_natural_two_on_the_table_never_turns_wild():
    assert add_refused(meld("2C 3C 4C"), "6C") == "sequence-gap"
    assert meld("2C 3C 4C 6C").stands_for() == "5C"  # as a new meld the two may be the wild


def test_a_two_of_the_suit_freed_into_its_own_place_is_natural_again():
    base = meld("3H 4H 2H")
    assert base.clean and base.low == 2  # 2-3-4: the two is natural
    wild_two = meld("4H 2H 6H")  # the two stands for 5H
    m = grown(wild_two, "5H 3H")
    assert m.cards == ("2H", "3H", "4H", "5H", "6H") and m.clean


def test_burraco_and_points():
    clean = meld("3S 4S 5S 6S 7S 8S 9S")
    dirty = meld("3S 4S 5S X 7S 8S 9S")
    assert clean.is_burraco and clean.clean and clean.points() == 5 * 5 + 2 * 10
    assert dirty.is_burraco and not dirty.clean and dirty.points() == 5 * 4 + 30 + 2 * 10
    assert not meld("3S 4S 5S").is_burraco


@pytest.mark.parametrize("cards", ["5H X 7H", "AH 2H 3H X", "QH KH AH", "X 2H 3H", "7H 7S X", "2C JD QD KD",
                                   "AS 2S 3S"])
def test_melds_survive_the_round_trip_through_json_and_recheck(cards):
    m = meld(cards)
    check_meld(m)
    back = meld_from_json(m.to_json())
    assert (back.kind, back.cards, back.wild, back.low, back.rank, back.suit) == \
        (m.kind, m.cards, m.wild, m.low, m.rank, m.suit)
    assert m.to_json()["wild"] is None or m.to_json()["wild"]["stands_for"] == m.stands_for()


def test_check_meld_catches_corrupt_melds():
    from arena.games.burraco.melds import Meld
    with pytest.raises(MeldError):
        check_meld(Meld(0, 0, "sequence", ("5H", "7H", "8H"), None, suit="H", low=5))
    with pytest.raises(MeldError):
        check_meld(Meld(0, 0, "set", ("7H", "X", "X"), 2, rank="7"))
    with pytest.raises(MeldError):
        check_meld(Meld(0, 0, "sequence", ("AH", "2H", "3H"), 1, suit="H", low=1))
    with pytest.raises(MeldError):
        check_meld(Meld(0, 0, "sequence", ("AH", "KH"), None, suit="H", low=13))
