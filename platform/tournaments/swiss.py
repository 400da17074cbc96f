"""Swiss pairing: no rematches, at most one bye each (to the lowest-ranked entrant still without one), seat
balance, pairing within score groups.

Two engines, one contract:

* ``dutch`` — the FIDE Dutch system (Handbook C.04.3) as implemented by the `py4swiss` library (a port of
  bbpPairings). It is the reference, but its bracket-by-bracket search costs seconds per round at 512 entrants
  (measured in bench/pairing.py), so it serves fields up to ``DUTCH_LIMIT``.
* ``weighted`` — one maximum-weight matching over the whole field, run by py4swiss's compiled blossom matcher.
  The edge weight packs these criteria, each strictly more important than all the ones after it (the same
  lexicographic packing bbpPairings uses):
    1. as many pairs as possible (a complete round);
    2. no two entrants with the same absolute seat preference meet (FIDE C.04.1 f, C3);
    3. the bye goes to the lowest-ranked entrant without a bye (FIDE C.04.3 C5);
    4. the least total squared score difference over pairs (score groups, FIDE C6/C7 in spirit);
    5. the fewest seat preferences refused, weighted by strength (FIDE C12-C13 in spirit);
    6. inside a score group, the top half meets the bottom half in order (1 v k+1, 2 v k+2: Dutch S1 v S2).
  Rematches and second byes have no edge at all. It serves large fields, and any field the Dutch engine
  refuses (py4swiss raises when FIDE's absolute colour rule leaves no complete pairing; criterion 2 is then
  given up where it must be).

Entrants come in seed order (best rating first); results are all the results so far (`records.Result`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tournaments.records import EntrantId, History, Result, Round, SwissPairingError, check_entrants, fold
from tournaments.seats import SeatPreference, seat_preference
from tournaments.weighted import weighted_round

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
    from tournaments.dutch import dutch_round

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
