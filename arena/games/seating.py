"""Who sits where, and how a finished match scores each side: pure functions of a preset and its rules.

The platform's matchmaking, ratings and tournaments all ask these; they live beside the games because
they follow from the rules alone (no database, no sandbox).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from arena.games import new_match, resolve


def layout(preset: str, overrides: Mapping[str, Any] | None = None) -> tuple[int, list[list[int]]]:
    """(number of seats, teams as lists of seats) of a preset with overrides."""
    seats, teams = _layout(preset, tuple(sorted((k, str(v)) for k, v in (overrides or {}).items())))
    return seats, [list(team) for team in teams]


@functools.lru_cache(maxsize=256)
def _layout(preset: str, overrides: tuple[tuple[str, str], ...]) -> tuple[int, tuple[tuple[int, ...], ...]]:
    _, rules = resolve(preset, dict(overrides))
    probe = new_match(rules, 0)
    return probe.num_seats, tuple(tuple(team) for team in probe.outcome()["teams"])


def side_scores(ranks: list[int], teams: list[list[int]]) -> list[float]:
    """Each side's match score: the share of the other sides it beat, a tie counting half (1, ½ or 0 in a
    two-sided game)."""
    side_rank = [ranks[team[0]] for team in teams]
    others = len(teams) - 1
    return [sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                for j, theirs in enumerate(side_rank) if j != i) / others
            for i, mine in enumerate(side_rank)]
