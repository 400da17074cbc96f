"""A worker in a thread of the test process: plays the matches the site publishes, one at a time, on the test
database, for tests of the HTTP clients (`arena upload --wait`, `arena challenge --wait`) that need results but
not a worker process, a broker or their faults (tests/support/workers.py has those)."""

from __future__ import annotations

import queue
import threading


class ThreadWorker:
    """``publish`` stands in for ``matches.actions.publish``. One thread plays every match, in publication order:
    two rotations of a deal never play side by side, as on one machine. ``stop`` waits for the matches still
    published, so none writes while the test database is flushed for the next test (a TRUNCATE deadlock)."""

    def __init__(self) -> None:
        self.published: queue.Queue[int | None] = queue.Queue()
        self.played: list[int] = []
        self.thread = threading.Thread(target=self._work, name="thread-worker", daemon=True)
        self.thread.start()

    def publish(self, match_id: int, queue: str, retry: bool = False) -> None:
        self.published.put(match_id)

    def _work(self) -> None:
        from django.db import connection

        from play.tasks import play_match

        try:
            while (match_id := self.published.get()) is not None:
                play_match(match_id)
                self.played.append(match_id)
        finally:
            connection.close()  # this thread's own connection: the test database can then be dropped

    def stop(self, timeout: float = 120) -> None:
        """Idempotent: a site fixture stops its worker before its own teardown, the fixture again after."""
        if not self.thread.is_alive():
            return
        self.published.put(None)
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"a published match was still playing {timeout:g} s after its test"
