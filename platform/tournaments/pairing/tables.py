"""Tables instead of pairings, for presets of 3 to 6 sides: round robin of tables and Swiss tables by score.

A *side* is one entrant's place at a table: a seat in a free-for-all preset (bura-3p, kozel-3p, bura with
up to 6 players), or a whole team in a team preset, where one bot plays every seat of its team
(`seat_map`). A team preset with two teams (burkozel-pairs, kozel, burraco) therefore has tables of two, which
are ordinary pairings: use `berger` or `swiss` for those.

When the field does not divide into full tables, the remainder sits the round out (a bye): whoever has sat out
least, and for Swiss tables the lowest score among them.

Tables are found by local search: start from an arrangement (seeded shuffle for round robin, score order for
Swiss) and swap entrants between tables while that lowers the cost — for round robin the sum over pairs of
(times met)², which spreads meetings as evenly as possible; for Swiss first repeated meetings, then the spread
of scores at each table. Seats inside a table are then assigned (a small assignment problem, scipy's
`linear_sum_assignment`) so that every entrant sits in each seat as evenly as possible.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.optimize import linear_sum_assignment

from tournaments.pairing.records import EntrantId, check_entrants

MIN_SIDES, MAX_SIDES = 2, 6


@dataclass(frozen=True)
class TableRound:
    tables: tuple[tuple[EntrantId, ...], ...]  # each in seat (or team) order
    byes: tuple[EntrantId, ...] = ()


def seat_map(table: Sequence[EntrantId], players: int, teams: Sequence[Sequence[int]] | None = None) -> dict:
    """Seat -> entrant: side k of the table takes seat k, or every seat of team k in a team preset."""
    if teams:
        if len(teams) != len(table):
            raise ValueError(f"a table of {len(table)} entrants cannot fill {len(teams)} teams")
        return {seat: table[k] for k, team in enumerate(teams) for seat in team}
    if len(table) != players:
        raise ValueError(f"a table of {len(table)} entrants cannot fill {players} seats")
    return dict(enumerate(table))


def sides_per_table(players: int, teams: Sequence[Sequence[int]] | None = None) -> int:
    return len(teams) if teams else players


def table_round_robin(entrants: Sequence[EntrantId], table_size: int, rounds: int | None = None,
                      seed: int = 0) -> list[TableRound]:
    """`rounds` rounds (default: the fewest in which everyone could meet everyone, ⌈(n-1)/(k-1)⌉) of tables
    that spread the meetings as evenly as possible; the same seed gives the same schedule."""
    listed = _check(entrants, table_size)
    if rounds is None:
        rounds = math.ceil((len(listed) - 1) / (table_size - 1))
    if rounds < 1:
        raise ValueError(f"rounds must be 1 or more, got {rounds}")
    built, _ = _schedule(listed, table_size, rounds, random.Random(seed))
    seats: dict[EntrantId, Counter] = {e: Counter() for e in listed}
    return [TableRound(tuple(_assign_seats(t, seats) for t in tables), tuple(byes)) for tables, byes in built]


def _schedule(listed: list[EntrantId], table_size: int, rounds: int, rng: random.Random):
    """Round by round: sit out whoever sat out least, shuffle, swap to spread meetings; then rebalance."""
    met: Counter = Counter()
    sat_out: Counter = Counter()
    last_out: dict[EntrantId, int] = {}
    order = {e: k for k, e in enumerate(listed)}
    built: list[tuple[list[list[EntrantId]], list[EntrantId]]] = []
    for r in range(rounds):
        byes = sorted(listed, key=lambda e: (sat_out[e], last_out.get(e, -1), -order[e]))[:len(listed) % table_size]
        playing = [e for e in listed if e not in byes]
        rng.shuffle(playing)
        tables = _improve([playing[i:i + table_size] for i in range(0, len(playing), table_size)],
                          lambda t: sum(met[frozenset(p)] ** 2 for p in combinations(t, 2)))
        for t in tables:
            met.update(frozenset(p) for p in combinations(t, 2))
        for e in byes:
            sat_out[e] += 1
            last_out[e] = r
        built.append((tables, byes))
    _rebalance([tables for tables, _ in built], met)
    return built, met


def _rebalance(rounds: list[list[list[EntrantId]]], met: Counter) -> None:
    """With the whole schedule known, swap entrants between two tables of the same round while that lowers
    the sum over pairs of (times met)² — the round-by-round construction cannot see later rounds."""
    improved = True
    while improved:
        improved = False
        for tables in rounds:
            for a, b in combinations(range(len(tables)), 2):
                for i in range(len(tables[a])):
                    for j in range(len(tables[b])):
                        if _swap_gain(tables[a], tables[b], i, j, met) < 0:
                            improved = True


def _swap_gain(ta: list[EntrantId], tb: list[EntrantId], i: int, j: int, met: Counter) -> int:
    """Swap ta[i] and tb[j] if it lowers Σ met²; returns the change (negative when swapped, else 0)."""
    x, y = ta[i], tb[j]
    old = [frozenset((x, o)) for o in ta if o != x] + [frozenset((y, o)) for o in tb if o != y]
    new = [frozenset((y, o)) for o in ta if o != x] + [frozenset((x, o)) for o in tb if o != y]
    change = 0
    for p in old:
        change -= 2 * met[p] - 1
        met[p] -= 1
    for p in new:
        change += 2 * met[p] + 1
        met[p] += 1
    if change < 0:
        ta[i], tb[j] = y, x
        return change
    for p in new:
        met[p] -= 1
    for p in old:
        met[p] += 1
    return 0


def swiss_tables(entrants: Sequence[EntrantId], table_size: int, scores: Mapping[EntrantId, float],
                 previous: Sequence[TableRound] = ()) -> TableRound:
    """The next round of Swiss tables: entrants of similar score together, repeated meetings avoided first."""
    listed = _check(entrants, table_size)
    unknown = [e for e in scores if e not in set(listed)]
    if unknown:
        raise ValueError(f"score given for {unknown[0]!r}, who is not an entrant")
    score = {e: float(scores.get(e, 0.0)) for e in listed}
    order = {e: k for k, e in enumerate(listed)}
    met: Counter = Counter()
    seats: dict[EntrantId, Counter] = {e: Counter() for e in listed}
    sat_out: Counter = Counter()
    for past in previous:
        for t in past.tables:
            met.update(frozenset(p) for p in combinations(t, 2))
            for position, e in enumerate(t):
                if e in seats:
                    seats[e][position] += 1
        sat_out.update(past.byes)
    byes = sorted(listed, key=lambda e: (sat_out[e], score[e], -order[e]))[:len(listed) % table_size]
    playing = sorted((e for e in listed if e not in byes), key=lambda e: (-score[e], order[e]))
    repeat_weight = 1000 * (1 + max((s * s for s in score.values()), default=0)) * table_size

    def cost(table: Sequence[EntrantId]) -> float:
        mean = sum(score[e] for e in table) / len(table)
        spread = sum((score[e] - mean) ** 2 for e in table)
        return repeat_weight * sum(met[frozenset(p)] for p in combinations(table, 2)) + spread

    tables = _improve([playing[i:i + table_size] for i in range(0, len(playing), table_size)], cost)
    tables.sort(key=lambda t: (-max(score[e] for e in t), min(order[e] for e in t)))
    return TableRound(tuple(_assign_seats(t, seats) for t in tables), tuple(byes))


def _check(entrants: Sequence[EntrantId], table_size: int) -> list[EntrantId]:
    if not MIN_SIDES <= table_size <= MAX_SIDES:
        raise ValueError(f"a table holds {MIN_SIDES} to {MAX_SIDES} sides, got {table_size}")
    return check_entrants(entrants, minimum=table_size)


def _improve(tables: list[list[EntrantId]], cost) -> list[list[EntrantId]]:
    """Swap entrants between tables while any swap lowers the total cost (first improvement, in order)."""
    costs = [cost(t) for t in tables]
    improved = True
    while improved:
        improved = False
        for a, b in combinations(range(len(tables)), 2):
            for i in range(len(tables[a])):
                for j in range(len(tables[b])):
                    ta, tb = list(tables[a]), list(tables[b])
                    ta[i], tb[j] = tb[j], ta[i]
                    ca, cb = cost(ta), cost(tb)
                    if ca + cb < costs[a] + costs[b] - 1e-9:
                        tables[a], tables[b], costs[a], costs[b] = ta, tb, ca, cb
                        improved = True
    return tables


def _assign_seats(table: Sequence[EntrantId], seats: dict[EntrantId, Counter]) -> tuple[EntrantId, ...]:
    """Seat order giving each entrant the seat it has had least (ties: the order given); records it."""
    k = len(table)
    cost = np.array([[seats[e][position] ** 2 * k + abs(position - n) / k for position in range(k)]
                     for n, e in enumerate(table)], dtype=float)
    rows, cols = linear_sum_assignment(cost)
    ordered: list[EntrantId] = [None] * k
    for row, col in zip(rows, cols, strict=True):
        ordered[col] = table[row]
        seats[table[row]][col] += 1
    return tuple(ordered)
