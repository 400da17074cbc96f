"""Events that reach notifications without a match's end: a bot suspended (bots' ``ladder_standing_changed``,
sent inside the transaction that suspends it, by the ladder's rule or by staff) and a tournament that started
or finished (its row saved with that status by tournaments.lifecycle). Both are read after the commit."""

from __future__ import annotations

import functools

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from bots.models import Bot
from bots.signals import ladder_standing_changed
from notifications import events
from tournaments.models import Tournament


@receiver(ladder_standing_changed, sender=Bot, dispatch_uid="notifications.suspended")
def bot_standing_changed(sender, bot_ids: list[int] | None = None, bot_id: int | None = None, **_) -> None:
    ids = list(bot_ids or []) + ([bot_id] if bot_id is not None else [])
    transaction.on_commit(functools.partial(events.suspended, ids))


@receiver(post_save, sender=Tournament, dispatch_uid="notifications.tournament")
def tournament_saved(sender, instance: Tournament, update_fields=None, **_) -> None:
    # lifecycle.start and lifecycle.finish save the status with update_fields; pause and resume use update()
    # (no signal), so a resumed tournament is not "started" again (and a key tells each event once anyway).
    if update_fields and "status" in update_fields and instance.status in (Tournament.Status.RUNNING,
                                                                            Tournament.Status.FINISHED):
        transaction.on_commit(functools.partial(events.tournament_status, instance.pk, instance.status))
