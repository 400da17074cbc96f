"""Standings and crosstables computed from the stored pairing results (never stored themselves)."""

from __future__ import annotations

from tournaments import tiebreaks
from tournaments.models import Entry, Pairing, Tournament


def standings(t: Tournament) -> list[dict]:
    """Best first: points, then Buchholz, Sonneborn–Berger, head-to-head, duplicate point difference."""
    from tournaments.running import entrants, results

    field = entrants(t)
    if not field:
        return []
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=field).select_related("bot__owner", "version")}
    table = tiebreaks.standings(field, results(t))
    if t.format == Tournament.Format.KNOCKOUT:
        table = _knockout_order(t, table)
    return [{"place": place, "entry": row.entrant, "bot": entries[row.entrant].bot.name,
             "owner": entries[row.entrant].bot.owner.username, "version": entries[row.entrant].version.number,
             "seed": entries[row.entrant].seed, "points": row.points, "buchholz": row.buchholz,
             "sonneborn_berger": row.sonneborn_berger, "head_to_head": row.head_to_head,
             "point_difference": row.point_difference, "played": row.played}
            for place, row in enumerate(table, start=1)]


def _knockout_order(t: Tournament, table: list) -> list:
    """In a knockout the place is the round reached (the winner first), then the tie-breaks."""
    reached: dict[int, int] = {}
    for p in Pairing.objects.filter(round__tournament=t).select_related("round"):
        for entrant in (p.first_id, p.second_id):
            if entrant is not None:
                reached[entrant] = max(reached.get(entrant, 0), p.round.number)
    champion = None
    final = Pairing.objects.filter(round__tournament=t).order_by("-round__number", "board").first()
    if final is not None and final.score is not None and t.status == Tournament.Status.FINISHED:
        champion = final.first_id if final.is_bye or final.score == 1.0 else final.second_id
    return sorted(table, key=lambda row: (row.entrant != champion, -reached.get(row.entrant, 0), table.index(row)))


def crosstable(t: Tournament) -> dict:
    """Rows and columns by place: the match points each entrant scored against each other."""
    from tournaments.running import entrants, results

    order = [row["entry"] for row in standings(t)]
    cells = tiebreaks.crosstable(entrants(t), results(t))
    return {"order": order, "cells": cells}


def rounds(t: Tournament) -> list[dict]:
    found = []
    for rnd in t.round_set.prefetch_related("pairings__first__bot", "pairings__second__bot").order_by("number"):
        found.append({"number": rnd.number, "finished": rnd.finished, "pairings": [
            {"board": p.board, "first": p.first.bot.name, "second": p.second.bot.name if p.second else None,
             "score": p.score, "score_second": None if p.score is None or not p.second_id else 1 - p.score,
             "games": p.games, "games_first": p.games_first, "margin": p.margin,
             "tiebreak_sets": p.tiebreak_sets} for p in rnd.pairings.all()]})
    return found
