"""Removing a finished run's cgroups and bot-file copy, off the caller's path.

Once finish() has seen every process of the bot dead and measured it, nothing depends on those folders any
more, but removing them is slow kernel work (each cgroup rmdir waits for the group to go offline: ~0.3-1 ms,
six hierarchies here). A single background thread does it, so a referee's teardown costs well under 2 ms.
Pending removals are finished at interpreter exit; a worker killed before that leaves them to the next
worker's sweep (leftovers.py).
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from collections.abc import Callable

EXIT_PATIENCE_SECONDS = 10.0

_pending: queue.Queue[Callable[[], None]] = queue.Queue()
_lock = threading.Lock()
_worker: threading.Thread | None = None
_log = logging.getLogger(__name__)


def later(task: Callable[[], None]) -> None:
    """Run `task` on the janitor thread (started on first use)."""
    global _worker
    _pending.put(task)
    with _lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="sandbox-janitor", daemon=True)
            _worker.start()


def drain(timeout: float = EXIT_PATIENCE_SECONDS) -> bool:
    """Wait until every task handed over so far is done; True if they all were within `timeout`."""
    done = threading.Event()
    later(done.set)
    return done.wait(timeout)


def _work() -> None:
    while True:
        task = _pending.get()
        try:
            task()
        except Exception:  # a failed removal is left to the next sweep, never fatal
            _log.exception("sandbox clean-up failed; the next worker start sweeps it")
        finally:
            _pending.task_done()


atexit.register(drain)
