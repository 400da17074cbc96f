"""The ladder's periodic job (beat, every 10 s) and its immediate form after a validation."""

from __future__ import annotations

from celery import shared_task

from ladder import matchmaking


@shared_task(ignore_result=True)
def fill_ladder() -> int:
    return matchmaking.fill_ladder()
