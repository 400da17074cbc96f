"""The ladder's suspension rule: a version that keeps crashing or timing out is taken off the ladder."""

from __future__ import annotations

from accounts.models import SYSTEM_USERNAME
from arena import protocol
from bots.models import Bot
from bots.signals import ladder_standing_changed
from matches.models import Match, Seat

SUSPEND_AFTER = 5  # consecutive ladder matches crashed or timed out
FAULT_VERDICTS = (protocol.CRASH, protocol.TIMEOUT)


def suspend_failing_bots(match: Match, seats: list[Seat]) -> None:
    """After a ladder match: a version that crashed or timed out SUSPEND_AFTER ladder matches in a row is
    taken off the ladder (its owner sees why on the bot's page and in the API)."""
    for seat in seats:
        if seat.verdict not in FAULT_VERDICTS:
            continue
        last = list(Seat.objects.filter(version_id=seat.version_id, match__kind=Match.Kind.LADDER,
                                         match__status=Match.Status.FINISHED)
                    .exclude(match_id=match.pk).order_by("-match__finished")
                    .values_list("verdict", "code")[: SUSPEND_AFTER - 1])
        if len(last) == SUSPEND_AFTER - 1 and all(v in FAULT_VERDICTS for v, _ in last):
            reason = (f"suspended from the ladder: version v{seat.version.number} ended {SUSPEND_AFTER} ladder "
                      f"matches in a row by {seat.verdict} (last: {seat.code}: {seat.detail[:200]}); "
                      f"{'make a new remote version' if seat.version.is_remote else 'upload a fixed version'} to "
                      f"return")
            if Bot.objects.filter(pk=seat.version.bot_id, suspended_reason="").exclude(
                    owner__username=SYSTEM_USERNAME).update(suspended_reason=reason, suspended_by="ladder"):
                ladder_standing_changed.send(sender=Bot, bot_ids=[seat.version.bot_id])
