"""How much of a bot's time its host took: Linux's per-thread scheduler statistics.

``/proc/<pid>/task/<tid>/schedstat`` holds, per thread, the nanoseconds it ran on a CPU and the nanoseconds it
waited, runnable, for one. A bot's thread that waited for a CPU did not think then: its host was busy with
other matches. The referee forgives that wait (arena.players, "busy host"), so a bot is never timed out because
its host was busy, while time it spends asleep or blocked stays its own.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable


def task_times(pids: Iterable[int]) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one), summed over every thread of ``pids``. A thread
    gone meanwhile is simply not counted: its share is never forgiven, never charged twice."""
    ran = waited = 0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as stats:
                    fields = stats.read().split()
                ran += int(fields[0])
                waited += int(fields[1])
    return ran / 1e9, waited / 1e9


def any_runnable(pids: Iterable[int]) -> bool:
    """Whether a thread of ``pids`` is running or waiting, runnable, for a CPU right now (state R). A wait is
    added to a thread's statistics only once the thread runs again, so a thread kept waiting at this moment has
    a wait that ``task_times`` cannot see yet."""
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            # "pid (comm) S …": the state follows the command, which may itself hold spaces and parentheses
            with contextlib.suppress(OSError, IndexError), open(f"/proc/{pid}/task/{tid}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[1].split()[0] == b"R":
                    return True
    return False


def available() -> bool:
    """Whether this kernel keeps the statistics (CONFIG_SCHED_INFO)."""
    return os.path.exists(f"/proc/{os.getpid()}/schedstat")
