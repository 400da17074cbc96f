"""A knockout tournament's rounds, from the bracket (tournaments.pairing.knockout) and the results stored so far."""

from __future__ import annotations

from tournaments.models import Pairing, Tournament
from tournaments.pairing.knockout import Knockout, Tie
from tournaments.queries import entrants


def knockout_round(t: Tournament, number: int) -> list[Tie] | None:
    """The ties of round ``number`` in bracket order (byes included), or None after the final."""
    bracket = Knockout(entrants(t))
    if number == 1:
        return bracket.first_round()
    previous = list(Pairing.objects.filter(round__tournament=t, round__number=number - 1).order_by("board"))
    winners = [p.first_id if p.is_bye or p.score == 1.0 else p.second_id for p in previous]
    if len(winners) < 2:
        return None
    return bracket.next_round(winners)
