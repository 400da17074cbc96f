"""Single-elimination knockout seeded by rating, as a standard bracket (seed 1 v N in round one, seeds 1 and 2
only able to meet in the final), byes for a field that is not a power of two, and ties broken by extra sets.

Entrants come best rating first. The bracket is the next power of two; the missing seeds at the bottom are
byes, so the top seeds get them (one round of rest each) and no two byes ever meet.

A bracket match is one or more sets (each a duplicate set of K deals, i.e. one `records.Result`). A drawn set
(0.5) means the match "needs a tiebreak set", with the seats swapped. After `max_tiebreak_sets` drawn extra
sets the match goes to the larger duplicate point difference over all its sets, and failing that to the
higher seed — so every match ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.pairing.records import EntrantId, Pairing, Result, check_entrants

MAX_TIEBREAK_SETS = 3


def bracket_order(size: int) -> list[int]:
    """Seeds in bracket slot order for a power-of-two `size`: 8 gives 1 8 4 5 2 7 3 6, so slot pairs are
    1v8, 4v5, 2v7, 3v6 and, if the favourites win, 1v4 and 2v3 in the semi-finals."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket size must be a power of two of at least 2, got {size}")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


@dataclass(frozen=True)
class Tie:
    """One bracket match: `top` is the better seed and takes the first seat of the first set; no `bottom`
    means a bye (top goes through without playing)."""

    top: EntrantId
    bottom: EntrantId | None

    @property
    def is_bye(self) -> bool:
        return self.bottom is None


@dataclass(frozen=True)
class Decision:
    winner: EntrantId | None
    needs_tiebreak_set: bool = False
    next_set: Pairing | None = None  # the seats of the tiebreak set to play, when one is needed


class Knockout:
    def __init__(self, entrants_by_rating: Sequence[EntrantId]) -> None:
        self.entrants = check_entrants(entrants_by_rating)
        self.seed = {e: k + 1 for k, e in enumerate(self.entrants)}
        self.size = 1 << (len(self.entrants) - 1).bit_length()
        self.rounds = self.size.bit_length() - 1

    def first_round(self) -> list[Tie]:
        order = bracket_order(self.size)
        by_seed = dict(enumerate(self.entrants, start=1))
        ties = []
        for top_seed, bottom_seed in zip(order[::2], order[1::2], strict=True):
            ties.append(Tie(by_seed[top_seed], by_seed.get(bottom_seed)))
        return ties

    def next_round(self, winners: Sequence[EntrantId]) -> list[Tie]:
        """The ties of the next round, from the previous round's winners in bracket order."""
        if len(winners) < 2 or len(winners) % 2:
            raise ValueError(f"a knockout round needs an even number of winners of 2 or more, got {len(winners)}")
        unknown = [w for w in winners if w not in self.seed]
        if unknown:
            raise ValueError(f"winner {unknown[0]!r} is not an entrant")
        ties = []
        for a, b in zip(winners[::2], winners[1::2], strict=True):
            ties.append(Tie(a, b) if self.seed[a] < self.seed[b] else Tie(b, a))
        return ties

    def decide(self, tie: Tie, sets: Sequence[Result], max_tiebreak_sets: int = MAX_TIEBREAK_SETS) -> Decision:
        """Who won `tie` after the sets played so far (in order), or which tiebreak set to play next."""
        if tie.is_bye:
            return Decision(winner=tie.top)
        if not sets:
            return Decision(winner=None, next_set=Pairing(tie.top, tie.bottom))
        points = {tie.top: 0.0, tie.bottom: 0.0}
        margin = {tie.top: 0.0, tie.bottom: 0.0}
        for s in sets:
            if {s.first, s.second} != {tie.top, tie.bottom}:
                raise ValueError(f"set of round {s.round} ({s.first!r} v {s.second!r}) is not part of this tie")
            for e in (tie.top, tie.bottom):
                points[e] += s.points_of(e)
                margin[e] += s.margin_of(e)
        if points[tie.top] != points[tie.bottom]:
            return Decision(winner=max(points, key=points.get))
        tiebreaks_played = len(sets) - 1
        if tiebreaks_played < max_tiebreak_sets:
            last = sets[-1]
            return Decision(winner=None, needs_tiebreak_set=True, next_set=Pairing(last.second, last.first))
        if margin[tie.top] != margin[tie.bottom]:
            return Decision(winner=max(margin, key=margin.get))
        return Decision(winner=tie.top)
