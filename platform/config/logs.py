"""Log lines that say which request or which match they belong to.

Two context variables: the request id (set by ``config.middleware.RequestId`` for the whole of a request)
and the match id (set by ``play.tasks.play_match`` while it plays one). ``Context``, a filter on the
console handler (settings.LOGGING), copies whichever is set onto every record: JSON lines carry them as
``request_id`` and ``match_id`` fields, plain lines as ``[request …]`` / ``[match …]`` after the logger's
name. ``KOZYR_LOG_FORMAT`` chooses the format (JSON in production, plain for ``make run``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

request_id: ContextVar[str | None] = ContextVar("kozyr_request_id", default=None)
match_id: ContextVar[int | None] = ContextVar("kozyr_match_id", default=None)

PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s%(context)s: %(message)s"
# What a JSON line never carries: the record's own bookkeeping, the plain format's suffix, and the request
# object Django's request logger attaches (its repr says nothing the message does not).
JSON_SKIPPED = [*RESERVED_ATTRS, "context", "request", "taskName", "color_message"]


class Context(logging.Filter):
    """Adds ``request_id`` and ``match_id`` to a record when they are set, and ``context`` (the plain
    format's suffix) always. Never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        suffix = []
        request, match = request_id.get(), match_id.get()
        if request is not None:
            record.request_id = request
            suffix.append(f"request {request}")
        if match is not None:
            record.match_id = match
            suffix.append(f"match {match}")
        record.context = f" [{', '.join(suffix)}]" if suffix else ""
        return True


def json_formatter() -> logging.Formatter:
    """One JSON object per line: time (ISO 8601, UTC), level, logger, message, then request_id, match_id,
    exc_info and any ``extra`` the caller gave."""
    return JsonFormatter(["levelname", "name", "message"], timestamp="time",
                         rename_fields={"levelname": "level", "name": "logger"}, reserved_attrs=JSON_SKIPPED)


def plain_formatter() -> logging.Formatter:
    return logging.Formatter(PLAIN_FORMAT)


def chosen_format() -> str:
    """settings.LOG_FORMAT's rule, for what logs before Django's settings exist (gunicorn's master); a value
    settings would refuse stops start-up there, so anything but "plain" here is JSON or the production default."""
    chosen = os.environ.get("KOZYR_LOG_FORMAT", "").strip().lower()
    if chosen in ("json", "plain"):
        return chosen
    return "json" if os.environ.get("KOZYR_ENV", "").strip().lower() == "production" else "plain"


@contextlib.contextmanager
def match_context(match: int) -> Iterator[None]:
    """Every line logged inside is about this match."""
    token = match_id.set(match)
    try:
        yield
    finally:
        match_id.reset(token)


def with_match_id(task: Callable[..., str]) -> Callable[..., str]:
    """A task whose first argument is a match id logs every line inside it with that id, and says at INFO
    when it starts and how it ended (so a worker at INFO shows each match it plays, with its id)."""
    log = logging.getLogger(task.__module__)

    @functools.wraps(task)
    def run(match: int, *args, **kwargs) -> str:
        with match_context(match):
            log.info("match %s: taken", match)
            began = time.monotonic()
            outcome = "interrupted"
            try:
                outcome = task(match, *args, **kwargs)
                return outcome
            except BaseException as stopped:  # a retry, a lost worker, a bug: said, and passed on
                outcome = type(stopped).__name__
                raise
            finally:
                seconds = round(time.monotonic() - began, 3)
                log.info("match %s: %s after %.1f s", match, outcome, seconds,
                         extra={"outcome": outcome, "seconds": seconds})

    return run
