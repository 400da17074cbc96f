"""What /healthz checks: the database, the broker (that it answers, that it takes a write, how full its memory
is) and the cache (the log-in and upload throttles' counters), and the live relay when it has a Redis server of
its own, each in a thread of its own, so the answer comes within DEADLINE_SECONDS whatever a dependency does.

A broker that refuses writes (Redis out of memory) still takes connections and answers PING: connecting, as
this check did alone, said "ok" while no worker could take or acknowledge a message. Its memory is judged
against web/redis_memory.py's thresholds: "degraded" (still 200) from WARN_AT, a failure (503) from FAIL_AT
and whenever a write is refused. The relay's own server only ever degrades the site: without it live tables
and remote bots stop, everything else goes on.

A database that accepts the connection and never answers holds its check until KOZYR_DB_CONNECT_TIMEOUT
(libpq waits at least 2 s), a hung Redis until its own timeouts: the check's thread ends then, the answer
went long before. Each check opens a connection of its own and closes it, so a slow one never holds a
connection the site's requests use.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

import kombu
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.db import DEFAULT_DB_ALIAS, connections

from web import redis_memory

DEADLINE_SECONDS = 1.0
OK, DEGRADED, UNAVAILABLE = "ok", "degraded", "unavailable"
CACHE_KEY = "kozyr:healthz"


class Degraded(Exception):
    """The site works, with less than it should: /healthz still answers 200, and says what is wrong."""


class BrokerFull(Exception):
    """The broker's Redis refuses writes, or is about to."""


def check_database() -> None:
    connection = connections.create_connection(DEFAULT_DB_ALIAS)  # this thread's own, not the request's
    options = connection.settings_dict.get("OPTIONS", {})
    if options.get("pool"):
        # Out of the web process's pool: a busy pool would make a healthy database look down, and the check
        # would hold a connection the site's requests wait for.
        connection.settings_dict = {**connection.settings_dict,
                                    "OPTIONS": {k: v for k, v in options.items() if k != "pool"}}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


def check_broker() -> None:
    """Connect as a worker would (kombu's Redis transport pings the server on connecting); then, when the broker
    is Redis, read its memory and write a few bytes that expire: no message is sent."""
    options = {**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "socket_connect_timeout": DEADLINE_SECONDS,
               "socket_timeout": DEADLINE_SECONDS}
    with kombu.Connection(settings.CELERY_BROKER_URL, transport_options=options,
                          connect_timeout=DEADLINE_SECONDS) as connection:
        connection.ensure_connection(max_retries=0)
    url = redis_memory.redis_url(settings.CELERY_BROKER_URL)
    if url:
        judge_broker(redis_memory.read(url, DEADLINE_SECONDS))


def judge_broker(reading: redis_memory.Reading) -> None:
    if not reading.writable:
        raise BrokerFull(f"the broker refuses writes ({reading.refusal}; {reading.describe()}): no worker can take "
                         f"or acknowledge a message")
    ratio = reading.ratio
    if ratio is not None and ratio >= redis_memory.FAIL_AT:
        raise BrokerFull(f"the broker's memory is {ratio:.0%} full ({reading.describe()}), "
                         f"{redis_memory.FAIL_AT:.0%} or more: when full it refuses every write")
    if ratio is not None and ratio >= redis_memory.WARN_AT:
        raise Degraded(f"the broker's memory is {ratio:.0%} full ({reading.describe()}), "
                       f"{redis_memory.WARN_AT:.0%} or more: unavailable from {redis_memory.FAIL_AT:.0%}")


def check_relay(url: str) -> None:
    """The live relay on a Redis server of its own: the same reading, every trouble only a degradation."""
    try:
        reading = redis_memory.read(url, DEADLINE_SECONDS)
    except Exception as err:
        raise Degraded(f"live tables and remote bots stop: {type(err).__name__}: {err}") from err
    if not reading.writable:
        raise Degraded(f"the relay refuses writes ({reading.refusal}; {reading.describe()}): live tables and "
                       f"remote bots stop")
    if reading.ratio is not None and reading.ratio >= redis_memory.WARN_AT:
        raise Degraded(f"the relay's memory is {reading.ratio:.0%} full ({reading.describe()}), "
                       f"{redis_memory.WARN_AT:.0%} or more")


def check_cache(cache: BaseCache) -> None:
    """A write and a read, as the throttles do: on a key of this check's own, so that checks running at
    once never read each other's tokens."""
    token = uuid.uuid4().hex
    name = f"{CACHE_KEY}:{token}"
    cache.set(name, token, 10)
    try:
        if cache.get(name) != token:
            raise RuntimeError("the cache did not keep what was written")
    finally:
        cache.delete(name)


def run_checks(deadline: float = DEADLINE_SECONDS) -> dict[str, str]:
    """Each dependency's state: "ok", "degraded: " and why, or why not (an error, or no answer within ``deadline``
    seconds)."""
    checks: dict[str, Callable[[], None]] = {
        "database": check_database,
        "broker": check_broker,
        "cache": lambda cache=caches["default"]: check_cache(cache),  # the request's cache, thread-safe
    }
    relay = redis_memory.servers().get(redis_memory.RELAY)
    if relay:
        checks["relay"] = lambda: check_relay(relay)
    results: dict[str, str] = {}

    def run(name: str, check: Callable[[], None]) -> None:
        try:
            check()
        except Degraded as why:
            results[name] = f"{DEGRADED}: {why}"[:300]
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


def status(checks: dict[str, str]) -> str:
    """"ok" when every check is, "unavailable" when any failed (the relay's own server only ever degrades: a
    relay that does not answer in time stops live tables, nothing else), else "degraded"."""
    if any(state != OK and not state.startswith(f"{DEGRADED}: ") and name != "relay"
           for name, state in checks.items()):
        return UNAVAILABLE
    return DEGRADED if any(state != OK for state in checks.values()) else OK
