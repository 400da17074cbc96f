"""One watchdog thread for every running sandbox of this process.

Each tick it asks every watched bot whether it is still within its wall-clock and CPU limits (the bot kills
itself through its confinement when not). One shared thread rather than one per bot: starting a thread costs
0.1-0.4 ms on the path that starts a match's seats, and a worker running many matches at once would
otherwise hold hundreds of threads that mostly sleep.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Protocol

TICK_SECONDS = 0.05


class Watched(Protocol):
    def check_limits(self) -> bool:
        """Enforce the limits once; True when the bot needs no more watching (it ended or was killed)."""


class Watchdog:
    """`shared`: the process-wide watchdog, whose thread waits for the next bot when none is left. A private
    one (a backend whose checks are slow, such as the container engine's CLI calls, must not delay the
    others') ends its thread with its last bot."""

    def __init__(self, shared: bool = True) -> None:
        self._shared = shared
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        # Held for a whole sweep, so that forget() returns only once no check of that bot is running.
        self._sweeping = threading.Lock()
        self._watched: dict[int, Watched] = {}
        self._thread: threading.Thread | None = None

    def watch(self, process: Watched) -> None:
        with self._lock:
            self._watched[id(process)] = process
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sandbox-watchdog", daemon=True)
                self._thread.start()
            self._wake.notify()

    def forget(self, process: Watched) -> None:
        """Stop watching; once this returns the watchdog will not touch `process` again."""
        with self._sweeping, self._lock:
            self._watched.pop(id(process), None)

    def watching(self) -> int:
        with self._lock:
            return len(self._watched)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._watched:
                    if not self._shared:
                        self._thread = None
                        return
                    self._wake.wait()
            time.sleep(TICK_SECONDS)
            with self._sweeping:
                with self._lock:
                    processes = list(self._watched.items())
                done = [key for key, process in processes if self._check(process)]
                with self._lock:
                    for key in done:
                        self._watched.pop(key, None)

    @staticmethod
    def _check(process: Watched) -> bool:
        try:
            return process.check_limits()
        except Exception as error:  # one bot's broken cgroup file must not stop the watch over the others
            print(f"sandbox watchdog: checking a bot failed: {error!r}", file=sys.stderr)
            return False


WATCHDOG = Watchdog()
# A forked worker (Celery's prefork pool) has none of the parent's threads, and maybe a lock the parent's
# watchdog held: it starts from nothing.
os.register_at_fork(after_in_child=WATCHDOG._reset)
