"""The analysis queue's one task: a wake-up call for an Analysis row (analysis/jobs.py does the work)."""

from __future__ import annotations

from celery import shared_task

from analysis import jobs


@shared_task(name="analysis.tasks.run_analysis", acks_late=True, soft_time_limit=20 * 60, time_limit=21 * 60)
def run_analysis(analysis_id: int) -> str:
    return jobs.run(analysis_id)
