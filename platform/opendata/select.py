"""Which matches are open data: finished, public, out of the hidden-information embargo, every seat consenting.

"Public" is what the site shows anyone: ladder, challenge and tournament matches. A validation match is its
bot's owner's business (matches.access.detail_visible) and a casual match seats a person, whose play is not a
bot's to publish; both stay out. A match whose deal is still in play (``Match.with_deal_in_play``) shows the
cards of a deal someone is still to play; one with a seat of a bot whose author opted out (``Bot.open_data``)
is that author's choice. The episodes API lists the same public matches (without the consent rule, which is
about dumps only: each replay is public on its match's page anyway).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.functions import TruncMonth

from bots.models import Bot
from matches.models import Match, Seat

PUBLIC_KINDS = (Match.Kind.LADDER, Match.Kind.CHALLENGE, Match.Kind.TOURNAMENT)


def public_matches() -> QuerySet[Match]:
    """Finished public matches with a stored replay, each annotated with ``deal_still_in_play``."""
    return (Match.objects.with_deal_in_play()
            .filter(status=Match.Status.FINISHED, kind__in=PUBLIC_KINDS).exclude(replay_sha256="")
            .exclude(Exists(Seat.objects.filter(match=OuterRef("pk"), version__bot__kind=Bot.Kind.PERSON))))


def opted_out() -> Exists:
    return Exists(Seat.objects.filter(match=OuterRef("pk"), version__bot__open_data=False))


def month_bounds(month: date) -> tuple[datetime, datetime]:
    start = datetime(month.year, month.month, 1, tzinfo=UTC)
    following = (start + timedelta(days=32)).replace(day=1)
    return start, following


def of_month(preset: str, month: date) -> QuerySet[Match]:
    start, end = month_bounds(month)
    return public_matches().filter(preset=preset, finished__gte=start, finished__lt=end)


def dump_matches(preset: str, month: date) -> QuerySet[Match]:
    """The matches a dump of ``preset`` and ``month`` holds, as of now."""
    return of_month(preset, month).filter(deal_still_in_play=False).exclude(opted_out())


def withheld(preset: str, month: date) -> dict[str, int]:
    """The month's public matches a dump built now leaves out, by reason (a match with both counts once, as
    embargoed)."""
    matches = of_month(preset, month)
    embargoed = matches.filter(deal_still_in_play=True).count()
    consent = matches.filter(deal_still_in_play=False).filter(opted_out()).count()
    return {"embargo": embargoed, "consent": consent}


def still_embargoed(preset: str, month: date) -> bool:
    return of_month(preset, month).filter(deal_still_in_play=True).exists()


def finished_months(before: datetime) -> list[tuple[str, date]]:
    """(preset, month) of every month before ``before``'s with a finished public match, oldest first."""
    start = datetime(before.year, before.month, 1, tzinfo=UTC)
    rows = (Match.objects.filter(status=Match.Status.FINISHED, kind__in=PUBLIC_KINDS, finished__lt=start)
            .exclude(replay_sha256="").annotate(month=TruncMonth("finished", tzinfo=UTC))
            .values_list("preset", "month").distinct().order_by())
    found = {(preset, month.date() if isinstance(month, datetime) else month) for preset, month in rows}
    return sorted(found, key=lambda pair: (pair[1], pair[0]))
