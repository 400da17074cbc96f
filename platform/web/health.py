"""What /healthz checks: the database, the broker and the cache (the log-in and upload throttles' counters),
each in a thread of its own, so the answer comes within DEADLINE_SECONDS whatever a dependency does.

A database that accepts the connection and never answers holds its check until KOZYR_DB_CONNECT_TIMEOUT
(libpq waits at least 2 s), a hung Redis until its own timeouts: the check's thread ends then, the answer
went long before. Each check opens a connection of its own and closes it, so a slow one never holds a
connection the site's requests use.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import kombu
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.db import DEFAULT_DB_ALIAS, connections

DEADLINE_SECONDS = 1.0
OK = "ok"
CACHE_KEY = "kozyr:healthz"


def check_database() -> None:
    connection = connections.create_connection(DEFAULT_DB_ALIAS)  # this thread's own, not the request's
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


def check_broker() -> None:
    """Connect as a worker would (kombu's Redis transport pings the server on connecting); nothing is sent."""
    options = {**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "socket_connect_timeout": DEADLINE_SECONDS,
               "socket_timeout": DEADLINE_SECONDS}
    with kombu.Connection(settings.CELERY_BROKER_URL, transport_options=options,
                          connect_timeout=DEADLINE_SECONDS) as connection:
        connection.ensure_connection(max_retries=0)


def check_cache(cache: BaseCache) -> None:
    """A write and a read, as the throttles do."""
    token = f"{time.time():.6f}"
    cache.set(CACHE_KEY, token, 60)
    if cache.get(CACHE_KEY) != token:
        raise RuntimeError("the cache did not keep what was written")


def run_checks(deadline: float = DEADLINE_SECONDS) -> dict[str, str]:
    """Each dependency's state: "ok", or why not (an error, or no answer within ``deadline`` seconds)."""
    checks: dict[str, Callable[[], None]] = {
        "database": check_database,
        "broker": check_broker,
        "cache": lambda cache=caches["default"]: check_cache(cache),  # the request's cache, thread-safe
    }
    results: dict[str, str] = {}

    def run(name: str, check: Callable[[], None]) -> None:
        try:
            check()
        except Exception as err:
            results[name] = f"{type(err).__name__}: {err}"[:300]
        else:
            results[name] = OK

    threads = [threading.Thread(target=run, args=item, name=f"healthz-{item[0]}", daemon=True)
               for item in checks.items()]
    end = time.monotonic() + deadline
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    return {name: results.get(name, f"no answer within {deadline:g} s") for name in checks}
