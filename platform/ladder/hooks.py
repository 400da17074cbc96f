"""The ladder's steps of the finish pipeline (settings.MATCH_HOOKS)."""

from __future__ import annotations

import logging

from bots.models import BotVersion
from config.enqueue import enqueue_on_commit
from ladder.suspension import suspend_failing_bots
from ladder.tasks import fill_ladder
from matches.hooks import MatchHook
from matches.models import Match, Seat

log = logging.getLogger(__name__)


class SuspendFailingBots(MatchHook):
    """A version that crashed or timed out SUSPEND_AFTER ladder matches in a row leaves the ladder."""

    kinds = frozenset({Match.Kind.LADDER})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        suspend_failing_bots(match, seats)


class PlaceNewVersions(MatchHook):
    """A version that just passed validation starts its placement games now, not at the next beat."""

    kinds = frozenset({Match.Kind.VALIDATION})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        version_id = match.validates_id
        if version_id is not None and BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.READY).exists():
            enqueue_on_commit(fill_ladder, queue="maintenance", logger=log, what="fill the ladder now",
                              fallback="the beat job fills it within 10 s anyway")
