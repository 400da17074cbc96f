"""Burraco melds: validation and normalisation, as pure functions.

A meld is a **set** (one rank, 3..9 cards, at most one wild, never only wilds) or a **sequence** (one
suit, consecutive positions, ace low ``A-2-3`` or high ``Q-K-A`` but never both, at most one wild).
Wilds are jokers and twos; a two of the sequence's own suit standing in its natural place (between the
ace and the three) is a natural card, so ``A♥ 2♥ 3♥ X`` holds one wild, not two.

Positions in a sequence run 1 (ace low) .. 14 (ace high). A wild in a sequence stands for one position:
- a *bound* wild (with cards on both sides) moves only when its natural card is added; it then goes to
  the gap the sequence needs, or else to an end;
- a *free* wild (at an end) may be moved when cards are added (federation practice: ``2♣ 5♣ 6♣`` + ``8♣``
  gives ``5♣ 6♣ 2♣ 8♣``); it stays where it is when it can.
Where a wild could go to either end, ``wild_as`` (the card it should stand for) chooses; the default is
the low end (the Italian convention), or the high end when the low one is impossible.

Melds are immutable: extending one returns a new :class:`Meld`. A rejected meld raises
:class:`MeldError` with a stable rule code (``meld-two-wilds``, ``set-too-large``, ``sequence-wraps``…).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, NoReturn

from arena.cards import JOKER
from arena.games.burraco.scoring import cards_value

SET_MAX = 9
MELD_MIN = 3
BURRACO_SIZE = 7

# Sequence positions: 1 = ace low, 2..13 = two..king, 14 = ace high.
RANK_POSITION = {"3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11, "Q": 12, "K": 13}
POSITION_RANK = {1: "A", 2: "2", **{p: r for r, p in RANK_POSITION.items()}, 14: "A"}


class MeldError(ValueError):
    """A meld the rules forbid; ``rule`` is the stable code an IllegalAction carries."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.detail = message


def _meld(meld_id: int, team: int, kind: str, cards: tuple[str, ...], wild: int | None, rank: str | None,
          suit: str | None, low: int) -> Meld:
    return Meld(meld_id, team, kind, cards, wild, rank=rank, suit=suit, low=low)


def is_wild(card: str) -> bool:
    """Jokers and twos are wild (a two in its natural sequence place is judged by the meld, not here)."""
    return card == JOKER or card[0] == "2"


class Meld:
    """One meld on the table. ``cards`` are in table order (sets: naturals then the wild; sequences: low
    to high); ``wild`` is the index of the wild card in ``cards`` or None; sequences know their ``suit``
    and the position ``low`` of their first card, sets their ``rank``."""

    __slots__ = ("_json", "cards", "id", "kind", "low", "rank", "suit", "team", "wild")

    def __init__(self, meld_id: int, team: int, kind: str, cards: tuple[str, ...], wild: int | None, *,
                 rank: str | None = None, suit: str | None = None, low: int = 0):
        self.id = meld_id
        self.team = team
        self.kind = kind
        self.cards = cards
        self.wild = wild
        self.rank = rank
        self.suit = suit
        self.low = low
        self._json: dict | None = None

    def __reduce__(self) -> tuple:
        # For pickle and deepcopy (a compiled Meld has no argument-free constructor); _json is a cache.
        return _meld, (self.id, self.team, self.kind, self.cards, self.wild, self.rank, self.suit, self.low)

    @property
    def clean(self) -> bool:
        return self.wild is None

    @property
    def is_burraco(self) -> bool:
        return len(self.cards) >= BURRACO_SIZE

    @property
    def high(self) -> int:
        return self.low + len(self.cards) - 1

    @property
    def set_rank(self) -> str:
        """A set's rank (a sequence has none)."""
        if self.rank is None:
            raise ValueError(f"{self!r} is a sequence: it has no rank")
        return self.rank

    @property
    def run_suit(self) -> str:
        """A sequence's suit (a set has none)."""
        if self.suit is None:
            raise ValueError(f"{self!r} is a set: it has no suit")
        return self.suit

    def stands_for(self) -> str | None:
        """What the wild represents: a card (``"7H"``) in a sequence, a rank (``"7"``) in a set."""
        if self.wild is None:
            return None
        if self.kind == "set":
            return self.rank
        return POSITION_RANK[self.low + self.wild] + self.run_suit

    def points(self) -> int:
        return cards_value(self.cards)

    def to_json(self) -> dict:
        """The observation form. Cached: a meld never changes once built (extending makes a new one)."""
        found = self._json
        if found is None:
            cards = self.cards
            wild = None if self.wild is None else {
                "index": self.wild, "card": cards[self.wild], "stands_for": self.stands_for()}
            found = self._json = {"id": self.id, "team": self.team, "kind": self.kind, "rank": self.rank,
                                  "suit": self.suit, "cards": [*cards], "wild": wild, "clean": wild is None,
                                  "burraco": len(cards) >= BURRACO_SIZE, "points": cards_value(cards)}
        return found

    def __repr__(self) -> str:
        return f"Meld({self.id}, team {self.team}, {self.kind}, {' '.join(self.cards)})"


# ---------------------------------------------------------------------------------------------- new melds

def make_meld(cards: Iterable[str], *, team: int, meld_id: int, wild_as: str | None = None) -> Meld:
    """Build a new meld from cards (any order). Raises MeldError naming the broken rule."""
    cards = list(cards)
    if len(cards) < MELD_MIN:
        raise MeldError("meld-too-small", f"a meld needs at least {MELD_MIN} cards, not {len(cards)}")
    naturals = [c for c in cards if c != JOKER and c[0] != "2"]  # is_wild, inline: a meld has many cards
    if not naturals:
        raise MeldError("only-wilds", "a meld cannot be made of wild cards only (jokers and twos)")
    ranks = {c[0] for c in naturals}
    if len(ranks) == 1 and len(naturals) >= 2:
        # Two naturals of one rank can never sit in one sequence, so this is a set.
        return _make_set(cards, naturals, team=team, meld_id=meld_id, wild_as=wild_as)
    suit = _sequence_suit(naturals)
    if wild_as is None and len(naturals) == len(cards):
        run = _natural_run(cards, suit, team=team, meld_id=meld_id)
        if run is not None:
            return run
    low, ordered, wild = _solve_sequence({}, cards, suit, wild_as)
    return Meld(meld_id, team, "sequence", ordered, wild, suit=suit, low=low)


def _natural_run(cards: list[str], suit: str, *, team: int, meld_id: int) -> Meld | None:
    """The common new sequence, three to king without a wild or an ace, when it is consecutive: it has
    one reading, so the search of :func:`_solve_sequence` would find just this. None otherwise."""
    if not all(c[0] in RANK_POSITION for c in cards):
        return None
    positions = [RANK_POSITION[c[0]] for c in cards]
    low = min(positions)
    if len(set(positions)) != len(cards) or max(positions) - low != len(cards) - 1:
        return None
    ordered = [""] * len(cards)
    for card, position in zip(cards, positions, strict=True):
        ordered[position - low] = card
    return Meld(meld_id, team, "sequence", tuple(ordered), None, suit=suit, low=low)


def _make_set(cards: list[str], naturals: list[str], *, team: int, meld_id: int, wild_as: str | None) -> Meld:
    rank = naturals[0][0]
    wilds = [c for c in cards if c == JOKER or c[0] == "2"]
    _check_set_size(len(cards), len(wilds))
    _check_set_wild_as(rank, wilds, wild_as)
    return Meld(meld_id, team, "set", tuple(sorted(naturals, key=_suit_order) + wilds),
                len(naturals) if wilds else None, rank=rank)


def _check_set_size(size: int, wilds: int) -> None:
    if size > SET_MAX:
        raise MeldError("set-too-large", f"a set holds at most {SET_MAX} cards, not {size}")
    if wilds > 1:
        raise MeldError("meld-two-wilds", "a meld may hold at most one wild card (joker or two)")


def _check_set_wild_as(rank: str, wilds: list[str], wild_as: str | None) -> None:
    if wild_as is not None and (not wilds or wild_as[0] != rank):
        raise MeldError("bad-wild-as", f"wild_as {wild_as!r} does not fit: the wild in a set of {rank}s "
                                       f"stands for a {rank}")


# A set's naturals lie in suit order S H D C (a look-up per card: sets are sorted at every add).
_suit_order = {r + s: i for i, s in enumerate("SHDC") for r in "A3456789TJQK"}.__getitem__


def _sequence_suit(naturals: list[str]) -> str:
    suits = {c[1] for c in naturals}
    if len(suits) > 1:
        raise MeldError("sequence-suit", "a meld must be one rank (a set) or one suit (a sequence); "
                                         f"these cards mix ranks and suits: {' '.join(sorted(naturals))}")
    return suits.pop()


# ---------------------------------------------------------------------------------------------- extending

def extend_meld(meld: Meld, cards: Iterable[str], *, wild_as: str | None = None) -> Meld:
    """The meld with ``cards`` added (a new Meld, same id and team). Raises MeldError."""
    cards = list(cards)
    if not cards:
        raise MeldError("bad-action", "add at least one card")
    if meld.kind == "set":
        if len(cards) == 1 and wild_as is None and cards[0][0] == meld.rank and len(meld.cards) < SET_MAX:
            return _set_plus_natural(meld, cards[0])
        for c in cards:
            if not is_wild(c) and c[0] != meld.rank:
                raise MeldError("set-rank", f"{c} cannot join a set of {meld.rank}s")
        together = [*meld.cards, *cards]
        naturals = [c for c in together if c != JOKER and c[0] != "2"]  # is_wild, inline
        wilds = [c for c in together if c == JOKER or c[0] == "2"]
        _check_set_size(len(naturals) + len(wilds), len(wilds))
        if wild_as is not None:
            _check_set_wild_as(meld.set_rank, wilds, wild_as)
        return Meld(meld.id, meld.team, "set", tuple(sorted(naturals, key=_suit_order) + wilds),
                    len(naturals) if wilds else None, rank=meld.rank)
    if len(cards) == 1 and wild_as is None and cards[0][0] in RANK_POSITION and cards[0][1] == meld.suit:
        # The common case, one natural three-to-king at either end: nothing moves, no search needed.
        pos = RANK_POSITION[cards[0][0]]
        if pos == meld.low - 1:
            return Meld(meld.id, meld.team, "sequence", (cards[0], *meld.cards),
                        None if meld.wild is None else meld.wild + 1, suit=meld.suit, low=pos)
        if pos == meld.high + 1:
            return Meld(meld.id, meld.team, "sequence", (*meld.cards, cards[0]), meld.wild, suit=meld.suit,
                        low=meld.low)
    for c in cards:
        if not is_wild(c) and c[1] != meld.suit:
            raise MeldError("sequence-suit", f"{c} cannot join a sequence of {meld.suit}")
    # One rule (RULES.md §3): the meld's cards with the added ones must form a legal meld. The naturals on
    # the table keep their places; the table's wild is placed anew with the added cards, preferring its
    # old place.
    fixed = {meld.low + i: c for i, c in enumerate(meld.cards) if i != meld.wild}
    loose = list(cards)
    table_wild = None
    if meld.wild is not None:
        table_wild = (meld.cards[meld.wild], meld.low + meld.wild)
        loose.append(table_wild[0])
    low, ordered, wild = _solve_sequence(fixed, loose, meld.run_suit, wild_as, table_wild)
    return Meld(meld.id, meld.team, "sequence", ordered, wild, suit=meld.suit, low=low)


def _set_plus_natural(meld: Meld, card: str) -> Meld:
    """The common add to a set, one more natural of its rank: it joins the naturals in suit order, before
    the wild if there is one."""
    wild = meld.wild
    naturals = meld.cards if wild is None else meld.cards[:wild]
    ordered = tuple(sorted((*naturals, card), key=_suit_order))
    if wild is None:
        return Meld(meld.id, meld.team, "set", ordered, None, rank=meld.rank)
    return Meld(meld.id, meld.team, "set", ordered + meld.cards[wild:], len(ordered), rank=meld.rank)


# ---------------------------------------------------------------------------------------------- sequences

def _readings(card: str, suit: str) -> list[int | None]:
    """Where a loose card may sit in a sequence of ``suit``: positions, or None for 'as a wild'."""
    if card == JOKER:
        return [None]
    r = card[0]
    if r == "2":
        return [2, None] if card[1] == suit else [None]
    if card[1] != suit:
        raise MeldError("sequence-suit", f"{card} is not a {suit} card")
    if r == "A":
        return [1, 14]
    return [RANK_POSITION[r]]


def _end_allowed(end: int, lo: int, hi: int) -> bool:
    """An end position is on the table (1..14) and does not make the ace both low and high — except the
    wild that stands for the high ace above a natural A-to-K run (the federation's 14-card sequence)."""
    if end == 14 and lo == 1:
        return hi == 13
    return 1 <= end <= 14 and not (end == 1 and hi == 14)


# Which failure to report when no reading works: the most telling one first.
_FAILURES = ("sequence-wraps", "sequence-duplicate", "sequence-full", "sequence-gap")
_MESSAGES = {
    "meld-two-wilds": "a meld may hold at most one wild card (joker or two); a two of the sequence's suit "
                      "counts as natural only in its own place, between the ace and the three",
    "sequence-wraps": "a sequence may not turn the corner: the ace is either low (A-2-3) or high (Q-K-A), not both",
    "sequence-duplicate": "a sequence cannot hold the same rank twice",
    "sequence-full": "the sequence already runs from ace to king (or two to ace): the wild has no end to go to",
    "sequence-gap": "a sequence must be consecutive (one wild may fill one gap)",
}


def _solve_sequence(fixed: dict[int, str], loose: list[str], suit: str, wild_as: str | None,
                    table_wild: tuple[str, int] | None = None) -> tuple[int, tuple[str, ...], int | None]:
    """Arrange ``fixed`` (position → natural card already on the table) and the ``loose`` cards (the added
    ones, and the table's wild if the meld has one) into one valid sequence; returns (low position,
    cards low→high, wild index or None).

    Every reading of the loose cards is tried (a two of the suit as natural or wild, an ace low or high);
    the reading with fewest wilds wins, then ``wild_as``, then the table's wild kept in place
    (``table_wild``: its card and position), then the low end for a new wild and the high end for a
    displaced one.
    """
    best = None
    failures: list[tuple[int, str, dict[int, str]]] = []
    for reading in itertools.product(*(_readings(c, suit) for c in loose)):
        positions = dict(fixed)
        wilds = []
        failure: Any = None  # a failure code, or what _place_wild found: (sort key, result)
        for card, pos in zip(loose, reading, strict=True):
            if pos is None:
                wilds.append(card)
            elif pos in positions:
                failure = "sequence-duplicate"
            else:
                positions[pos] = card
        if failure is None and 1 in positions and 14 in positions:
            failure = "sequence-wraps"
        if failure is None and len(wilds) > 1:
            failure = "meld-two-wilds"
        if failure is None:
            failure = _place_wild(positions, wilds[0] if wilds else None, suit, wild_as, table_wild)
        if isinstance(failure, str):
            failures.append((len(wilds), failure, positions))
            continue
        if best is None or failure[0] < best[0]:
            best = failure
    if best is not None:
        return best[1]
    _raise_best_failure(failures)


def _place_wild(positions: dict[int, str], floating: str | None, suit: str, wild_as: str | None,
                table_wild: tuple[str, int] | None):
    """Place the (single) wild for one reading; returns (sort key, result) or a failure code."""
    lo, hi = min(positions), max(positions)
    missing = [p for p in range(lo, hi + 1) if p not in positions]
    if floating is None:
        if missing:
            return "sequence-gap"
        spots: list[int | None] = [None]
    elif len(missing) == 1:
        spots = list(missing)
    elif missing:
        return "sequence-gap"
    else:
        spots = [e for e in (lo - 1, hi + 1) if _end_allowed(e, lo, hi)]
        if not spots:
            return "sequence-full"
    is_table_wild = table_wild is not None and floating == table_wild[0]
    stay = table_wild[1] if table_wild is not None and is_table_wild else None
    choices = []
    for spot in spots:
        cells = dict(positions)
        wild_pos = spot
        if spot is not None and floating is not None:  # (spots hold a place only for a floating wild)
            cells[spot] = floating
            if floating[0] == "2" and floating[1:] == suit and spot == 2:
                wild_pos = None  # a two of the suit moved into its own place is natural again
        stands = None if wild_pos is None else POSITION_RANK[wild_pos] + suit
        if wild_as is not None and stands != wild_as:
            continue
        low = min(cells)
        ordered = tuple(cells[p] for p in range(low, low + len(cells)))
        wild_index = None if wild_pos is None else wild_pos - low
        end = 0 if spot is None else (-spot if is_table_wild else spot)  # a displaced wild goes high
        key = (0 if wild_pos is None else 1, spot != stay, end)
        choices.append((key, (low, ordered, wild_index)))
    if not choices:
        return "bad-wild-as"
    return min(choices)


def _raise_best_failure(failures: list[tuple[int, str, dict[int, str]]]) -> NoReturn:
    """No reading works: report the fault of the most plausible readings."""
    codes = {code for _, code, _ in failures}
    # A two far from its own place reads naturally as a wild: when that reading fails for two wilds and the
    # only other readings leave gaps, the two wilds are the fault a player recognises (6H 7H 8H 2H X).
    if "meld-two-wilds" in codes and codes <= {"meld-two-wilds", "sequence-gap"}:
        raise MeldError("meld-two-wilds", _MESSAGES["meld-two-wilds"])
    if "bad-wild-as" in codes:
        raise MeldError("bad-wild-as", "wild_as names a card the wild cannot stand for in this sequence")
    code = min(codes - {"meld-two-wilds"}, key=_FAILURES.index)
    if code == "sequence-gap" and any(_fits_round_the_corner(positions, wilds)
                                      for wilds, failure, positions in failures if failure == code):
        code = "sequence-wraps"
    raise MeldError(code, _MESSAGES[code])


def _fits_round_the_corner(positions: dict[int, str], wilds: int) -> bool:
    """Would these naturals be consecutive if K-A-2 were allowed? Then the real fault is wrapping."""
    ranks = {p % 13 for p in positions}  # ace low (1) and ace high (14) are one rank round the corner
    for start in ranks:
        span = max((r - start) % 13 for r in ranks) + 1
        if span - len(ranks) <= wilds:
            return True
    return False


# ---------------------------------------------------------------------------------------------- checking

def check_meld(meld: Meld) -> None:
    """Re-validate a meld from its stored form (used by property tests and positions built for tests)."""
    if len(meld.cards) < MELD_MIN:
        raise MeldError("meld-too-small", f"{meld} is too small")
    if meld.wild is not None and not is_wild(meld.cards[meld.wild]):
        raise MeldError("bad-wild", f"{meld}: the marked wild is not a wild card")
    if meld.kind == "set":
        naturals = [c for i, c in enumerate(meld.cards) if i != meld.wild]
        if any(is_wild(c) or c[0] != meld.rank for c in naturals):
            raise MeldError("set-rank", f"{meld}: mixed ranks or an unmarked wild")
        _check_set_size(len(meld.cards), 0)
        return
    fourteen = meld.low == 1 and meld.high == 14 and meld.wild == 13  # A-K and a wild for the high ace
    if meld.low < 1 or meld.high > 14 or (meld.low == 1 and meld.high == 14 and not fourteen):
        raise MeldError("sequence-wraps", f"{meld} runs off the ends")
    for i, c in enumerate(meld.cards):
        if i == meld.wild:
            continue
        pos = meld.low + i
        if c[1:] != meld.suit or c[0] != POSITION_RANK[pos]:
            raise MeldError("sequence-gap", f"{meld}: {c} is out of place")
    if meld.wild is not None and meld.cards[meld.wild] == "2" + meld.run_suit and meld.low + meld.wild == 2:
        raise MeldError("bad-wild", f"{meld}: a two in its own place is natural, not wild")


def meld_from_json(obj: dict) -> Meld:
    """Rebuild a Meld from its observation form (for bots: to try ``extend_meld`` on the table's melds)."""
    cards = tuple(obj["cards"])
    wild = obj["wild"]["index"] if obj.get("wild") else None
    if obj["kind"] == "set":
        return Meld(obj["id"], obj["team"], "set", cards, wild, rank=obj["rank"])
    low = 0
    for i, card in enumerate(cards):
        if i != wild and card[0] != "A":
            low = (2 if card[0] == "2" else RANK_POSITION[card[0]]) - i
            break
    return Meld(obj["id"], obj["team"], "sequence", cards, wild, suit=obj["suit"], low=low)
