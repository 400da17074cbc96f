"""Cards, decks and the pinned seeded shuffle."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import (
    BURRACO_DECK,
    DECK_24,
    DECK_32,
    DECK_32_NO_SEVENS,
    DECK_36,
    CardError,
    SeededRandom,
    _shuffled_one_by_one,
    check_seed,
    derive_seed,
    parse_card,
    parse_cards,
    rank,
    shuffled,
    suit,
)

# Known seed -> first twelve cards of a shuffled 36-card deck. These are fixed forever: a change here
# means every stored replay and every server match would deal differently.
KNOWN_DEALS = {
    0: "QS 7H QC 6S KH AD JC QD TS AS 6D 6H",
    1: "JD TH 6C JH 9D TS 7H TC 6H 7C 6D JS",
    42: "AS TS 9C TC QS 8C 7C KD 9D 7S AC 7H",
    2**64 - 1: "9S 9C 8D KH KS TS 8H AS 6C QH AH TC",
}


@pytest.mark.parametrize("seed", sorted(KNOWN_DEALS))
def test_it_deals_the_pinned_cards_for_known_seeds(seed):
    assert " ".join(shuffled(DECK_36, seed)[:12]) == KNOWN_DEALS[seed]


def test_it_pins_derived_seeds_and_the_burraco_shuffle():
    assert derive_seed(7, 1) == 6951516134914417455
    assert derive_seed(7, 2) == 4475407204413981578
    assert " ".join(shuffled(BURRACO_DECK, 2026)[:10]) == "JC 3S JS 6C 7S AD 6D KH 3C QC"


def test_decks_have_the_right_sizes_and_no_duplicates_except_burraco():
    assert len(DECK_36) == len(set(DECK_36)) == 36
    assert len(DECK_32) == len(set(DECK_32)) == 32 and not any(c[0] == "6" for c in DECK_32)
    assert len(DECK_24) == 24 and {c[0] for c in DECK_24} == set("AKQJT9")
    assert len(DECK_32_NO_SEVENS) == 32 and not any(c[0] == "7" for c in DECK_32_NO_SEVENS)
    counts = Counter(BURRACO_DECK)
    assert len(BURRACO_DECK) == 108 and counts["X"] == 4 and counts["AS"] == 2 and len(counts) == 53


def test_a_shuffle_is_a_permutation_and_leaves_the_input_alone():
    deck = list(DECK_36)
    out = shuffled(deck, 123)
    assert sorted(out) == sorted(DECK_36) and deck == list(DECK_36) and out != deck


def test_below_is_in_range_and_roughly_uniform():
    rng = SeededRandom(5)
    counts = Counter(rng.below(6) for _ in range(6000))
    assert set(counts) == set(range(6)) and all(800 < n < 1200 for n in counts.values())
    with pytest.raises(ValueError):
        rng.below(0)


@pytest.mark.parametrize("text", ["AS", "TD", "6C", "2H", "X"])
def test_it_parses_valid_cards(text):
    assert parse_card(text) == text


@pytest.mark.parametrize(("text", "message"), [
    ("10S", "a rank"), ("1S", "unknown rank '1'"), ("AZ", "unknown suit 'Z'"), ("as", "unknown rank 'a'"),
    ("", "a rank"), ("XX", "unknown rank"), (5, "must be a string"), (None, "must be a string"),
])
def test_it_rejects_bad_cards_with_a_clear_error(text, message):
    with pytest.raises(CardError, match=message):
        parse_card(text)


def test_parse_cards_accepts_lists_and_strings():
    assert parse_cards("AS TD") == ["AS", "TD"]
    assert parse_cards(["X", "6C"]) == ["X", "6C"]
    with pytest.raises(CardError, match="list of card strings"):
        parse_cards({"AS": 1})


def test_rank_and_suit_read_the_text():
    assert rank("TD") == "T" and suit("TD") == "D" and suit("X") == ""


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "3"])
def test_it_rejects_bad_seeds(seed):
    with pytest.raises(CardError):
        check_seed(seed)


def test_a_huge_bad_card_gives_a_short_error():
    with pytest.raises(CardError) as caught:
        parse_card("Z" * 200_000)
    assert len(str(caught.value)) < 200 and "200000 characters" in str(caught.value)


# -- the fast shuffle is the specified one -----------------------------------------------------------------
MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def _unshift(value: int, shift: int) -> int:
    """The inverse of ``value ^ (value >> shift)`` on 64 bits."""
    result, step = value, shift
    while step < 64:
        result ^= value >> step
        step += shift
    return result & MASK


def seed_whose_first_draw_is(wanted: int) -> int:
    """SplitMix64's output function is a bijection: the seed whose first draw is ``wanted``."""
    z = _unshift(wanted, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    state = _unshift(z, 30)
    return (state - GAMMA) & MASK


@given(seed=st.integers(0, MASK), size=st.sampled_from([2, 3, 5, 24, 32, 36, 52, 54, 108]))
@settings(max_examples=300, deadline=None)
def test_the_all_at_once_shuffle_deals_as_the_one_draw_at_a_time_specification(seed, size):
    cards = [f"c{i}" for i in range(size)]
    assert shuffled(cards, seed) == _shuffled_one_by_one(cards, seed)


def test_a_rejected_draw_is_drawn_again_as_the_specification_says():
    # Three cards: the first draw is below 3, and of 2**64 draws only the last (2**64 - 1) is rejected, as it
    # would make 0 one draw likelier than 1 and 2. The seed that draws it first:
    seed = seed_whose_first_draw_is(MASK)
    assert SeededRandom(seed).next_u64() == MASK
    cards = ["a", "b", "c"]
    dealt = shuffled(cards, seed)
    assert dealt == _shuffled_one_by_one(cards, seed)
    draws = SeededRandom(seed)
    draws.next_u64()  # the rejected draw
    expected = list(cards)
    last = draws.next_u64() % 3  # drawn again: where the last card goes
    expected[2], expected[last] = expected[last], expected[2]
    middle = draws.next_u64() % 2
    expected[1], expected[middle] = expected[middle], expected[1]
    assert dealt == expected
