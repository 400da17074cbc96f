"""Card order, card points and who beats whom in the Bura family.

Inside a suit the order is A, T, K, Q, J, 9, 8, 7, 6 (the ten ranks above the king). A card is beaten by
a higher card of its own suit, or, if it is not a trump, by any trump. A *set* beats a set of the same
size when its cards can be paired one-to-one so that every card of the other set is beaten: that is a
bipartite matching, found here with augmenting paths (Kuhn), because sorting both sets and pairing
them greedily misses pairings such as ``{6S trump, AH}`` over ``{KH, 9S}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.cards import SUITS

RANKS_HIGH_TO_LOW = "ATKQJ9876"
STRENGTH = {r: len(RANKS_HIGH_TO_LOW) - i for i, r in enumerate(RANKS_HIGH_TO_LOW)}
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0, "6": 0}

# A fixed, readable card order for every card list the engine shows: by suit (S H D C), then high to low.
_ORDER = {r + s: i for i, (s, r) in enumerate((s, r) for s in SUITS for r in RANKS_HIGH_TO_LOW)}


# The key is the dict's own lookup rather than a Python function: the engine sorts hands and piles after
# every trick, and a C-level key keeps that cheap.
card_sort_key = _ORDER.__getitem__


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=card_sort_key)


_CARD_POINTS = {card: POINTS[card[0]] for card in _ORDER}


def points(cards: Iterable[str]) -> int:
    return sum(map(_CARD_POINTS.__getitem__, cards))  # a table lookup per card, without a Python loop


def beats(card: str, target: str, trump: str) -> bool:
    """Does ``card`` beat ``target``? Same suit: higher rank; different suits: only a trump beats."""
    if card[1] == target[1]:
        return STRENGTH[card[0]] > STRENGTH[target[0]]
    return card[1] == trump


# BEATERS[trump][target]: every card that beats ``target`` — the rule of ``beats`` tabled once for each
# trump suit, so a one-card response (most responses) is a set lookup on the path of every trick.
BEATERS = {trump: {target: frozenset(card for card in _ORDER if beats(card, target, trump)) for target in _ORDER}
           for trump in SUITS}


def pairing(cards: Sequence[str], target: Sequence[str], trump: str) -> list[tuple[str, str]] | None:
    """A one-to-one pairing (card, beaten target card) covering every target card, or None if none exists."""
    if len(cards) != len(target):
        return None
    if len(cards) == 1:  # the common case, no matching needed
        card, beaten = cards[0], target[0]
        return [(card, beaten)] if beats(card, beaten, trump) else None
    options = []
    for beaten in target:
        beaters = [i for i, c in enumerate(cards) if beats(c, beaten, trump)]
        if not beaters:
            return None
        options.append(beaters)
    owner = [-1] * len(cards)  # owner[i]: the target index card i is currently paired with

    def augment(t: int, visited: set[int]) -> bool:
        for i in options[t]:
            if i not in visited:
                visited.add(i)
                if owner[i] < 0 or augment(owner[i], visited):
                    owner[i] = t
                    return True
        return False

    for t in range(len(target)):
        if not augment(t, set()):
            return None
    return [(cards[i], target[t]) for i, t in sorted(enumerate(owner), key=lambda it: it[1])]


def set_beats(cards: Sequence[str], target: Sequence[str], trump: str) -> bool:
    if len(cards) == 1 and len(target) == 1:
        return beats(cards[0], target[0], trump)
    return pairing(cards, target, trump) is not None
