"""Read-only queries of tournaments, shared by the API, the pages, the standings and the lifecycle."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from matches.models import Match
from tournaments.models import TABLE_FORMATS, Pairing, PairingSet, Table, TableSet, Tournament
from tournaments.pairing.records import Result


def tournament_queryset():
    return Tournament.objects.select_related("host").annotate(entry_count=Count("entries", filter=Q(
        entries__withdrawn="")))


def access_tournament(pk: int) -> Tournament:
    t = tournament_queryset().filter(pk=pk).first()
    if t is None:
        raise Http404("no such tournament")
    return t


def entrants(t: Tournament) -> list[int]:
    return list(t.entries.filter(withdrawn="").order_by("seed").values_list("pk", flat=True))


def results(t: Tournament) -> list[Result]:
    found = []
    for p in Pairing.objects.filter(round__tournament=t, score__isnull=False).select_related("round"):
        found.append(Result(round=p.round.number, first=p.first_id, second=p.second_id, score=p.score,
                            margin=p.margin) if p.second_id else
                     Result(round=p.round.number, first=p.first_id, second=None, score=p.score))
    return found


def table_points(t: Tournament) -> dict[int, float]:
    points: dict[int, float] = {}
    for row in Table.objects.filter(round__tournament=t, scores__isnull=False):
        for entry, score in row.scores.items():
            points[int(entry)] = points.get(int(entry), 0.0) + score
    return points


def tournament_matches(t: Tournament) -> QuerySet[Match]:
    sets = PairingSet.objects.filter(pairing__round__tournament=t).values("duplicate_set")
    table_sets = TableSet.objects.filter(table__round__tournament=t).values("duplicate_set")
    return Match.objects.filter(kind=Match.Kind.TOURNAMENT).filter(
        Q(duplicate_set__in=sets) | Q(duplicate_set__in=table_sets))


def board_sets(t: Tournament) -> dict:
    """Each duplicate set of the tournament -> the (round number, board) of the pairing or table it was played
    for."""
    if t.format in TABLE_FORMATS:
        rows = TableSet.objects.filter(table__round__tournament=t).values_list(
            "duplicate_set", "table__round__number", "table__board")
    else:
        rows = PairingSet.objects.filter(pairing__round__tournament=t).values_list(
            "duplicate_set", "pairing__round__number", "pairing__board")
    return {duplicate_set: (number, board) for duplicate_set, number, board in rows}


def matches_by_board(t: Tournament) -> dict[tuple[int, int], list[int]]:
    """The ids of the matches played for each pairing or table, keyed by (round number, board), in the order
    they were created (tiebreak sets last). Two queries, whatever the size of the tournament."""
    sets = board_sets(t)
    found: dict[tuple[int, int], list[int]] = {}
    for duplicate_set, pk in tournament_matches(t).order_by("pk").values_list("duplicate_set", "pk"):
        if duplicate_set in sets:
            found.setdefault(sets[duplicate_set], []).append(pk)
    return found


def board_matches(t: Tournament, number: int, board: int) -> QuerySet[Match]:
    """The matches of one pairing or table (round ``number``, ``board``) of the tournament."""
    if t.format in TABLE_FORMATS:
        sets = TableSet.objects.filter(table__round__tournament=t, table__round__number=number, table__board=board)
    else:
        sets = PairingSet.objects.filter(pairing__round__tournament=t, pairing__round__number=number,
                                         pairing__board=board)
    return Match.objects.filter(kind=Match.Kind.TOURNAMENT, duplicate_set__in=sets.values("duplicate_set"))
