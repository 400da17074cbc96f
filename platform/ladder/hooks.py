"""The ladder's steps of the finish pipeline (settings.MATCH_HOOKS)."""

from __future__ import annotations

import logging

from django.db import transaction

from bots.models import BotVersion
from config.enqueue import enqueue_on_commit
from ladder.suspension import suspend_failing_bots
from ladder.tasks import fill_ladder
from ladder.withdrawal import withdraw_ineligible
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


def withdraw_on_commit(sender, bot_id: int | None = None, bot_ids: list[int] | None = None, **_) -> None:
    """bots.signals: a bot's standing on the ladder changed; once that is committed, its versions that left the
    ladder lose their queued ladder matches (ladder.withdrawal)."""
    ids = list(bot_ids or []) + ([bot_id] if bot_id is not None else [])
    transaction.on_commit(lambda: withdraw_ineligible(ids))
