"""The workers' consumer (CELERY_WORKER_CONSUMER): a broker that refuses writes is waited out, never fatal.

A Redis whose memory is full (``maxmemory`` with ``noeviction``, the broker's policy: a broker must not drop
messages) answers every write with OutOfMemoryError, and inside MULTI every command: kombu's queue
declarations, deliveries and acknowledgements all run in MULTI, so a worker can neither start, take nor
acknowledge a message. Celery counts that a channel error, and by default a channel error stops the worker
("Unrecoverable error: OutOfMemoryError"), again at each restart for as long as Redis stays full.
CELERY_BROKER_CHANNEL_ERROR_RETRY makes it restart the consumer instead, and this consumer waits between
those restarts (1 s, 2 s, 4 s, 8 s, then every 15 s) where Celery would try five times a second, a traceback
each, with one log line per attempt that says what is wrong. Matches being played go on meanwhile (their
rows and leases are in the database); once Redis has memory again the next attempt reconnects and the worker
takes messages as before (tests/platform/config/test_broker_memory.py).
"""

from __future__ import annotations

import logging
import time
import warnings

from celery.exceptions import CPendingDeprecationWarning
from celery.worker import state
from celery.worker.consumer import Consumer as CeleryConsumer
from redis.exceptions import OutOfMemoryError, ResponseError

log = logging.getLogger(__name__)

PAUSES = (1.0, 2.0, 4.0, 8.0, 15.0)  # seconds between attempts while the broker keeps refusing; the last repeats
CALM_SECONDS = 60.0  # a refusal this long after the previous one is a new episode: its pauses start again
STEP_SECONDS = 0.25  # how soon a pause notices a shutdown signal


class Consumer(CeleryConsumer):
    _refusals = 0
    _last_refusal = float("-inf")

    def on_connection_error_before_connected(self, exc):
        super().on_connection_error_before_connected(exc)
        self._wait_if_refused(exc)

    def on_connection_error_after_connected(self, exc):
        with warnings.catch_warnings():
            # Celery warns, at every reconnection, that it will cancel running tasks on a connection loss by
            # default one day; the site keeps them running (config/celery_settings.py says why).
            warnings.simplefilter("ignore", CPendingDeprecationWarning)
            super().on_connection_error_after_connected(exc)
        self._wait_if_refused(exc)

    def _wait_if_refused(self, exc: BaseException) -> None:
        """After an error answered by Redis itself (out of memory, read-only, …), pause before the next attempt:
        the server is up and will refuse again at once. A lost connection has kombu's own back-off."""
        if not isinstance(exc, ResponseError):
            return
        now = time.monotonic()
        if now - self._last_refusal > CALM_SECONDS:
            self._refusals = 0
        pause = PAUSES[min(self._refusals, len(PAUSES) - 1)]
        self._refusals += 1
        self._last_refusal = now
        until = "Redis has memory again" if isinstance(exc, OutOfMemoryError) else "Redis accepts them again"
        log.error("the broker refuses commands (%s: %s): this worker can neither take nor acknowledge a message "
                  "until %s; trying again in %g s", type(exc).__name__, exc, until, pause)
        end = now + pause
        while time.monotonic() < end:
            state.maybe_shutdown()  # a stop signal during the pause stops the worker as it would have
            time.sleep(min(STEP_SECONDS, max(0.0, end - time.monotonic())))
