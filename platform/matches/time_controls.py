"""A time control asked for by a user: one check for every way in, and the longest its match can take.

``check_time_control`` is the only gate for a user's clocks (the tournament API and page, and whatever accepts
one next): every field has bounds (``BOUNDS``) and an error names the field and its allowed range.

However long the clocks, a platform match never outlives its worker's task. The referee stops a match at its
wall-clock ceiling: the time control's own (every start-up, every decision at full move time, every seat's
bank, at most arena's ``MATCH_WALL_CEILING_S``), and on the platform never later than the worker's soft time
limit less ``WORKER_OVERHEAD_S``, the time a task needs around the match itself (``match_ceiling_seconds``,
given to the referee by ``play.match.job_for``). docs/matches.md, "Time controls".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from arena.referee import MAX_DECISIONS, TimeControl
from config.errors import ActionError

# The allowed range of every field, in milliseconds (inclusive). A start-up under a second fails honest bots
# on a loaded machine; a minute per decision (the tournament page's cap) and a ten-minute bank are far beyond
# any card game's need.
BOUNDS: dict[str, tuple[int, int]] = {
    "startup_ms": (1_000, 60_000),
    "move_ms": (50, 60_000),
    "bank_ms": (0, 600_000),
}
# What a task does around the referee's ceiling: fetching and staging the bots, closing the sandboxes (their own
# wall limit is arena.runner.SANDBOX_WALL_MARGIN_S above the ceiling), storing the replay and the logs, and
# retrying the result's write while the database is away (play.tasks.DATABASE_RETRY_SECONDS).
WORKER_OVERHEAD_S = 300.0
STANDARD = TimeControl()


class TimeControlError(ActionError):
    """A time control out of bounds; ``field`` names the setting at fault."""


def _range(name: str) -> str:
    low, high = BOUNDS[name]
    return f"from {low:,} to {high:,} ms ({low / 1000:g}–{high / 1000:g} s)"


def check_time_control(data: Mapping[str, Any] | None) -> TimeControl:
    """The user's time control, a field left out taking the standard value; a TimeControlError naming the first
    field that is unknown, not a whole number of milliseconds, or out of its range."""
    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise TimeControlError(f"a time control is an object with {', '.join(BOUNDS)}", "time_control")
    for name in data:
        if name not in BOUNDS:
            raise TimeControlError(f"unknown field {name!r}; a time control has {', '.join(BOUNDS)}", str(name))
    values = {}
    for name, (low, high) in BOUNDS.items():
        value = data.get(name, getattr(STANDARD, name))
        if isinstance(value, bool) or not isinstance(value, int):
            raise TimeControlError(f"{name} must be a whole number of milliseconds {_range(name)}, got {value!r}",
                                   name)
        if not low <= value <= high:
            raise TimeControlError(f"{name} must be {_range(name)}, got {value:,}", name)
        values[name] = value
    return TimeControl(**values)


def worker_seconds() -> float:
    """The worker's soft time limit: past it Celery interrupts the task, and the match is lost work."""
    return float(settings.CELERY_TASK_SOFT_TIME_LIMIT)


def match_ceiling_seconds(control: TimeControl, seats: int) -> float:
    """The referee's wall-clock ceiling for a platform match under ``control``."""
    return min(control.match_seconds(seats, MAX_DECISIONS), worker_seconds() - WORKER_OVERHEAD_S)


def worst_case_seconds(control: TimeControl, seats: int) -> float:
    """The longest a match under ``control`` holds its worker: the referee's ceiling (what MAX_DECISIONS
    decisions at full move time, every start-up and every bank allow, capped) and the task's work around it."""
    return match_ceiling_seconds(control, seats) + WORKER_OVERHEAD_S
