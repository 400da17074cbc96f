"""What each worker process says it can play at once, for /metrics (``kozyr_worker_slots``).

A worker announces itself when it starts and every ``EVERY_SECONDS`` after: its host (the name its leases carry,
``play.tasks.lease_owner``), its name (``worker``, ``bots``, ``tables``…), its pool and its concurrency, the
number of matches it admits at once (for the ``bots`` worker, the host's admission: config/capacity.py). The
announcement lives in the live relay's Redis and expires ``TTL_SECONDS`` after the last one, so a worker that
died stops being counted within a minute and a half. Nothing decides anything from it: the database row is the
truth of what is played, this is what an operator's dashboard sets it against.
"""

from __future__ import annotations

import json
import logging
import socket
import threading

from matches import relay

log = logging.getLogger(__name__)

PREFIX = "kozyr:slots:"
EVERY_SECONDS = 30
TTL_SECONDS = 90


def announce(node: str, pool: str, concurrency: int, queues: list[str]) -> None:
    host = socket.gethostname()
    value = json.dumps({"host": host, "worker": node.split("@", 1)[0], "pool": pool, "slots": concurrency,
                        "queues": queues})
    relay.client().set(f"{PREFIX}{host}:{node}", value, ex=TTL_SECONDS)


def announced() -> list[dict]:
    """Every live announcement (an empty list without a relay, or when it cannot be read)."""
    if not relay.enabled():
        return []
    try:
        connection = relay.client()
        keys = list(connection.scan_iter(match=f"{PREFIX}*", count=500))
        values = connection.mget(keys) if keys else []
    except relay.REDIS_ERRORS as err:
        log.warning("could not read the workers' slots: %s", err)
        return []
    return [json.loads(v) for v in values if v]


def keep_announcing(node: str, pool: str, concurrency: int, queues: list[str]) -> threading.Event:
    """Announce now and every EVERY_SECONDS from a daemon thread; set the returned event to stop."""
    stop = threading.Event()

    def loop() -> None:
        while True:
            try:
                announce(node, pool, concurrency, queues)
            except (relay.RelayUnavailable, *relay.REDIS_ERRORS) as err:  # a gauge, never a reason to fail
                log.debug("could not announce this worker's slots: %s", err)
            if stop.wait(EVERY_SECONDS):
                return

    threading.Thread(target=loop, name="kozyr-slots", daemon=True).start()
    return stop
