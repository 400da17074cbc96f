"""Asking for an analysis: check who may, find it in the cache, spend the user's allowance, queue the job.

One way in for the pages (and any other caller): ``do_request_analysis``. A key already analysed, queued or
being analysed (replay, seat, budget) is answered from its row and costs nothing; a new one, or one whose
job failed or whose worker died, spends one of the user's analyses of the hour and queues the job on the
``analysis`` queue, which every worker takes after every match queue (config/celery_settings.py).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.limits import Limit, RateLimited, give_back, spend
from analysis.access import NotAnalysable, check_analysable
from analysis.models import Analysis
from config.celery_settings import ANALYSIS_PRIORITY, ANALYSIS_QUEUE
from config.enqueue import enqueue_on_commit
from config.errors import ActionError
from matches.models import Match, Seat

logger = logging.getLogger(__name__)
# The analysis queue, at the matches' own priority: a message without one is urgent on Redis, and a worker
# takes every queue's urgent messages before any queue's others (config/celery_settings.py).
PUBLISH = {"queue": ANALYSIS_QUEUE, "priority": ANALYSIS_PRIORITY}


class TooManyAnalyses(ActionError):
    status = 429
    code = "rate_limited"

    def __init__(self, message: str, wait: int):
        super().__init__(message)
        self.wait = wait


def analysis_limit() -> Limit:
    return Limit("analyses", settings.ANALYSES_PER_HOUR, 3600, "analyses")


def cached(match: Match, seat: int, budget: int) -> Analysis | None:
    return Analysis.objects.filter(replay_sha256=match.replay_sha256, seat=seat, budget=budget).first()


def do_request_analysis(user, match_id: int, seat: int, budget: int | None = None) -> tuple[Analysis, bool]:
    """The analysis of ``seat`` of match ``match_id`` at ``budget`` (default: the site's), and whether this
    request queued a job (False: the cache answered). Raises NotAnalysable, Embargoed or TooManyAnalyses."""
    budget = budget or settings.ANALYSIS_BUDGET
    match = Match.objects.filter(pk=match_id).first()
    seats = list(Seat.objects.filter(match_id=match_id).select_related("version__bot").order_by("seat"))
    allowed = check_analysable(user, match, seats)
    assert match is not None  # check_analysable refuses a missing match
    if seat not in allowed:
        raise NotAnalysable(f"seat {seat} of match {match_id} is not one you may analyse; yours: "
                            f"{', '.join(map(str, allowed))}", field="seat")
    found = cached(match, seat, budget)
    if found is not None and found.status == Analysis.Status.QUEUED:
        _publish(found)  # its message may have been lost; a second one finds the row claimed or done
        return found, False
    if found is not None and not (found.status == Analysis.Status.FAILED or found.is_stale):
        return found, False
    limit = analysis_limit()
    try:
        spent = spend(limit, user.pk)
    except RateLimited as err:
        raise TooManyAnalyses(f"Analyses are limited to {limit.count} an hour per user: {err}. Analyses "
                              f"already made are shown without counting.", err.wait) from None
    version = next(s.version for s in seats if s.seat == seat)
    with transaction.atomic():
        if found is not None:  # failed, or its worker died: run it again
            again = Analysis.objects.filter(pk=found.pk, status=found.status, attempts=found.attempts).update(
                status=Analysis.Status.QUEUED, reason="", lease_owner="", lease_expires=None, requested_by=user,
                attempts=0)
            found.refresh_from_db()
            if not again:  # another request re-queued it first
                give_back(limit, user.pk, spent)
                return found, False
            row = found
        else:
            try:
                with transaction.atomic():
                    row = Analysis.objects.create(match=match, replay_sha256=match.replay_sha256, seat=seat,
                                                  budget=budget, version=version, requested_by=user)
            except IntegrityError:  # the same key asked for at the same moment: that request's row answers
                give_back(limit, user.pk, spent)
                existing = cached(match, seat, budget)
                assert existing is not None
                return existing, False
        _publish(row)
    return row, True


def _publish(row: Analysis) -> None:
    from analysis.tasks import run_analysis

    enqueue_on_commit(run_analysis, (row.pk,), what=f"queue the analysis {row.pk}",
                      fallback="asking for the same analysis again sends it again", logger=logger, **PUBLISH)
