"""Standings with tie-breaks, in this order: points, Buchholz, Sonneborn-Berger, head-to-head, duplicate point
difference; entrants still level share the rank and are listed by seed.

Definitions (after FIDE Handbook C.07, Tie-Break Regulations):

* points — match points: 1 a win, 0.5 a draw, 0 a loss, and a bye's points (`records.BYE_POINTS`).
* Buchholz (BH) — the sum of the final points of every opponent met. A round without an opponent (a bye)
  counts as meeting a dummy opponent with the entrant's own final points, so a bye neither lifts nor sinks it.
* Sonneborn-Berger (SB) — the sum, over the matches played, of the opponent's final points times the points
  scored against that opponent (a win counts the opponent's points, a draw half of them). A bye adds nothing.
* head-to-head (FIDE "direct encounter") — among the entrants still level after the above, the points each
  scored in the matches between them; applied only if every two of them have met, as otherwise it would
  favour whoever happened to meet the others.
* duplicate point difference — the sum of `margin` (own deal points minus the opponent's over the duplicate
  set) over all matches played.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from tournaments.pairing.records import EntrantId, Result, check_entrants

ORDER = ("points", "buchholz", "sonneborn_berger", "head_to_head", "point_difference")


@dataclass(frozen=True)
class Standing:
    rank: int
    entrant: EntrantId
    points: float
    buchholz: float
    sonneborn_berger: float
    head_to_head: float
    point_difference: float
    played: int

    def key(self) -> tuple[float, ...]:
        return tuple(getattr(self, name) for name in ORDER)


def standings(entrants: Sequence[EntrantId], results: Iterable[Result]) -> list[Standing]:
    """Every entrant (given in seed order), best first."""
    listed = check_entrants(entrants, minimum=1)
    known = set(listed)
    results = list(results)
    points = dict.fromkeys(listed, 0.0)
    margin = dict.fromkeys(listed, 0.0)
    games: dict[EntrantId, list[tuple[EntrantId, float]]] = {e: [] for e in listed}
    byes = dict.fromkeys(listed, 0)
    between: dict[tuple[EntrantId, EntrantId], float] = defaultdict(float)
    for r in results:
        for who in (r.first, r.second):
            if who is not None and who not in known:
                raise ValueError(f"result of round {r.round} names {who!r}, who is not an entrant")
        points[r.first] += r.points_of(r.first)
        if r.is_bye:
            byes[r.first] += 1
            continue
        points[r.second] += r.points_of(r.second)
        for me, other in ((r.first, r.second), (r.second, r.first)):
            games[me].append((other, r.points_of(me)))
            margin[me] += r.margin_of(me)
            between[me, other] += r.points_of(me)

    buchholz = {e: sum(points[o] for o, _ in games[e]) + byes[e] * points[e] for e in listed}
    sonneborn = {e: sum(points[o] * scored for o, scored in games[e]) for e in listed}

    seed = {e: k for k, e in enumerate(listed)}
    level: dict[tuple[float, float, float], list[EntrantId]] = defaultdict(list)
    for e in listed:
        level[points[e], buchholz[e], sonneborn[e]].append(e)
    head_to_head = dict.fromkeys(listed, 0.0)
    for group in level.values():
        if len(group) > 1 and all(_met(games, a, b) for a, b in combinations(group, 2)):
            for e in group:
                head_to_head[e] = sum(between.get((e, o), 0.0) for o in group if o != e)

    rows = [
        Standing(0, e, points[e], buchholz[e], sonneborn[e], head_to_head[e], margin[e], len(games[e]))
        for e in listed
    ]
    rows.sort(key=lambda s: (tuple(-v for v in s.key()), seed[s.entrant]))
    ranked, previous = [], None
    for position, row in enumerate(rows, start=1):
        rank = previous.rank if previous is not None and previous.key() == row.key() else position
        previous = Standing(rank, *[getattr(row, f) for f in ("entrant", *ORDER, "played")])
        ranked.append(previous)
    return ranked


def _met(games: dict[EntrantId, list[tuple[EntrantId, float]]], a: EntrantId, b: EntrantId) -> bool:
    return any(o == b for o, _ in games[a])


Crosstable = dict[EntrantId, dict[EntrantId, list[float]]]


def crosstable(entrants: Sequence[EntrantId], results: Iterable[Result]) -> Crosstable:
    """For each entrant, the points it scored against each opponent, match by match in round order."""
    listed = check_entrants(entrants, minimum=1)
    table: Crosstable = {e: {} for e in listed}
    for r in sorted(results, key=lambda r: r.round):
        for who in (r.first, r.second):
            if who is not None and who not in table:
                raise ValueError(f"result of round {r.round} names {who!r}, who is not an entrant")
        if r.is_bye:
            continue
        table[r.first].setdefault(r.second, []).append(r.points_of(r.first))
        table[r.second].setdefault(r.first, []).append(r.points_of(r.second))
    return table
