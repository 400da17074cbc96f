"""Cards, decks and the seeded shuffle every game uses.

A card is its text: rank then suit (``"AS"``, ``"TD"``, ``"6C"``), or ``"X"`` for a joker. Plain strings
keep engines fast, make every action JSON as it stands, and let Burraco's two decks hold identical cards
(hands are multisets of text).

The shuffle is pinned forever: SplitMix64 feeding an unbiased Fisher–Yates. A match is a seed plus an
action list, so a deal for a given seed must be the same on every machine and every release;
``tests/arena/test_cards.py`` holds known seed → deal pairs that catch any accidental change.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Any

RANKS = "AKQJT98765432"
SUITS = "SHDC"
JOKER = "X"
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

SEED_BITS = 64
MAX_SEED = (1 << SEED_BITS) - 1
_MASK = MAX_SEED


class CardError(ValueError):
    """A text that is not a card, or a seed that is not a 64-bit unsigned integer."""


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    """The suit letter; a joker has none (empty string)."""
    return card[1:]


def is_joker(card: str) -> bool:
    return card == JOKER


def parse_card(text: object) -> str:
    """Validate a card's text form and return it; anything else raises CardError saying why."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like 'AS' or 'X', not {type(text).__name__}")
    if text == JOKER:
        return text
    if len(text) != 2:
        shown = repr(text) if len(text) <= 20 else repr(text[:20]) + f"… ({len(text)} characters)"
        raise CardError(f"bad card {shown}: a card is a rank ({' '.join(RANKS)}) and a suit ({' '.join(SUITS)}), "
                        f"or 'X' for a joker")
    if text[0] not in RANKS:
        raise CardError(f"bad card {text!r}: unknown rank {text[0]!r}; ranks are {' '.join(RANKS)}")
    if text[1] not in SUITS:
        raise CardError(f"bad card {text!r}: unknown suit {text[1]!r}; suits are {' '.join(SUITS)}")
    return text


def parse_cards(texts: object) -> list[str]:
    """Parse a list of card texts (a JSON array from a bot, or a space-separated string)."""
    if isinstance(texts, str):
        texts = texts.split()
    if not isinstance(texts, list | tuple):
        raise CardError(f"cards must be a list of card strings, not {type(texts).__name__}")
    return [parse_card(t) for t in texts]


def make_deck(ranks: str, suits: str = SUITS, *, copies: int = 1, jokers: int = 0) -> tuple[str, ...]:
    """A deck in canonical order: suits in the given order, ranks high to low, then jokers."""
    for r in ranks:
        if r not in RANKS:
            raise CardError(f"unknown rank {r!r} in deck definition")
    one = [r + s for s in suits for r in ranks]
    return tuple(one * copies + [JOKER] * jokers)


DECK_36 = make_deck("AKQJT9876")
DECK_32 = make_deck("AKQJT987")  # A–7: the Bura family's 32-card option
DECK_24 = make_deck("AKQJT9")
DECK_32_NO_SEVENS = make_deck("AKQJT986")  # Kozel: the 36-card deck without sevens
BURRACO_DECK = make_deck(RANKS, copies=2, jokers=4)  # 108 cards

BURA_DECKS = {36: DECK_36, 32: DECK_32, 24: DECK_24}


def check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise CardError(f"a seed must be an integer, not {type(seed).__name__}")
    if not 0 <= seed <= MAX_SEED:
        raise CardError(f"seed {seed} is out of range: seeds are integers from 0 to 2**64-1")
    return seed


class SeededRandom:
    """SplitMix64 (Steele, Lea, Flood 2014). Tiny, fast, and specified exactly, so it never changes."""

    __slots__ = ("_state",)

    def __init__(self, seed: int):
        self._state = check_seed(seed)

    def next_u64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """Uniform integer in [0, bound), without modulo bias (rejection sampling)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        limit = ((1 << SEED_BITS) // bound) * bound
        while True:
            x = self.next_u64()
            if x < limit:
                return x % bound


def derive_seed(seed: int, *labels: int) -> int:
    """A sub-seed for an independent stream (e.g. deal number k of a match)."""
    value = check_seed(seed)
    for label in labels:
        value = SeededRandom(value ^ ((label * 0xD1B54A32D192ED03) & _MASK)).next_u64()
    return value


# Each Fisher–Yates step of a deck of n cards as (position i, bound i + 1, the rejection limit for that
# bound): the same numbers ``SeededRandom.below`` computes per draw, worked out once per deck size.
_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _steps(size: int) -> tuple[tuple[int, int, int], ...]:
    steps = _STEPS.get(size)
    if steps is None:
        steps = _STEPS[size] = tuple((i, i + 1, ((1 << SEED_BITS) // (i + 1)) * (i + 1))
                                     for i in range(size - 1, 0, -1))
    return steps


def _shuffled_one_by_one(cards: Sequence[str], seed: int) -> list[str]:
    """The shuffle as specified: ``SeededRandom.below`` written out, one draw after the other."""
    state = check_seed(seed)
    out = list(cards)
    for i, bound, limit in _steps(len(out)):
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        x = z ^ (z >> 31)
        while x >= limit:  # rejected (odds below one in 2**59): draw again
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            x = z ^ (z >> 31)
        j = x % bound
        out[i], out[j] = out[j], out[i]
    return out


# SplitMix64's k-th state is seed + k * gamma (mod 2**64), so all of a shuffle's draws can be computed at
# once: one big integer holds draw k in bits [128(k-1), 128(k-1) + 64) ("lanes" of 128 bits). A 64-bit
# value times a 64-bit constant needs at most 128 bits, so the multiplications never carry into the next
# lane; the shifts bring a neighbour's bits only into a lane's upper half, which the lane mask clears.
# Per deck size: (replicator, the lanes' k * gamma, lane mask, the 64-bit words' unpacker, byte count).
_LANES: dict[int, tuple[int, int, int, Any, int]] = {}


def _lanes(size: int) -> tuple[int, int, int, Any, int]:
    lanes = _LANES.get(size)
    if lanes is None:
        draws = size - 1
        replicator = sum(1 << (128 * k) for k in range(draws))
        gammas = sum((((k + 1) * 0x9E3779B97F4A7C15) & _MASK) << (128 * k) for k in range(draws))
        lanes = _LANES[size] = (replicator, gammas, _MASK * replicator,
                                struct.Struct(f"<{2 * draws}Q").unpack, 16 * draws)
    return lanes


def shuffled(cards: Sequence[str], seed: int) -> list[str]:
    """Fisher–Yates from the last position down, drawing from SplitMix64(seed).

    Every deal of every match shuffles, so this is one of the engines' hot paths: the draws are computed
    all at once in 128-bit lanes of one integer (``_LANES``), the same numbers as ``_shuffled_one_by_one``
    draws one after the other. A rejected draw would shift every later one, so then (odds below one in
    2**59 per draw) the shuffle is redone one draw at a time.
    """
    check_seed(seed)
    out = list(cards)
    if len(out) < 2:
        return out
    replicator, gammas, mask, unpack, size = _LANES.get(len(out)) or _lanes(len(out))
    z = (seed * replicator + gammas) & mask  # every draw's state
    z = ((z ^ (z >> 30)) & mask) * 0xBF58476D1CE4E5B9 & mask
    z = ((z ^ (z >> 27)) & mask) * 0x94D049BB133111EB & mask
    words = unpack(((z ^ (z >> 31)) & mask).to_bytes(size, "little"))  # each lane: its draw, then 0
    k = 0
    for i, bound, limit in _STEPS.get(len(out)) or _steps(len(out)):
        x = words[k]
        k += 2
        if x >= limit:
            return _shuffled_one_by_one(cards, seed)
        j = x % bound
        out[i], out[j] = out[j], out[i]
    return out


def format_cards(cards: Iterable[str]) -> str:
    return " ".join(cards)
