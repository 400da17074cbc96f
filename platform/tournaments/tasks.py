from __future__ import annotations

from celery import shared_task

from tournaments import lifecycle


@shared_task(ignore_result=True)
def advance(tournament_id: int) -> str:
    return lifecycle.advance(tournament_id)


@shared_task(ignore_result=True)
def drive() -> dict[str, int]:
    return lifecycle.drive()
