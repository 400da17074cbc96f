"""Pruning the files a site need not keep for ever: the bots' stderr logs, and the replays nothing depends on.

What goes (docs/operations.md, "Pruning"), each when its match finished longer ago than its setting says
(0: never):

- a seat's stderr log (``KOZYR_PRUNE_LOGS_DAYS``): private to the bot's owner, read by nothing but the
  owner's match page and the log endpoint, which then say there is none;
- the replay of a validation or a casual match (``KOZYR_PRUNE_REPLAYS_DAYS``): never ranked, never in a
  tournament, never public, so no rating, tournament, episode list or open-data dump reads it
  (``opendata.select.PUBLIC_KINDS`` is the kinds the dumps and the episodes take: none of these).

What never goes: the replay of a ladder, challenge or tournament match, public and the record that the dumps
are built and rebuilt from, and every database row (results, seats, ratings stay whole).

Idempotent and safe to stop anywhere: a batch first clears its rows' names (one UPDATE), then deletes each blob
no row names any more. Blobs are stored by content, so rows may share one: it goes only with the last name. A
worker that stores the same bytes for a match finishing at that moment puts them back (``release``). Memory
is one batch of ids and one blob at a time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from bots import blobs
from matches.models import Match, Seat

log = logging.getLogger(__name__)

BATCH = 500
# The kinds whose replays may go: nothing ranks, dumps or lists them for anyone but their owner.
PRUNABLE_REPLAY_KINDS = (Match.Kind.VALIDATION, Match.Kind.CASUAL)


@dataclass
class Pruned:
    logs: int = 0  # seats whose log name was cleared
    replays: int = 0  # matches whose replay name was cleared
    files: int = 0  # blobs deleted
    done: bool = True  # False: the time budget ran out with more to do (the next run goes on)


def prune(budget_seconds: float | None = None, batch: int = BATCH) -> Pruned:
    """Prune what the settings say is old, in batches, until nothing is left or the budget is spent."""
    deadline = None if budget_seconds is None else time.monotonic() + budget_seconds
    pruned = Pruned()
    now = timezone.now()
    jobs: list[tuple[str, Callable[[datetime, int], tuple[int, int]], int]] = [
        ("logs", prune_logs, settings.PRUNE_LOGS_DAYS), ("replays", prune_replays, settings.PRUNE_REPLAYS_DAYS)]
    for field, job, days in jobs:
        if not days:
            continue
        cutoff = now - timedelta(days=days)
        while True:
            if deadline is not None and time.monotonic() > deadline:
                pruned.done = False
                break
            rows, files = job(cutoff, batch)
            setattr(pruned, field, getattr(pruned, field) + rows)
            pruned.files += files
            if rows < batch:
                break
    if pruned.logs or pruned.replays:
        log.info("pruned %d stderr logs and %d replays (%d files deleted)%s", pruned.logs, pruned.replays,
                 pruned.files, "" if pruned.done else "; more next time")
    return pruned


def prune_logs(cutoff: datetime, batch: int) -> tuple[int, int]:
    """One batch of stderr logs of matches finished before ``cutoff``: (seats cleared, files deleted)."""
    rows = list(Seat.objects.filter(match__finished__lt=cutoff).exclude(log_sha256="")
                .order_by("pk").values_list("pk", "log_sha256")[:batch])
    if not rows:
        return 0, 0
    Seat.objects.filter(pk__in=[pk for pk, _ in rows]).update(log_sha256="", log_size=0)
    deleted = sum(release("logs", sha, Seat.objects.filter(log_sha256=sha).exists)
                  for sha in {sha for _, sha in rows})
    return len(rows), deleted


def prune_replays(cutoff: datetime, batch: int) -> tuple[int, int]:
    """One batch of replays of validation and casual matches finished before ``cutoff``."""
    rows = list(Match.objects.filter(kind__in=PRUNABLE_REPLAY_KINDS, ranked=False, finished__lt=cutoff)
                .exclude(replay_sha256="").order_by("pk").values_list("pk", "replay_sha256")[:batch])
    if not rows:
        return 0, 0
    Match.objects.filter(pk__in=[pk for pk, _ in rows]).update(replay_sha256="", replay_size=0)
    deleted = sum(release("replays", sha, Match.objects.filter(replay_sha256=sha).exists)
                  for sha in {sha for _, sha in rows})
    return len(rows), deleted


def release(kind: str, sha256: str, named: Callable[[], bool]) -> bool:
    """Delete a blob that no row names; True when it was deleted. Its bytes are held meanwhile: a match that
    finished with the same bytes between the two checks (its worker found the file there and stored nothing)
    gets them back."""
    if named():
        return False
    try:
        data: bytes | None = blobs.get(kind, sha256)
    except blobs.BlobMissing:
        return False  # gone already (a run stopped between its UPDATE and here, or another run)
    except blobs.BlobCorrupt:
        data = None  # nothing worth putting back
    blobs.delete(kind, sha256)
    if data is not None and named():
        blobs.put(kind, data)
        return False
    return True
