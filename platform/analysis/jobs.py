"""The analysis job: claim the row, run ``arena.analysis`` and ``arena.par`` on the stored replay, write the
result, all or nothing.

Idempotent by the row, never by the broker (DESIGN.md, "A match"): the job claims a queued row, or a running
one whose lease ran out (its worker died), with a conditional update; it writes the result, the worker time
and ``done`` in one conditional update that holds only while its lease does. A message delivered twice finds
the row running or done and does nothing; a killed worker's row is taken again once its lease is over, and
only the run that finishes is counted.
"""

from __future__ import annotations

import gzip
import logging
import os
import socket
import time
import uuid
from datetime import timedelta

import orjson
from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from analysis.models import Analysis
from arena.analysis import analyse
from arena.par import par
from bots import blobs
from matches.access import deal_embargo

logger = logging.getLogger(__name__)
LEASE = timedelta(minutes=25)  # beyond the task's time limit (analysis/tasks.py): a live job keeps its row
MAX_ATTEMPTS = 3  # a job that killed its worker this often is failed, not tried for ever
SEED = 0  # the search's seed: the same replay, seat and budget give the same marks on any machine


def claim(pk: int, owner: str) -> bool:
    now = timezone.now()
    return bool(Analysis.objects.filter(pk=pk, attempts__lt=MAX_ATTEMPTS).filter(
        Q(status=Analysis.Status.QUEUED) | Q(status=Analysis.Status.RUNNING, lease_expires__lt=now)).update(
        status=Analysis.Status.RUNNING, lease_owner=owner, lease_expires=now + LEASE, started=now,
        attempts=F("attempts") + 1))


def run(pk: int) -> str:
    """Analyse row ``pk`` if it is there to take; what happened, in a word or two (for the worker's log)."""
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not claim(pk, owner):
        _fail_worn_out(pk)
        return "not taken"
    row = Analysis.objects.select_related("match").get(pk=pk)
    embargo = deal_embargo(row.match)
    if embargo is not None:  # never reached through the pages; a job must still not read a deal in play
        return _finish(row, owner, status=Analysis.Status.FAILED, reason=f"the replay is {embargo}")
    builtins = [s.version.builtin or None for s in row.match.seats.select_related("version").order_by("seat")]
    start = time.process_time()
    try:
        replay = orjson.loads(gzip.decompress(blobs.get("replays", row.replay_sha256)))
        result = analyse(replay, [row.seat], budget=row.budget, seed=SEED)
        found_par = par(replay, row.seat, builtins, iterations=settings.ANALYSIS_PAR_ITERATIONS or None, seed=SEED)
    except Exception as err:  # the reason is the row's, for the page; the traceback the log's
        logger.exception("analysis %s of match %s failed", pk, row.match_id)
        return _finish(row, owner, status=Analysis.Status.FAILED, reason=f"{type(err).__name__}: {err}",
                       worker_ms=round((time.process_time() - start) * 1000))
    summary = result["seats"][0]
    return _finish(row, owner, status=Analysis.Status.DONE, result=result, par=found_par,
                   expected_loss=summary["expected_loss"], decisions=summary["analysed"],
                   worker_ms=round((time.process_time() - start) * 1000))


def _finish(row: Analysis, owner: str, **values) -> str:
    written = Analysis.objects.filter(pk=row.pk, status=Analysis.Status.RUNNING, lease_owner=owner).update(
        finished=timezone.now(), lease_expires=None, **values)
    return values["status"] if written else "lost its lease"


def _fail_worn_out(pk: int) -> None:
    """A row its workers died on MAX_ATTEMPTS times (it may be what kills them) fails, with that reason."""
    now = timezone.now()
    Analysis.objects.filter(pk=pk, attempts__gte=MAX_ATTEMPTS).filter(
        Q(status=Analysis.Status.QUEUED) | Q(status=Analysis.Status.RUNNING, lease_expires__lt=now)).update(
        status=Analysis.Status.FAILED, finished=now, lease_expires=None,
        reason=f"its worker stopped {MAX_ATTEMPTS} times before it finished")
