"""Ranked match results turned into the compact form the official fit reads: pairwise outcomes.

Every match is decomposed into one outcome per pair of sides (a side is a team, or a seat in a game
without teams). An outcome compares the mean strength of one side's seats with the other's: its row
of the design matrix holds +1/|A| for every seat of side A and −1/|B| for every seat of side B, summed
per player, so a team that is one bot in both seats is exactly that bot, a mixed team is the average of
its bots, and a version on both sides cancels out of the comparison (a version that only met itself
ends up with no outcome at all, hence no rating). The score is 1, ½ or 0 by the sides' ranks (a shared
rank is a draw, counted as half a win), and the weight is 1/(sides − 1), so every side's outcomes in one
match add up to one game whatever the number of seats.

Outcomes of one unit — a duplicate set (the same deal with the seats rotated), or a lone match — with
the same comparison are merged into one outcome: their mean score with their summed weight. The point
estimate is the same as counting each game, but the set enters the dispersion estimate (see fit.py) as
one observation, so the card luck that cancels within a set makes intervals narrower instead of being
counted as noise, as fishtest counts game pairs.

Results are keyed by match id (a mapping, or an id array checked for repeats), so a match that was
re-queued and reported twice cannot be counted twice. Rows are put in a canonical order, so the same
results in any order give bit-identical outcomes and fits.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse


@dataclass(frozen=True)
class MatchResult:
    """One finished ranked match: the player (bot version) in each seat and each seat's rank (1 = best)."""

    seats: Sequence[Hashable]
    ranks: Sequence[int]
    teams: Sequence[Sequence[int]] | None = None  # seat indices per team; None: every seat is its own side
    duplicate_set: Hashable | None = None  # the set this match belongs to; None: the match is its own unit


@dataclass(frozen=True)
class Outcomes:
    """Pairwise outcomes: row r compares ``design[r] · θ``; ``score[r]`` is the mean score of its + side."""

    players: tuple  # every player seen, sorted; a player whose column is empty gets no rating
    design: sparse.csr_matrix
    score: np.ndarray
    weight: np.ndarray
    pattern: np.ndarray  # rows comparing the same players the same way (in different units) share a pattern

    @property
    def rows(self) -> int:
        return self.design.shape[0]

    @classmethod
    def from_results(cls, results: Mapping[Hashable, MatchResult]) -> Outcomes:
        """Any preset: teams, several seats, duplicate sets. ``results`` maps match id → MatchResult."""
        if not isinstance(results, Mapping):
            raise TypeError("results must be a mapping of match id to MatchResult, so no match counts twice")
        merged: dict[tuple, list[float]] = {}
        seen: set = set()
        for match_id, result in results.items():
            seen.update(result.seats)
            unit = ("set", result.duplicate_set) if result.duplicate_set is not None else ("match", match_id)
            for items, score, weight in _pairwise(match_id, result):
                acc = merged.setdefault((unit, items), [0.0, 0.0])
                acc[0] += weight * score
                acc[1] += weight
        players = _sorted_players(seen)
        index = {p: i for i, p in enumerate(players)}
        rows = sorted(
            (tuple((index[p], c) for p, c in items), total / weight, weight)
            for (_, items), (total, weight) in merged.items()
        )
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([len(r[0]) for r in rows])
        indices = np.fromiter((i for r in rows for i, _ in r[0]), dtype=np.int64, count=int(indptr[-1]))
        data = np.fromiter((c for r in rows for _, c in r[0]), dtype=np.float64, count=int(indptr[-1]))
        design = sparse.csr_matrix((data, indices, indptr), shape=(len(rows), len(players)))
        patterns: dict[tuple, int] = {}
        pattern = np.array([patterns.setdefault(r[0], len(patterns)) for r in rows], dtype=np.int64)
        return cls(players, design, np.array([r[1] for r in rows], dtype=np.float64),
                   np.array([r[2] for r in rows], dtype=np.float64), pattern)

    @classmethod
    def from_pairs(cls, match_ids, first, second, score, duplicate_set=None) -> Outcomes:
        """Two-sided presets, vectorised: per match its id, the two players and the first player's score.

        ``score`` is 1 (first won), 0.5 (draw) or 0. ``duplicate_set`` (optional) names each match's set.
        Gives exactly what ``from_results`` gives for the same matches.
        """
        match_ids = np.asarray(match_ids)
        first, second = np.asarray(first), np.asarray(second)
        score = np.asarray(score, dtype=np.float64)
        n = len(match_ids)
        if not len(first) == len(second) == len(score) == n:
            raise ValueError("match_ids, first, second and score must have the same length")
        if n and not np.all((score == 0) | (score == 0.5) | (score == 1)):
            raise ValueError("every score must be 1 (first won), 0.5 (draw) or 0 (second won)")
        unique_ids, counts = np.unique(match_ids, return_counts=True)
        if np.any(counts > 1):
            repeated = unique_ids[np.argmax(counts > 1)].item()
            raise ValueError(f"match id {repeated!r} appears more than once")
        players_arr = np.unique(np.concatenate([first, second]))
        a = np.searchsorted(players_arr, first)
        b = np.searchsorted(players_arr, second)
        if n * len(players_arr) ** 2 >= 2**62:
            raise ValueError("too many matches and players for one fit")
        if duplicate_set is None:
            unit = np.arange(n)
        else:
            duplicate_set = np.asarray(duplicate_set)
            if len(duplicate_set) != n:
                raise ValueError("duplicate_set must have one entry per match")
            _, unit = np.unique(duplicate_set, return_inverse=True)
        keep = a != b  # a version against itself tells nothing
        a, b, score, unit = a[keep], b[keep], score[keep], unit[keep]
        swap = a > b  # canonical orientation: the lower player index is the + side
        a, b = np.where(swap, b, a), np.where(swap, a, b)
        score = np.where(swap, 1.0 - score, score)
        size = len(players_arr)
        # one integer per (unit, a, b): sorting integers is much faster than sorting rows
        key = (unit.astype(np.int64) * size + a) * size + b
        groups, inverse = np.unique(key, return_inverse=True)
        inverse = inverse.ravel()
        weight = np.bincount(inverse, minlength=len(groups)).astype(np.float64)
        total = np.bincount(inverse, weights=score, minlength=len(groups))
        ga, gb, gscore = (groups // size) % size, groups % size, total / np.maximum(weight, 1.0)
        order = np.lexsort((weight, gscore, gb, ga))
        ga, gb, gscore, weight = ga[order], gb[order], gscore[order], weight[order]
        rows = len(ga)
        indices = np.stack([ga, gb], axis=1).ravel()
        data = np.tile(np.array([1.0, -1.0]), rows)
        indptr = np.arange(0, 2 * rows + 1, 2, dtype=np.int64)
        design = sparse.csr_matrix((data, indices, indptr), shape=(rows, len(players_arr)))
        _, pattern = np.unique(ga * len(players_arr) + gb, return_inverse=True)
        return cls(tuple(players_arr.tolist()), design, gscore, weight, pattern.ravel().astype(np.int64))


def _sorted(items) -> list:
    try:
        return sorted(items)
    except TypeError:
        raise TypeError("player keys must be mutually sortable (e.g. all ints or all strings)") from None


def _sorted_players(seen: set) -> tuple:
    return tuple(_sorted(seen))


def _pairwise(match_id: Hashable, result: MatchResult):
    """(canonical coefficient items, score of the + side, weight) for every pair of sides of one match."""
    seats, ranks = list(result.seats), list(result.ranks)
    if len(seats) != len(ranks) or len(seats) < 2:
        raise ValueError(f"match {match_id!r}: needs one rank per seat and at least two seats")
    teams = [list(t) for t in result.teams] if result.teams is not None else [[s] for s in range(len(seats))]
    if sorted(s for t in teams for s in t) != list(range(len(seats))):
        raise ValueError(f"match {match_id!r}: teams must split seats 0..{len(seats) - 1} exactly once")
    side_ranks = []
    for team in teams:
        if len({ranks[s] for s in team}) != 1:
            raise ValueError(f"match {match_id!r}: seats of one team have different ranks")
        side_ranks.append(ranks[team[0]])
    weight = 1.0 / (len(teams) - 1)
    for i in range(len(teams)):
        for j in range(i + 1, len(teams)):
            coef: dict = {}
            for s in teams[i]:
                coef[seats[s]] = coef.get(seats[s], 0.0) + 1.0 / len(teams[i])
            for s in teams[j]:
                coef[seats[s]] = coef.get(seats[s], 0.0) - 1.0 / len(teams[j])
            items = _sorted((p, c) for p, c in coef.items() if abs(c) > 1e-12)
            if not items:
                continue  # the same players on both sides
            ri, rj = side_ranks[i], side_ranks[j]
            score = 1.0 if ri < rj else 0.5 if ri == rj else 0.0
            if items[0][1] < 0:  # canonical orientation: the first player's coefficient is positive
                items = [(p, -c) for p, c in items]
                score = 1.0 - score
            yield tuple(items), score, weight
