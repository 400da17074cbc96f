"""Standings and crosstables computed from the stored pairing results (never stored themselves)."""

from __future__ import annotations

from tournaments.models import TABLE_FORMATS, Entry, Pairing, Table, Tournament
from tournaments.pairing import tiebreaks
from tournaments.queries import entrants, results


def standings(t: Tournament) -> list[dict]:
    """Best first: points, then Buchholz, Sonneborn–Berger, head-to-head, duplicate point difference."""
    field = entrants(t)
    if not field:
        return []
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=field).select_related("bot__owner", "version")}
    if t.format in TABLE_FORMATS:
        return _table_standings(t, field, entries)
    table = tiebreaks.standings(field, results(t))
    if t.format == Tournament.Format.KNOCKOUT:
        table = _knockout_order(t, table)
    return [{"place": place, "entry": row.entrant, "bot": entries[row.entrant].bot.name,
             "owner": entries[row.entrant].bot.owner.username, "version": entries[row.entrant].version.number,
             "seed": entries[row.entrant].seed, "points": row.points, "buchholz": row.buchholz,
             "sonneborn_berger": row.sonneborn_berger, "head_to_head": row.head_to_head,
             "point_difference": row.point_difference, "played": row.played}
            for place, row in enumerate(table, start=1)]


def _table_standings(t: Tournament, field: list[int], entries: dict) -> list[dict]:
    """Tables: points are each entrant's share of the other sides beaten at its table, summed over rounds; then
    the number of tables won outright (the best share at its table), then the seed."""
    points = dict.fromkeys(field, 0.0)
    won = dict.fromkeys(field, 0)
    played = dict.fromkeys(field, 0)
    for row in Table.objects.filter(round__tournament=t, scores__isnull=False):
        scores = {int(e): s for e, s in row.scores.items()}
        best = max(scores.values())
        for entrant, score in scores.items():
            points[entrant] += score
            if not row.bye:
                played[entrant] += 1
                won[entrant] += score == best and list(scores.values()).count(best) == 1
    order = sorted(field, key=lambda e: (-points[e], -won[e], entries[e].seed or 0))
    return [{"place": place, "entry": e, "bot": entries[e].bot.name, "owner": entries[e].bot.owner.username,
             "version": entries[e].version.number, "seed": entries[e].seed, "points": round(points[e], 3),
             "tables_won": won[e], "buchholz": None, "sonneborn_berger": None, "head_to_head": None,
             "point_difference": None, "played": played[e]} for place, e in enumerate(order, start=1)]


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
    """Rows and columns by place: the match points each entrant scored against each other (pairings only;
    tables have no one-to-one results)."""
    if t.format in TABLE_FORMATS:
        return {"order": [row["entry"] for row in standings(t)], "cells": {}}
    order = [row["entry"] for row in standings(t)]
    cells = tiebreaks.crosstable(entrants(t), results(t))
    return {"order": order, "cells": cells}


def rounds(t: Tournament) -> list[dict]:
    names = dict(Entry.objects.filter(tournament=t).values_list("pk", "bot__name"))
    found = []
    for rnd in t.round_set.prefetch_related("pairings__first__bot", "pairings__second__bot", "tables") \
            .order_by("number"):
        if t.format in TABLE_FORMATS:
            found.append({"number": rnd.number, "finished": rnd.finished, "pairings": [], "tables": [
                {"board": row.board, "bye": row.bye, "games": row.games,
                 "seats": [{"bot": names[e], "score": None if row.scores is None else round(row.scores[str(e)], 3)}
                           for e in row.seating]} for row in rnd.tables.all()]})
            continue
        found.append({"number": rnd.number, "finished": rnd.finished, "pairings": [
            {"board": p.board, "first": p.first.bot.name, "second": p.second.bot.name if p.second else None,
             "score": p.score, "score_second": None if p.score is None or not p.second_id else 1 - p.score,
             "games": p.games, "games_first": p.games_first, "margin": p.margin,
             "tiebreak_sets": p.tiebreak_sets} for p in rnd.pairings.all()]})
    return found
