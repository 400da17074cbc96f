"""Sending a Celery task from a request, a hook or a job: the broker may be away, and that is never fatal.

Every message the platform sends is a wake-up call for work whose truth is a database row (docs/matches.md),
and a periodic job notices work whose message never went. So a send that fails is logged (naming what
will pick the work up instead) and the caller goes on; a send from inside a transaction waits for the
commit, so a worker never looks for a row that is not there yet (or never will be, after a rollback).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from django.db import transaction


def enqueue(task: Any, args: tuple = (), *, what: str, fallback: str, logger: logging.Logger | None = None,
            **options: Any) -> bool:
    """Send ``task`` now; when the broker cannot take it, False and a warning on the caller's ``logger``:
    "could not <what> (<why>); <fallback>", the fallback saying what does the work instead."""
    try:
        task.apply_async(args, **options)
    except Exception as err:
        (logger or logging.getLogger(__name__)).warning("could not %s (%s); %s", what, err, fallback)
        return False
    return True


def enqueue_on_commit(task: Any, args: tuple = (), *, what: str, fallback: str, logger: logging.Logger | None = None,
                      **options: Any) -> None:
    """``enqueue`` when the surrounding transaction commits (at once outside one)."""
    # A partial, not a lambda: what a transaction will send can be read off its on-commit callbacks.
    transaction.on_commit(functools.partial(enqueue, task, args, what=what, fallback=fallback, logger=logger,
                                            **options))
