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
    unit: np.ndarray | None = None  # each row's unit (duplicate set, or lone match): the cluster of fit's dispersion

    @property
    def rows(self) -> int:
        return self.design.shape[0]

    @classmethod
    def from_results(cls, results: Mapping[Hashable, MatchResult]) -> Outcomes:
        """Any preset: teams, several seats, duplicate sets. ``results`` maps match id → MatchResult."""
        if not isinstance(results, Mapping):
            raise TypeError("results must be a mapping of match id to MatchResult, so no match counts twice")
        labels = list(results)
        match, seat_players, ranks, teams, unit_of_match = [], [], [], [], []
        units: dict[tuple, int] = {}
        for k, match_id in enumerate(labels):
            result = results[match_id]
            n = len(result.seats)
            if len(result.ranks) != n or n < 2:
                raise ValueError(f"match {match_id!r}: needs one rank per seat and at least two seats")
            groups = result.teams if result.teams is not None else [[s] for s in range(n)]
            team = [-1] * n
            for t, group in enumerate(groups):
                for seat in group:
                    if not 0 <= seat < n or team[seat] != -1:
                        team[0] = -2
                    else:
                        team[seat] = t
            if min(team) < 0:
                raise ValueError(f"match {match_id!r}: teams must split seats 0..{n - 1} exactly once")
            unit = ("set", result.duplicate_set) if result.duplicate_set is not None else ("match", match_id)
            unit_of_match.append(units.setdefault(unit, len(units)))
            match.extend([k] * n)
            seat_players.extend(result.seats)
            ranks.extend(result.ranks)
            teams.extend(team)
        players = _sorted_players(set(seat_players))
        index = {p: i for i, p in enumerate(players)}
        return _build(np.array(match, dtype=np.int64), np.array([index[p] for p in seat_players], dtype=np.int64),
                      players, np.array(ranks, dtype=np.int64), np.array(teams, dtype=np.int64),
                      np.array(unit_of_match, dtype=np.int64), labels)

    @classmethod
    def from_seats(cls, match_ids, players, ranks, teams=None, duplicate_set=None) -> Outcomes:
        """Any preset, vectorised: one entry per seat of every match (what a query of seat rows returns).

        ``teams`` gives each seat's team label within its match (None: every seat is its own side);
        ``duplicate_set`` each seat's match's set (None: every match is its own unit; a match outside any
        set needs a label of its own). A match's seats share its id, so a match cannot be given twice.
        """
        match_ids, players, ranks = np.asarray(match_ids), np.asarray(players), np.asarray(ranks, dtype=np.int64)
        n = len(match_ids)
        if not len(players) == len(ranks) == n:
            raise ValueError("match_ids, players and ranks must have one entry per seat")
        if (teams is not None and len(teams) != n) or (duplicate_set is not None and len(duplicate_set) != n):
            raise ValueError("teams and duplicate_set must have one entry per seat")
        try:
            labels, match = np.unique(match_ids, return_inverse=True)
            keys, player = np.unique(players, return_inverse=True)
        except TypeError:
            raise TypeError("match ids and player keys must be mutually sortable (e.g. all ints)") from None
        match, player = match.ravel(), player.ravel()
        team = np.arange(n) if teams is None else np.unique(np.asarray(teams), return_inverse=True)[1].ravel()
        if duplicate_set is None:
            unit = np.arange(len(labels))
        else:
            first_seat = np.unique(match, return_index=True)[1]
            unit = np.unique(np.asarray(duplicate_set)[first_seat], return_inverse=True)[1].ravel()
        return _build(match, player, tuple(keys.tolist()), ranks, team.astype(np.int64), unit, labels.tolist())

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
        row_unit = (groups // size // size)[order]
        rows = len(ga)
        indices = np.stack([ga, gb], axis=1).ravel()
        data = np.tile(np.array([1.0, -1.0]), rows)
        indptr = np.arange(0, 2 * rows + 1, 2, dtype=np.int64)
        design = sparse.csr_matrix((data, indices, indptr), shape=(rows, len(players_arr)))
        _, pattern = np.unique(ga * len(players_arr) + gb, return_inverse=True)
        return cls(tuple(players_arr.tolist()), design, gscore, weight, pattern.ravel().astype(np.int64), row_unit)


def _sorted(items) -> list:
    try:
        return sorted(items)
    except TypeError:
        raise TypeError("player keys must be mutually sortable (e.g. all ints or all strings)") from None


def _sorted_players(seen: set) -> tuple:
    return tuple(_sorted(seen))


SCALE = 720720  # divisible by every team size up to 16, so seat coefficients ±1/size are exact integers


def _build(match: np.ndarray, player: np.ndarray, players: tuple, ranks: np.ndarray, team: np.ndarray,
           unit: np.ndarray, labels: list) -> Outcomes:
    """Outcomes from seat arrays: match index, player index, rank and team label per seat; unit per match."""
    n_players = len(players)
    empty = Outcomes(players, sparse.csr_matrix((0, n_players)), np.zeros(0), np.zeros(0), np.zeros(0, np.int64),
                     np.zeros(0, np.int64))
    if len(match) == 0:
        return empty
    # sides: (match, team); np.unique sorts them by match, then team
    width = int(team.max()) + 1
    side_keys, side = np.unique(match * width + team, return_inverse=True)
    side = side.ravel()
    n_sides = len(side_keys)
    side_match = side_keys // width
    low = np.full(n_sides, np.iinfo(np.int64).max)
    high = np.full(n_sides, np.iinfo(np.int64).min)
    np.minimum.at(low, side, ranks)
    np.maximum.at(high, side, ranks)
    if np.any(low != high):
        bad = labels[side_match[np.argmax(low != high)]]
        raise ValueError(f"match {bad!r}: seats of one team have different ranks")
    sides_per_match = np.bincount(side_match)
    if np.any(sides_per_match < 2):
        raise ValueError(f"match {labels[np.argmax(sides_per_match < 2)]!r}: needs at least two sides")
    size = np.bincount(side, minlength=n_sides)
    seat_order = np.argsort(side, kind="stable")
    side_start = np.cumsum(size) - size
    # every pair of sides of a match: side i with each later side of the same match
    position = np.arange(n_sides) - (np.cumsum(sides_per_match) - sides_per_match)[side_match]
    later = sides_per_match[side_match] - 1 - position
    left = np.repeat(np.arange(n_sides), later)
    right = left + 1 + (np.arange(len(left)) - np.repeat(np.cumsum(later) - later, later))
    n_pairs = len(left)
    weight = 1.0 / (sides_per_match[side_match[left]] - 1)
    score = np.where(low[left] < low[right], 1.0, np.where(low[left] == low[right], 0.5, 0.0))

    def entries(sides: np.ndarray, sign: int):
        counts = size[sides]
        pair = np.repeat(np.arange(n_pairs), counts)
        offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        seat = seat_order[np.repeat(side_start[sides], counts) + offset]
        return pair, player[seat], np.repeat(sign * (SCALE // size[sides]), counts)

    pair_l, player_l, q_l = entries(left, 1)
    pair_r, player_r, q_r = entries(right, -1)
    cells, inverse = np.unique(np.concatenate([pair_l, pair_r]) * n_players + np.concatenate([player_l, player_r]),
                               return_inverse=True)
    q = np.rint(np.bincount(inverse.ravel(), weights=np.concatenate([q_l, q_r]).astype(np.float64))).astype(np.int64)
    cells, q = cells[q != 0], q[q != 0]  # a version on both sides cancels out
    if len(cells) == 0:
        return empty
    cell_pair, cell_player = cells // n_players, cells % n_players
    row_len = np.bincount(cell_pair, minlength=n_pairs)
    row_start = np.cumsum(row_len) - row_len
    live = np.flatnonzero(row_len > 0)
    # canonical orientation: the lowest player's coefficient is positive
    flip = np.zeros(n_pairs, dtype=bool)
    flip[live] = q[row_start[live]] < 0
    q = np.where(flip[cell_pair], -q, q)
    score = np.where(flip, 1.0 - score, score)
    # a pattern is a row's (player, coefficient) sequence; rows are padded to compare them as arrays
    base = 2 * SCALE + 1
    live_rank = np.cumsum(row_len > 0) - 1
    padded = np.full((len(live), int(row_len.max())), -1, dtype=np.int64)
    padded[live_rank[cell_pair], np.arange(len(cells)) - row_start[cell_pair]] = cell_player * base + q + SCALE
    distinct, pattern = np.unique(padded, axis=0, return_inverse=True)
    pattern = pattern.ravel()
    # merge the rows of one unit with the same pattern: mean score, summed weight
    n_patterns = len(distinct)
    pair_unit = unit[side_match[left[live]]]
    groups, member = np.unique(pair_unit * n_patterns + pattern, return_inverse=True)
    member = member.ravel()
    total = np.bincount(member, weights=weight[live])
    won = np.bincount(member, weights=weight[live] * score[live])
    group_pattern, group_score = groups % n_patterns, won / total
    order = np.lexsort((total, group_score, group_pattern))
    filled = distinct >= 0
    codes = distinct[filled]
    patterns = sparse.csr_matrix(((codes % base - SCALE) / SCALE, codes // base,
                                  np.concatenate([[0], np.cumsum(filled.sum(axis=1))])),
                                 shape=(n_patterns, n_players))
    return Outcomes(players, patterns[group_pattern[order]], group_score[order], total[order],
                    group_pattern[order].astype(np.int64), (groups // n_patterns)[order])
