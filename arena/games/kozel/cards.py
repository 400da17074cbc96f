"""Kozel's card order: permanent trumps, plain suits and card points.

Every queen and jack is a trump, and so is every diamond, and the six of clubs tops them all; a queen
or jack therefore belongs to no plain suit. The tables below turn that into three lookups per card —
its *kind* (``"trump"`` or the plain suit letter it must follow), its *power* within the kind, and its
points — so deciding a trick or checking suit-following is a dictionary look-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.cards import DECK_32_NO_SEVENS, make_deck

TRUMP = "trump"
PLAIN_SUITS = "CSH"  # diamonds are all trumps, so only these three can be led as a plain suit
CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}  # 9, 8, 7 and 6 score nothing; 120 in a deck
HIGH_FACE_SUITS = "CSHD"  # queens and jacks rank among themselves clubs > spades > hearts > diamonds

DECK_NO_SIXES = make_deck("AKQJT987")  # 000's 3-player section removes the sixes instead of the sevens

DECKS = {
    "no-sevens": DECK_32_NO_SEVENS,
    "no-sixes": DECK_NO_SIXES,
}


@dataclass(frozen=True)
class CardTable:
    """Everything the rules need to know about one deck's cards."""

    deck: tuple[str, ...]
    trumps: tuple[str, ...]  # high to low
    plain_ranks: str  # high to low inside clubs, spades and hearts
    kind: dict[str, str]
    power: dict[str, int]  # any trump outranks any plain card; plain cards compare only within a suit
    points: dict[str, int]
    order: dict[str, int]  # the sorted order of card lists: trumps high to low, then clubs, spades, hearts
    # Each kind's cards take consecutive places in that order, [start, stop): in a sorted hand the cards
    # of one kind sit side by side, so finding them is a binary search.
    places: dict[str, tuple[int, int]]
    suit_starts: tuple[int, ...]  # where clubs, spades and hearts (PLAIN_SUITS) start: trumps come first

    def sort(self, cards) -> list[str]:
        return sorted(cards, key=self.order.__getitem__)

    def winner_index(self, cards) -> int:
        """Index of the card that takes a trick whose first card was led: highest trump, else highest of
        the led kind. Cards of another plain suit never count."""
        led = self.kind[cards[0]]
        best = 0
        best_power = self.power[cards[0]]
        for i in range(1, len(cards)):
            card = cards[i]
            kind = self.kind[card]
            if kind in (TRUMP, led) and self.power[card] > best_power:
                best, best_power = i, self.power[card]
        return best


def _build(deck: tuple[str, ...]) -> CardTable:
    ranks = {c[0] for c in deck}
    low_card = "6" if "6" in ranks else "7"
    top = ["6C"] if "6C" in deck else []
    queens = ["Q" + s for s in HIGH_FACE_SUITS]
    jacks = ["J" + s for s in HIGH_FACE_SUITS]
    plain_ranks = "".join(r for r in "ATK98" + low_card if r in ranks)
    diamonds = [r + "D" for r in plain_ranks]
    trumps = tuple(top + queens + jacks + diamonds)

    kind: dict[str, str] = {}
    power: dict[str, int] = {}
    order: dict[str, int] = {}
    for i, card in enumerate(trumps):
        kind[card] = TRUMP
        power[card] = 100 + len(trumps) - i
        order[card] = i
    position = len(trumps)
    for suit in PLAIN_SUITS:
        for i, r in enumerate(plain_ranks):
            card = r + suit
            if card in kind:  # the six of clubs is already a trump
                continue
            kind[card] = suit
            power[card] = len(plain_ranks) - i
            order[card] = position
            position += 1
    if set(kind) != set(deck):
        raise AssertionError("card table does not cover the deck")  # a wrong deck definition, not bad input
    points = {c: CARD_POINTS.get(c[0], 0) for c in deck}
    in_order = tuple(sorted(deck, key=order.__getitem__))
    places: dict[str, tuple[int, int]] = {}
    for place, card in enumerate(in_order):
        start, _stop = places.get(kind[card], (place, place))
        places[kind[card]] = (start, place + 1)
    return CardTable(deck=deck, trumps=trumps, plain_ranks=plain_ranks, kind=kind, power=power, points=points,
                     order=order, places=places,
                     suit_starts=tuple(places[suit][0] for suit in PLAIN_SUITS))


TABLES = {name: _build(deck) for name, deck in DECKS.items()}
