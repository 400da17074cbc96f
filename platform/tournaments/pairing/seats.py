"""Seat preferences and who takes the first seat, after FIDE's colour rules with the first seat as white
(Handbook C.04.1 A.6 and C.04.3 E): the match unit rotates seats inside a duplicate set, but the first seat
still opens it, so it is balanced over the rounds like a colour."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3
FIRST, SECOND = +1, -1


@dataclass(frozen=True)
class SeatPreference:
    side: int  # FIRST, SECOND or 0
    strength: int  # NONE, MILD, STRONG, ABSOLUTE
    difference: int  # first seats minus second seats so far


def seat_preference(seats: Sequence[int]) -> SeatPreference:
    """Absolute when the seat difference is beyond ±1 or the last two seats were the same; strong at ±1;
    mild (alternate) at 0; none before any game."""
    if not seats:
        return SeatPreference(0, NONE, 0)
    difference = sum(seats)
    if len(seats) >= 2 and seats[-1] == seats[-2]:
        return SeatPreference(-seats[-1], ABSOLUTE, difference)
    if abs(difference) > 1:
        return SeatPreference(-1 if difference > 0 else 1, ABSOLUTE, difference)
    if abs(difference) == 1:
        return SeatPreference(-difference, STRONG, difference)
    return SeatPreference(-seats[-1], MILD, difference)


def clash(a: SeatPreference, b: SeatPreference) -> int:
    """How strong a preference must be refused if a and b meet: 0 when both can be granted."""
    if a.side == 0 or b.side == 0 or a.side != b.side:
        return NONE
    return min(a.strength, b.strength)


def orient(pi: SeatPreference, pj: SeatPreference, seats_i: Sequence[int], seats_j: Sequence[int], board: int) -> bool:
    """True when i (the higher-ranked of the two) takes the first seat.

    Grant both preferences if they differ; else the stronger; else the larger seat difference; else alternate
    from the last round the two sat differently; else the higher-ranked entrant's. With no preference on either
    side, the higher-ranked takes the first seat on even boards and the second on odd ones (FIDE's alternating
    initial colour).
    """
    if pi.side == 0 and pj.side == 0:
        return board % 2 == 0
    if pi.side != pj.side:
        return pi.side == FIRST or pj.side == SECOND
    if pi.strength != pj.strength:
        i_wins = pi.strength > pj.strength
    elif abs(pi.difference) != abs(pj.difference):
        i_wins = abs(pi.difference) > abs(pj.difference)
    else:
        for a, b in zip(reversed(seats_i), reversed(seats_j), strict=False):
            if a != b:
                return a == SECOND
        i_wins = True
    return i_wins == (pi.side == FIRST)
