"""Swiss pairing: every round complete, no rematches, at most one bye each (to the lowest score that can
take it), seat balance within ±2, pairing within score groups. The rules and their order: docs/tournaments.md.

Two engines, one contract:

* ``dutch`` — the FIDE Dutch system (Handbook C.04.3) as implemented by the py4swiss library (a port of
  bbpPairings), bridged in `dutch.py`. It settles brackets one by one in Python and needs seconds per round
  at a few hundred entrants (bench/pairing.py), so ``auto`` uses it up to ``DUTCH_LIMIT`` entrants.
* ``weighted`` — Kozyr's own pairer (`weighted.py`): a maximum-weight matching with the rules packed into
  the edge weights, on py4swiss's compiled blossom matcher. ``auto`` uses it for larger fields, when py4swiss
  cannot pair a round (its absolute colour rule leaves no complete pairing), and when the Dutch system's bye
  is not the lowest score that could take it.

Entrants come in seed order (best rating first); results are all the results so far (`records.Result`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tournaments.pairing.records import EntrantId, History, Result, Round, SwissPairingError, check_entrants, fold
from tournaments.pairing.seats import SeatPreference, seat_preference
from tournaments.pairing.weighted import weighted_round

#: Largest field paired by the FIDE Dutch engine under "auto"; above it the weighted engine takes over.
DUTCH_LIMIT = 64

ENGINES = ("auto", "dutch", "weighted")

__all__ = ["DUTCH_LIMIT", "ENGINES", "SeatPreference", "SwissPairingError", "pair_round", "rank_order",
           "seat_preference"]


def pair_round(
    entrants: Sequence[EntrantId],
    results: Iterable[Result] = (),
    *,
    total_rounds: int | None = None,
    engine: str = "auto",
    absent: Iterable[EntrantId] = (),
) -> Round:
    """Pair the next round after `results`. `total_rounds`, when given, refuses to pair beyond the plan.

    `absent` entrants (withdrawn, say) are not paired this round, but their past results still count for
    their opponents' scores and histories; `entrants` must still list them."""
    listed = check_entrants(entrants)
    if engine not in ENGINES:
        raise ValueError(f"unknown Swiss engine {engine!r}; expected one of {', '.join(ENGINES)}")
    away = set(absent)
    strangers = [e for e in away if e not in set(listed)]
    if strangers:
        raise ValueError(f"absent entrant {strangers[0]!r} is not an entrant")
    present = [e for e in listed if e not in away]
    if len(present) < 2:
        raise ValueError(f"needs at least 2 entrants present, got {len(present)}")
    results = list(results)
    history = fold(listed, results)
    next_round = history.rounds_played + 1
    if total_rounds is not None and total_rounds < next_round:
        raise ValueError(f"round {next_round} is beyond the planned {total_rounds} rounds")
    if engine == "weighted" or (engine == "auto" and len(present) > DUTCH_LIMIT):
        return weighted_round(rank_order(present, history), history)
    from tournaments.pairing.dutch import dutch_round

    try:
        dutch = dutch_round(listed, results, history, away)
    except SwissPairingError:
        if engine == "dutch":
            raise
        return weighted_round(rank_order(present, history), history)
    if engine == "dutch" or not dutch.byes:
        return dutch
    # The Dutch system settles brackets top down and may hand the bye to a higher score than needed to spare
    # an upper bracket a floater; Kozyr's rule is the bye to the lowest score that can take it.
    weighted = weighted_round(rank_order(present, history), history)
    if history.score[weighted.byes[0]] < history.score[dutch.byes[0]]:
        return weighted
    return dutch


def rank_order(entrants: Sequence[EntrantId], history: History) -> list[EntrantId]:
    """Pairing order (FIDE C.04.3 A.2): score, then seed."""
    seed = {e: i for i, e in enumerate(entrants)}
    return sorted(entrants, key=lambda e: (-history.score[e], seed[e]))
