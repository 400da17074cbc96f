"""How full the site's Redis servers are, and whether each still takes a write: what /healthz and /metrics report.

The broker's Redis holds the messages, the cache of throttle counters and, unless KOZYR_LIVE_REDIS_URL names
another server, the live relay (in a database of its own): one server, one ``maxmemory``. Past it, with
``noeviction`` (a broker must never drop a message), Redis refuses every write, and inside MULTI every
command; kombu's deliveries and acknowledgements run in MULTI, so no worker can take or acknowledge a message
and no page can queue a match. A relay on a server of its own is read apart: filling it stops live tables and
remote bots, never the broker. docs/operations.md, "Redis", gives the budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis
from django.conf import settings

WARN_AT = 0.80  # of maxmemory: /healthz says "degraded"
FAIL_AT = 0.95  # of maxmemory: /healthz says "unavailable" (503) before Redis refuses the first write
PROBE_KEY = "kozyr:probe:write"  # one byte that expires within seconds: a write as small as any
PROBE_MS = 10_000
BROKER, RELAY = "broker", "relay"


@dataclass(frozen=True)
class Reading:
    used_bytes: int
    max_bytes: int  # 0: no maxmemory, Redis grows until the host has no memory left
    refusal: str  # what Redis answered a small write, "" when it took it

    @property
    def writable(self) -> bool:
        return not self.refusal

    @property
    def ratio(self) -> float | None:
        return self.used_bytes / self.max_bytes if self.max_bytes else None

    def describe(self) -> str:
        used = f"{self.used_bytes / 2**20:.1f} MiB used"
        return f"{used} of {self.max_bytes / 2**20:.1f} MiB" if self.max_bytes else f"{used}, no maxmemory"


def redis_url(broker_url: str) -> str | None:
    """The redis-py URL of a kombu broker URL (the first of a failover list), or None when it is not Redis."""
    url = broker_url.split(";", 1)[0].strip()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return url
    if url.startswith("redis+socket://"):
        return "unix://" + url.removeprefix("redis+socket://")
    return None


def _server(url: str) -> tuple:
    """What identifies a Redis server in a URL, whatever its database: its host and port, or its socket."""
    options = redis.connection.parse_url(url)
    host = options.get("host")
    return host, options.get("port") or (6379 if host else None), options.get("path")


def servers() -> dict[str, str]:
    """Each Redis server of the site by its role: the broker's (when the broker is Redis), and the relay's
    when it is another server (in another database of the broker's server, it shares the broker's memory)."""
    found: dict[str, str] = {}
    broker = redis_url(settings.CELERY_BROKER_URL)
    if broker:
        found[BROKER] = broker
    relay = settings.LIVE_REDIS_URL
    if relay and (not broker or _server(relay) != _server(broker)):
        found[RELAY] = relay
    return found


def read(url: str, timeout: float) -> Reading:
    """INFO memory, then a write of a few bytes that expire: raises if the server does not answer."""
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        memory = client.info("memory")
        try:
            client.set(PROBE_KEY, b"1", px=PROBE_MS)
        except redis.ResponseError as err:  # OutOfMemoryError, READONLY, …: the server answered, and said no
            refusal = f"{type(err).__name__}: {err}"
        else:
            refusal = ""
    finally:
        client.close()
    return Reading(int(memory["used_memory"]), int(memory["maxmemory"]), refusal)
