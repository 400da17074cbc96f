"""Read-only queries of tournaments, shared by the API and the pages."""

from __future__ import annotations

from django.db.models import Count, Q
from django.http import Http404

from tournaments.models import Tournament


def tournament_queryset():
    return Tournament.objects.select_related("host").annotate(entry_count=Count("entries", filter=Q(
        entries__withdrawn="")))


def access_tournament(pk: int) -> Tournament:
    t = tournament_queryset().filter(pk=pk).first()
    if t is None:
        raise Http404("no such tournament")
    return t
