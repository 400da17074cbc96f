"""Combinations the referee declares on a holder's behalf (RULES.md §1 "Combinations").

Only a full hand of ``hand`` cards holds a combination, and only a hand at least as large as the family's
combination size (3 cards for the Bura table, 4 for Burkozel); in a larger hand (``echki-6``) any 3 or 4
of its cards that form one count. A combination is made of exactly the cards that form it — the highest
such cards when more qualify; among cards of one rank the trump one first, then ♠ ♥ ♦ ♣ — and only those
cards are shown when it is announced, led when it must be led, and compared with ``higher_cards``.

Each hand counts its best combination. Among several holders the higher kind wins; holders of the same
kind are separated by ``combo_tie`` (instant wins by ``bura_tie``): the higher cards (highest card first,
then the next; equal: the earlier in turn order from the player due to lead), turn order alone, a
play-off, or a void deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.games.bura.ranking import STRENGTH, set_beats, sort_cards

INSTANT_WIN = "instant_win"
LEAD = "lead"
VOID = "void"
SIZE = {"bura": 3, "burkozel": 4}  # cards in a combination of each table
_SUIT_RANK = {"S": 1, "H": 2, "D": 3, "C": 4}


@dataclass(frozen=True)
class Combination:
    seat: int
    name: str  # bura | moscow | small_moscow | molodka | four_ends
    effect: str  # instant_win | lead
    precedence: int
    cards: tuple[str, ...]  # exactly the cards that make it, in card order

    def to_json(self) -> dict:
        return {"seat": self.seat, "name": self.name, "effect": self.effect, "cards": list(self.cards)}


@dataclass
class Resolution:
    """What the combinations in play do now: ``combo`` takes effect, or (``void``) the deal is void.
    ``tied``: the same-kind rivals in turn order when a tie rule decided; ``playoff``: the sets played in
    a play-off, in order, as (seat, cards)."""

    combo: Combination | None
    void: bool = False
    tied: list[Combination] = field(default_factory=list)
    playoff: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)


# The cheap first test counts, in one sum over the hand, the cards of each suit and the aces, tens and
# sixes, each count in a 4-bit field started at 8 - (the count that could make a combination): a field
# reaches its top bit exactly when its count does (a hand holds at most 6 cards, so a field never spills).
_FIELD_TOP = 0b1000
_COUNTED_RANKS = "AT6"
_CARD_COUNTS = {card: (1 << 4 * "SHDC".index(card[1])) +
                (1 << 4 * (4 + _COUNTED_RANKS.index(card[0])) if card[0] in _COUNTED_RANKS else 0)
                for card in (r + s for r in "ATKQJ9876" for s in "SHDC")}
_COUNT_OF = _CARD_COUNTS.__getitem__
_TOPS = sum(_FIELD_TOP << 4 * field for field in range(4 + len(_COUNTED_RANKS)))


def _counts_start(size: int) -> int:
    suits = sum((_FIELD_TOP - size) << 4 * field for field in range(4))
    return suits + sum((_FIELD_TOP - 3) << 4 * field for field in range(4, 4 + len(_COUNTED_RANKS)))


_START = {size: _counts_start(size) for size in SIZE.values()}


def _may_hold_one(hand: Sequence[str], size: int) -> bool:
    """A cheap first test: a combination is `size` cards of one suit, or three or more aces, tens or sixes."""
    if len(hand) < size:
        return False
    return bool((_START[size] + sum(map(_CARD_COUNTS.__getitem__, hand))) & _TOPS)


def _highest(cards: Sequence[str], count: int, trump: str) -> list[str]:
    """The ``count`` highest cards: by rank, then the trump one, then ♠ ♥ ♦ ♣."""
    return sorted(cards, key=lambda c: (-STRENGTH[c[0]], 0 if c[1] == trump else _SUIT_RANK[c[1]]))[:count]


def _three_with_trump(cards: list[str], trump: str) -> list[str] | None:
    """Three cards of a rank including the trump one (the trump one and the two highest others)."""
    with_trump = [c for c in cards if c[1] == trump]
    if len(cards) < 3 or not with_trump:
        return None
    return with_trump + _highest([c for c in cards if c[1] != trump], 2, trump)


def _strength(cards: Sequence[str]) -> tuple[int, ...]:
    return tuple(sorted((STRENGTH[c[0]] for c in cards), reverse=True))


def _molodka(hand: Sequence[str], trump: str, size: int) -> list[str] | None:
    """The highest ``size`` cards of a plain suit holding that many (the strongest such suit)."""
    best = None
    for suit in "SHDC":
        if suit == trump:
            continue
        same = [c for c in hand if c[1] == suit]
        if len(same) >= size:
            top = _highest(same, size, trump)
            if best is None or _strength(top) > _strength(best):
                best = top
    return best


def _kinds(hand: Sequence[str], trump: str, rules) -> list[tuple[int, str, str, list[str]]]:
    """Every (precedence, name, effect, cards) this hand holds under the rules; higher precedence is stronger."""
    size = SIZE[rules.combinations]
    if len(hand) < size:
        return []
    found = []
    trumps = [c for c in hand if c[1] == trump]
    if len(trumps) >= size:
        found.append((10, "bura", INSTANT_WIN, _highest(trumps, size, trump)))
    aces = [c for c in hand if c[0] == "A"]
    moscow = _three_with_trump(aces, trump) if rules.moscow_needs_trump_ace else (
        _highest(aces, 3, trump) if len(aces) >= 3 else None)
    if moscow:
        if rules.moscow == "instant_win":
            found.append((20, "moscow", INSTANT_WIN, moscow))
        else:
            found.append((8 if rules.combinations == "bura" else 2, "moscow", LEAD, moscow))
    if rules.combinations == "bura":
        if rules.small_moscow != "off":
            rank = "6" if rules.small_moscow == "sixes" else "T"
            small = _three_with_trump([c for c in hand if c[0] == rank], trump)
            if small:
                found.append((6, "small_moscow", LEAD, small))
    else:
        tens = [c for c in hand if c[0] == "T"]
        ends = aces if len(aces) >= 4 else tens if len(tens) >= 4 else None
        if ends:
            found.append((8, "four_ends", LEAD, _highest(ends, 4, trump)))
    if rules.molodka == "out_of_turn":
        molodka = _molodka(hand, trump, size)
        if molodka:
            found.append((4, "molodka", LEAD, molodka))
    return found


def best_of_hand(seat: int, hand: Sequence[str], trump: str, rules) -> Combination | None:
    kinds = _kinds(hand, trump, rules)
    if not kinds:
        return None
    precedence, name, effect, cards = max(kinds, key=lambda k: k[0])
    return Combination(seat, name, effect, precedence, tuple(sort_cards(cards)))


def resolve_combinations(hands: Sequence[Sequence[str]], trump: str, rules, first: int) -> Resolution | None:
    """What takes effect now, looking at full hands only; ``first`` is the seat due to lead. None: nothing."""
    full = rules.hand
    size = SIZE[rules.combinations]
    start = _START[size]
    # The cheap test first, over every hand: most hands are not one suit and hold fewer than three aces,
    # tens or sixes, so most calls end here.
    for hand in hands:
        if len(hand) == full and (start + sum(map(_COUNT_OF, hand))) & _TOPS:
            break
    else:
        return None
    holders: list[Combination] = []  # in turn order from ``first``
    n = len(hands)
    for seat in (*range(first, n), *range(first)):
        hand = hands[seat]
        if len(hand) != full or not _may_hold_one(hand, size):
            continue
        combo = best_of_hand(seat, hand, trump, rules)
        if combo is not None:
            holders.append(combo)
    if not holders:
        return None
    top = max(c.precedence for c in holders)
    rivals = [c for c in holders if c.precedence == top]
    if len(rivals) == 1:
        return Resolution(rivals[0])
    rule = rules.bura_tie if rivals[0].effect == INSTANT_WIN else rules.combo_tie
    if rule == "turn_order":
        return Resolution(rivals[0], tied=rivals)
    if rule == "void":
        return Resolution(None, void=True, tied=rivals)
    if rule == "playoff":
        # The first holder leads the combination's cards, each other answers with theirs and must beat
        # the best set so far (like a trick); whoever stands last as beater wins.
        best = rivals[0]
        played = [(best.seat, best.cards)]
        for rival in rivals[1:]:
            played.append((rival.seat, rival.cards))
            if set_beats(rival.cards, best.cards, trump):
                best = rival
        return Resolution(best, tied=rivals, playoff=played)
    best = rivals[0]  # higher_cards: the strictly stronger set wins, an equal one earlier in turn order stays
    for rival in rivals[1:]:
        if _strength(rival.cards) > _strength(best.cards):
            best = rival
    return Resolution(best, tied=rivals)


def winning_combination(hands: Sequence[Sequence[str]], trump: str, rules, first: int) -> Combination | None:
    """The combination that takes effect now (None also when a tie voids the deal)."""
    found = resolve_combinations(hands, trump, rules, first)
    return None if found is None else found.combo
