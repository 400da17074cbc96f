"""Leaving the ladder leaves it: a version that stops being eligible loses its queued ladder matches at once.

A version leaves the ladder when its bot is deactivated or suspended (by the ladder's own rule or by staff),
when its owner's account is suspended, when it is retired, and when another version becomes the bot's current
one. Its ladder matches still queued are cancelled then (a match being played finishes: its result is real),
so a bot that left is not seen playing for minutes after, nor kept high on the leaderboard by games it should
no longer play. The paths that change these (bots.actions, the ladder's suspension, the admin) ask for it at
once through ``bots.signals.ladder_standing_changed`` and ``current_version_changed``; the beat's fill runs it
too, for anything changed by hand in the database.
"""

from __future__ import annotations

import logging

from django.db.models import F, Q
from django.utils import timezone

from bots.models import Bot
from matches.models import Match, Seat

log = logging.getLogger(__name__)


def reasons() -> list[tuple[Q, str]]:
    """(seats that left the ladder, why), the reasons in the order they are reported."""
    bot = "version__bot__"
    return [
        (Q(**{f"{bot}deleted__isnull": False}), "its bot was deleted"),
        (Q(**{f"{bot}active": False}), "its bot was deactivated"),
        (~Q(**{f"{bot}suspended_reason": ""}), "its bot was suspended"),
        (Q(**{f"{bot}owner__is_active": False}), "its owner's account was suspended"),
        (Q(version__retired=True), "it was retired"),
        (~Q(**{f"{bot}current_version": F("version_id")}), "another version of its bot became the current one"),
    ]


def withdraw_ineligible(bot_ids: list[int] | None = None) -> int:
    """Cancel every queued ladder match with a seat whose version left the ladder (only those of ``bot_ids``
    when given); the number cancelled. Idempotent: a match is cancelled only while it is queued."""
    seats = Seat.objects.filter(match__kind=Match.Kind.LADDER, match__status=Match.Status.QUEUED,
                                version__bot__kind=Bot.Kind.BOT)
    if bot_ids is not None:
        seats = seats.filter(version__bot_id__in=bot_ids)
    cancelled = 0
    for gone, why in reasons():
        rows = list(seats.filter(gone).values_list("match_id", "version__bot__name", "version__number")
                    .order_by("match_id"))
        for match_id, name, number in rows:
            reason = f"cancelled: {name} v{number} left the ladder ({why})"
            cancelled += Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
                status=Match.Status.CANCELLED, failure=reason, finished=timezone.now())
    cancelled += cancel_deleted(bot_ids)
    if cancelled:
        log.info("cancelled %s queued ladder matches of versions that left the ladder", cancelled)
    return cancelled


# A deleted bot plays nothing more that only it and the ladder wait for: a challenge, a validation. A tournament's
# and a live table's matches are others' events, and play (the version stays, retired).
DELETED_CANCELS = (Match.Kind.LADDER, Match.Kind.CHALLENGE, Match.Kind.VALIDATION)


def cancel_deleted(bot_ids: list[int] | None = None) -> int:
    """Cancel the queued ladder, challenge and validation matches with a seat of a deleted bot."""
    seats = Seat.objects.filter(match__kind__in=DELETED_CANCELS, match__status=Match.Status.QUEUED,
                                version__bot__deleted__isnull=False)
    if bot_ids is not None:
        seats = seats.filter(version__bot_id__in=bot_ids)
    cancelled = 0
    for match_id, name in seats.values_list("match_id", "version__bot__name").order_by("match_id"):
        cancelled += Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
            status=Match.Status.CANCELLED, failure=f"cancelled: {name} was deleted by its owner",
            finished=timezone.now())
    return cancelled
