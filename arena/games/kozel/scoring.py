"""Penalty points for one finished hand (RULES.md §2).

A hand has two sides: the two teams with 4 players; the soloist (side 0) and the two others (side 1)
with 3. Side card points always add up to 120 (the soloist's discard counts for the soloist). A misère
(3 players, the widow declined) has a side per seat, and the widow counts for nobody.
"""

from __future__ import annotations

WIN = 61
HALF = 60
SAFE = 31  # a beaten side that took this much ("31+") loses least


def beaten_side_penalty(points: int, tricks: int) -> int:
    """2 for a beaten side that took 31+, 4 for less, 6 for one that took no trick at all."""
    if tricks == 0:
        return 6
    return 2 if points >= SAFE else 4


def team_penalties(points: list[int], tricks: list[int]) -> list[int] | None:
    """Penalty per team for a 4-player hand; None for 60:60, which scores nothing."""
    if points[0] == points[1]:
        return None
    loser = 0 if points[0] < points[1] else 1
    penalties = [0, 0]
    penalties[loser] = beaten_side_penalty(points[loser], tricks[loser])
    return penalties


def solo_penalties(points: list[int], tricks: list[int]) -> list[int] | None:
    """[soloist's penalty, each opponent's penalty] for a 3-player hand; None for 60:60.

    The soloist wins with 61+: each opponent gets 1 if their side took 31–60, else 2 (000 names only
    these two cases, so an opponents' side without a trick also gets 2). The soloist loses with 59 or
    less: 2, 4 or 6 like a beaten team (RULES.md completes the source this way).
    """
    solo = points[0]
    if solo == HALF:
        return None
    if solo >= WIN:
        return [0, 1 if points[1] >= SAFE else 2]
    return [beaten_side_penalty(solo, tricks[0]), 0]


def misere_penalties(points: list[int]) -> list[int]:
    """Per seat in a misère: 0 under 31 card points, 2 for 31–60, 4 over 60 (RULES.md §2)."""
    return [0 if p < SAFE else 2 if p <= HALF else 4 for p in points]
