"""Burraco card values and the score of a hand, per team.

Per team at the end of a hand: + the values of its melded cards, + 200 per clean burraco and + 100 per
dirty one, + 100 for closing, − the values of the cards left in its players' hands (a pozzetto taken but
not yet played is in a hand, so it counts against), − 100 if the team never took its pozzetto.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.cards import JOKER

RANK_VALUES = {"2": 20, "A": 15, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10,
               "7": 5, "6": 5, "5": 5, "4": 5, "3": 5}
JOKER_VALUE = 30
CLEAN_BURRACO_BONUS = 200
DIRTY_BURRACO_BONUS = 100
CLOSING_BONUS = 100
NO_POZZETTO_PENALTY = 100


def card_value(card: str) -> int:
    return JOKER_VALUE if card == JOKER else RANK_VALUES[card[0]]


_VALUES = {JOKER: JOKER_VALUE, **{r + s: v for r, v in RANK_VALUES.items() for s in "SHDC"}}


def cards_value(cards: Iterable[str]) -> int:
    return sum(map(_VALUES.__getitem__, cards))  # a look-up per card: every meld put down is valued


def team_hand_score(melds, hands: Iterable[Iterable[str]], *, closed: bool, took_pozzetto: bool) -> dict:
    """The breakdown of one team's hand score. ``melds``: the team's melds (objects with ``cards``,
    ``clean`` and ``is_burraco``); ``hands``: the cards left in each of the team's hands."""
    melded = sum(cards_value(m.cards) for m in melds)
    clean = sum(1 for m in melds if m.is_burraco and m.clean)
    dirty = sum(1 for m in melds if m.is_burraco and not m.clean)
    in_hand = sum(cards_value(h) for h in hands)
    breakdown = {
        "melded": melded,
        "clean_burraco": clean,
        "dirty_burraco": dirty,
        "burraco_bonus": clean * CLEAN_BURRACO_BONUS + dirty * DIRTY_BURRACO_BONUS,
        "closing": CLOSING_BONUS if closed else 0,
        "in_hand": -in_hand,
        "pozzetto": 0 if took_pozzetto else -NO_POZZETTO_PENALTY,
    }
    breakdown["total"] = (melded + breakdown["burraco_bonus"] + breakdown["closing"] + breakdown["in_hand"]
                          + breakdown["pozzetto"])
    return breakdown


def match_winner(totals: list[int], target: int) -> int | None:
    """The winning team once some team has reached ``target``; None to play on. When several teams reach
    it in the same hand the highest total wins; an exact tie at the top plays another hand."""
    reached = [t for t, total in enumerate(totals) if total >= target]
    if not reached:
        return None
    best = max(totals[t] for t in reached)
    leaders = [t for t in reached if totals[t] == best]
    return leaders[0] if len(leaders) == 1 else None


def team_ranks(totals: list[int]) -> list[int]:
    """1 = best; equal totals share a rank."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]
