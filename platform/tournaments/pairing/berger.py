"""Round robin by the FIDE Berger tables (Handbook C.05, Annex 1), double round robin, and gauntlet.

Entrants are given in seed order: the first is pairing number 1. With an odd count a dummy takes the highest
number, and whoever meets it has the bye that round (as the tables prescribe).
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.pairing.records import EntrantId, Pairing, Round, check_entrants


def berger_numbers(n: int) -> list[list[tuple[int, int]]]:
    """The Berger table for `n` pairing numbers (n even, n >= 2): per round, (first seat, second seat) boards.

    Round r moves numbers 1..n-1 on by n/2 (mod n-1) from the round before; board 1 holds number n, which takes
    the second seat in odd rounds and the first in even ones. This reproduces the published FIDE tables.
    """
    if n < 2 or n % 2:
        raise ValueError(f"a Berger table needs an even count of 2 or more, got {n}")
    half, cycle = n // 2, n - 1
    table = []
    for r in range(n - 1):
        shift = r * half

        def moved(p: int, shift: int = shift) -> int:
            return (p - 1 + shift) % cycle + 1

        top = moved(1)
        boards = [(top, n) if r % 2 == 0 else (n, top)]
        boards += [(moved(t), moved(n + 1 - t)) for t in range(2, half + 1)]
        table.append(boards)
    return table


def round_robin(entrants: Sequence[EntrantId], cycles: int = 1) -> list[Round]:
    """Every entrant meets every other `cycles` times (1 single, 2 double round robin).

    The second cycle repeats the first with seats reversed. As FIDE C.05 Annex 1 recommends for double round
    robins, the last two rounds of the first cycle are swapped, so nobody gets the same seat three rounds running
    across the turn of the cycle.
    """
    listed = check_entrants(entrants)
    if cycles not in (1, 2):
        raise ValueError(f"cycles must be 1 (single) or 2 (double round robin), got {cycles}")
    numbered = [*listed, None] if len(listed) % 2 else listed
    first_cycle = [_round(numbered, boards) for boards in berger_numbers(len(numbered))]
    if cycles == 1:
        return first_cycle
    if len(first_cycle) >= 3:
        first_cycle[-2], first_cycle[-1] = first_cycle[-1], first_cycle[-2]
    second_cycle = [Round(tuple(Pairing(p.second, p.first) for p in r.pairings), r.byes) for r in first_cycle]
    return first_cycle + second_cycle


def _round(numbered: list[EntrantId | None], boards: list[tuple[int, int]]) -> Round:
    pairings, byes = [], []
    for a, b in boards:
        first, second = numbered[a - 1], numbered[b - 1]
        if first is None or second is None:
            byes.append(second if first is None else first)
        else:
            pairings.append(Pairing(first, second))
    return Round(tuple(pairings), tuple(byes))


def gauntlet(challenger: EntrantId, field: Sequence[EntrantId], cycles: int = 1) -> list[Round]:
    """`challenger` meets every entrant of `field` once per cycle; the field never plays itself.

    One round per cycle holds all of that cycle's pairings (the challenger's matches run side by side, each in
    its own sandbox); the challenger's seat alternates from one opponent to the next and from cycle to cycle.
    """
    opponents = check_entrants(field, minimum=1)
    if challenger in opponents:
        raise ValueError(f"the challenger {challenger!r} is also listed in the field")
    if cycles < 1:
        raise ValueError(f"cycles must be 1 or more, got {cycles}")
    rounds = []
    for c in range(cycles):
        pairings = []
        for i, opponent in enumerate(opponents):
            challenger_first = (i + c) % 2 == 0
            pairings.append(Pairing(challenger, opponent) if challenger_first else Pairing(opponent, challenger))
        rounds.append(Round(tuple(pairings)))
    return rounds
