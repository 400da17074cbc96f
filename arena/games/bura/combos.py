"""Combinations the referee declares on a holder's behalf (RULES.md §1 "Combinations").

Only a full hand of ``hand`` cards holds a combination. Each hand counts its best combination; among
several holders the higher kind wins, then the higher cards (highest card first, then the next), then the
holder earlier in turn order from the player due to lead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.bura.ranking import STRENGTH, sort_cards

INSTANT_WIN = "instant_win"
LEAD = "lead"


@dataclass(frozen=True)
class Combination:
    seat: int
    name: str  # bura | moscow | small_moscow | molodka | four_ends
    effect: str  # instant_win | lead
    precedence: int
    cards: tuple[str, ...]

    def to_json(self) -> dict:
        return {"seat": self.seat, "name": self.name, "effect": self.effect, "cards": list(self.cards)}


def _may_hold_one(hand: Sequence[str]) -> bool:
    """A cheap first test: every combination is one suit, or three or more aces, tens or sixes."""
    if hand[0][1] == hand[-1][1]:  # perhaps one suit (always so when it is)
        return True
    ranks = "".join(hand)[::2]  # every card is two letters, rank then suit
    return ranks.count("A") >= 3 or ranks.count("T") >= 3 or ranks.count("6") >= 3


def _kinds(hand: Sequence[str], trump: str, rules) -> list[tuple[int, str, str]]:
    """Every (precedence, name, effect) this hand holds under the rules; higher precedence is stronger."""
    if not _may_hold_one(hand):
        return []  # the common case
    suits = {c[1] for c in hand}
    aces = [c for c in hand if c[0] == "A"]
    has_moscow = len(aces) >= 3 and (not rules.moscow_needs_trump_ace or "A" + trump in aces)
    moscow_wins = rules.moscow == "instant_win"
    found = []
    if suits == {trump}:
        found.append((10, "bura", INSTANT_WIN))
    if has_moscow:
        found.append((20, "moscow", INSTANT_WIN) if moscow_wins else
                     ((8, "moscow", LEAD) if rules.combinations == "bura" else (2, "moscow", LEAD)))
    if rules.combinations == "bura":
        if rules.small_moscow != "off":
            rank = "6" if rules.small_moscow == "sixes" else "T"
            if sum(c[0] == rank for c in hand) >= 3 and rank + trump in hand:
                found.append((6, "small_moscow", LEAD))
        if len(suits) == 1 and trump not in suits and rules.molodka == "out_of_turn":
            found.append((4, "molodka", LEAD))
    else:
        if len(aces) == 4 or sum(c[0] == "T" for c in hand) == 4:
            found.append((8, "four_ends", LEAD))
        if len(suits) == 1 and trump not in suits and rules.molodka == "out_of_turn":
            found.append((4, "molodka", LEAD))
    return found


def best_of_hand(seat: int, hand: Sequence[str], trump: str, rules) -> Combination | None:
    kinds = _kinds(hand, trump, rules)
    if not kinds:
        return None
    precedence, name, effect = max(kinds)
    return Combination(seat, name, effect, precedence, tuple(sort_cards(hand)))


def _strength(combo: Combination) -> tuple[int, ...]:
    return tuple(sorted((STRENGTH[c[0]] for c in combo.cards), reverse=True))


def winning_combination(hands: Sequence[Sequence[str]], trump: str, rules, first: int) -> Combination | None:
    """The combination that takes effect now, looking at full hands only; ``first`` is the seat due to lead."""
    n = len(hands)
    best = None
    best_key = None
    for offset in range(n):
        seat = (first + offset) % n
        hand = hands[seat]
        if len(hand) != rules.hand or not _may_hold_one(hand):
            continue
        combo = best_of_hand(seat, hand, trump, rules)
        if combo is None:
            continue
        key = (combo.precedence, _strength(combo))
        if best_key is None or key > best_key:  # strictly better: an equal one earlier in turn order stays
            best, best_key = combo, key
    return best
