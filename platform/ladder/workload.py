"""What a bot costs the workers, as its page shows it: matches per hour, time per match, and its share of the
workers' time beside the fair share (ladder.matchmaking's policy: equal worker time per version of a preset)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, DurationField, ExpressionWrapper, F, Sum
from django.utils import timezone

from bots.models import Bot
from matches.models import Match, Seat

WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class Workload:
    matches: int  # finished in the window
    per_hour: float
    wall_s_per_match: float  # from start to finish, every seat's time and the referee's
    think_s_per_match: float  # this bot's own clock
    worker_share: float  # of the workers' time in the window's matches of its presets, 0..1
    fair_share: float  # 1 / the versions that played those presets in the window

    @property
    def wall_text(self) -> str:
        return duration(self.wall_s_per_match)

    @property
    def think_text(self) -> str:
        return duration(self.think_s_per_match)

    @property
    def worker_percent(self) -> float:
        return self.worker_share * 100

    @property
    def fair_percent(self) -> float:
        return self.fair_share * 100

    @property
    def over_share(self) -> bool:
        return self.worker_share > self.fair_share * 1.5


def duration(seconds: float) -> str:
    """A time as people read it: milliseconds under a second, else seconds to a tenth (no "2.0 s")."""
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    return f"{seconds:.1f}".removesuffix(".0") + " s"


def workload(bot: Bot, now=None) -> Workload | None:
    """The bot's finished matches of the last WINDOW (all kinds), or None when there were none."""
    since = (now or timezone.now()) - WINDOW
    finished = dict(match__status=Match.Status.FINISHED, match__finished__gte=since)
    mine = Seat.objects.filter(version__bot=bot, **finished).aggregate(
        matches=Count("match", distinct=True), think=Sum("think_ms"), worker=Sum("worker_ms"))
    if not mine["matches"]:
        return None
    presets = set(Seat.objects.filter(version__bot=bot, **finished).values_list("match__preset", flat=True))
    everyone = Seat.objects.filter(match__preset__in=presets, **finished).aggregate(
        worker=Sum("worker_ms"), versions=Count("version", distinct=True))
    took = ExpressionWrapper(F("finished") - F("started"), output_field=DurationField())
    wall = (Match.objects.filter(pk__in=Seat.objects.filter(version__bot=bot, **finished).values("match_id"),
                                 started__isnull=False).aggregate(total=Sum(took))["total"] or timedelta())
    matches = mine["matches"]
    return Workload(matches=matches, per_hour=matches / (WINDOW.total_seconds() / 3600),
                    wall_s_per_match=wall.total_seconds() / matches,
                    think_s_per_match=(mine["think"] or 0) / 1000 / matches,
                    worker_share=(mine["worker"] or 0) / everyone["worker"] if everyone["worker"] else 0.0,
                    fair_share=1 / max(1, everyone["versions"]))
