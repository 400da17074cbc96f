"""The matches app's periodic job that is not the worker's runtime (play/tasks.py holds that): pruning."""

from __future__ import annotations

from celery import shared_task

from matches import prune

# A run's share of the maintenance worker, which beat's 15-second jobs also need: the next run goes on.
PRUNE_BUDGET_SECONDS = 120.0


@shared_task(ignore_result=True)
def prune_files() -> dict[str, int]:
    """Beat, hourly: stderr logs and private replays past their retention deleted (matches/prune.py)."""
    pruned = prune.prune(budget_seconds=PRUNE_BUDGET_SECONDS)
    return {"logs": pruned.logs, "replays": pruned.replays, "files": pruned.files}
