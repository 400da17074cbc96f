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
        self.failures: list[tuple[int, BaseException]] = []
        self.thread = threading.Thread(target=self._work, name="thread-worker", daemon=True)
        self.thread.start()

    def publish(self, match_id: int, queue: str, retry: bool = False) -> None:
        self.published.put(match_id)

    def _work(self) -> None:
        from django.db import connection

        from play.tasks import play_match

        try:
            while (match_id := self.published.get()) is not None:
                try:
                    play_match(match_id)
                except Exception as error:  # the next matches are still played; stop() raises it
                    self.failures.append((match_id, error))
                else:
                    self.played.append(match_id)
        finally:
            connection.close()  # this thread's own connection: the test database can then be dropped

    def stop(self, timeout: float = 120, strict: bool = True) -> None:
        """Idempotent: a site fixture stops its worker before its own teardown, the fixture again after. Strict, a
        match still playing after ``timeout`` or one that raised fails the test."""
        if self.thread.is_alive():
            self.published.put(None)
            self.thread.join(timeout)
        if not strict:
            return
        assert not self.thread.is_alive(), f"a published match was still playing {timeout:g} s after its test"
        if self.failures:
            match_id, error = self.failures[0]
            raise AssertionError(f"playing match {match_id} raised {error!r}") from error
