"""The live relay: what a worker playing a match and the pages following it say to each other, kept in Redis.

Redis is there in both configurations (the embedded broker of `make run` is a Redis server; production runs
one), so live tables need nothing more installed. Per match attempt, under
``kozyr:live:<id>.<base seed>.<attempt>:`` (``live_id``):

- ``actions``: every action the rules accepted, in order, each with the wall-clock time it was played
  (``{"t": …, "seat": …, "action": …}``). A live view recomputes its frames from the match's seed and these
  (arena.replay_frames), showing only those older than the match's delay.
- ``seat:<n>:out``: every protocol line the referee sent seat n, in order, each with its time
  (``{"t": …, "m": {message}}``). A person's page reads it from any point, so a reloaded or reopened page
  resumes where the match stands.
- ``seat:<n>:in``: the seat's answers, one protocol line each; the worker waits on it with the seat's clock.
- ``seat:<n>:answered:<request id>``: taken once by the page's first answer to a request (a double click
  or two tabs answer once).
- ``seat:<n>:closed``: the referee's goodbye was sent; the page stops asking.

Every key expires KEEP_SECONDS after its last write, and ENDED_KEEP_SECONDS after its attempt ends. The
database row stays the truth: a live view of a
match that is no longer running shows its replay, whatever is left here.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Sequence
from typing import Any

import orjson
import redis
from django.conf import settings

from arena import protocol
from arena.players import PlayerFailure

log = logging.getLogger(__name__)

KEEP_SECONDS = 6 * 3600
ENDED_KEEP_SECONDS = 600  # after the match: long enough for its pages to notice the end, then gone
WAIT_SLICE_S = 1.0  # one blocking pop at most this long: well below the client's read timeout (2 s at least)
RETRY_FOR_S = 10.0  # a relay that is briefly away is retried this long before the seat's line is lost
VIEWER_SEEN_S = 15  # a live view that has not asked for this long no longer counts against the bounds
REDIS_ERRORS = (redis.RedisError,)  # away, timed out, out of memory, read-only: the relay cannot be used
RELAY = "relay"  # the aborted verdict's code when the relay failed: nobody's fault, and not the machine's


class LiveUnavailable(Exception):
    """The site has no live relay (its broker is not Redis and KOZYR_LIVE_REDIS_URL is unset)."""


def enabled() -> bool:
    return bool(settings.LIVE_REDIS_URL)


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
                                socket_timeout=settings.REDIS_TIMEOUT, health_check_interval=30)


def client() -> redis.Redis:
    if not enabled():
        raise LiveUnavailable("this site has no live relay: its broker is not Redis and KOZYR_LIVE_REDIS_URL "
                              "is unset")
    return _client(settings.LIVE_REDIS_URL)


def live_id(match) -> str:
    """A match attempt's name in the relay: its id, its deal's seed (no key left by another database, a test
    run's or a restored backup's, is ever taken for this match's) and the attempt (a worker that lost its
    lease and plays on never writes into the next attempt's lists)."""
    return f"{match.pk}.{match.base_seed}.{match.attempts}"


def key(match_id: str, *parts: object) -> str:
    return ":".join(["kozyr", "live", str(match_id), *map(str, parts)])


# ---------------------------------------------------------------------------------------------- the worker

def publish_action(match_id: str, seat: int, action: dict[str, Any]) -> None:
    """Called by the referee after each accepted action (its on_action watcher)."""
    name = key(match_id, "actions")
    entry = orjson.dumps({"t": round(time.time(), 3), "seat": seat, "action": action})
    client().pipeline().rpush(name, entry).expire(name, KEEP_SECONDS).execute()


def start_match(match_id: str, seats: Sequence[int]) -> None:
    """A new attempt of the match begins: whatever an earlier attempt left is forgotten."""
    client().delete(key(match_id, "actions"), *[key(match_id, "seat", s, part) for s in seats
                                                for part in ("out", "in", "closed")])


def end_match(match_id: str, seats: Sequence[int]) -> None:
    """The attempt is over: its lists expire soon (every match's actions are relayed; on a busy ladder six
    hours of them would fill the broker's Redis)."""
    names = [key(match_id, "actions"), *[key(match_id, "seat", s, part) for s in seats for part in ("out", "in",
                                                                                                   "closed")]]
    pipe = client().pipeline()
    for name in names:
        pipe.expire(name, ENDED_KEEP_SECONDS)
    pipe.execute()


class RelayChannel:
    """The worker's end of one seat (arena.channels.LineChannel): lines out to the seat's list, answers in."""

    def __init__(self, match_id: str, seat: int):
        self.match_id, self.seat = match_id, seat
        self.out, self.incoming = key(match_id, "seat", seat, "out"), key(match_id, "seat", seat, "in")

    def send(self, lines: Sequence[bytes]) -> None:
        now = round(time.time(), 3)
        entries = [b'{"t":%s,"m":%s}' % (str(now).encode(), line) for line in lines]
        if entries:
            self._retry(lambda c: c.pipeline().rpush(self.out, *entries).expire(self.out, KEEP_SECONDS).execute())

    def receive(self, deadline: float) -> bytes | None:
        away_since: float | None = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                if away_since is not None:
                    # The seat's clock ran out while the relay could not be read: not the seat's fault.
                    raise PlayerFailure(protocol.ABORTED, RELAY, f"the live relay was unreachable for the last "
                                        f"{time.monotonic() - away_since:.1f} s of the seat's clock")
                return None
            try:
                found = client().blpop([self.incoming], timeout=min(left, WAIT_SLICE_S))
            except REDIS_ERRORS as err:  # the clock runs on while the relay is away
                if away_since is None:
                    away_since = time.monotonic()
                log.warning("match %s seat %s: the live relay is away (%s)", self.match_id, self.seat, err)
                time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
                continue
            away_since = None
            if found is not None:
                return found[1]

    def close(self) -> None:
        closed = key(self.match_id, "seat", self.seat, "closed")
        self._retry(lambda c: c.set(closed, b"1", ex=KEEP_SECONDS))

    def _retry(self, write) -> None:
        until = time.monotonic() + RETRY_FOR_S
        while True:
            try:
                write(client())
                return
            except REDIS_ERRORS as err:
                if time.monotonic() > until:
                    # Not the seat's doing: the match is aborted, never scored (docs/matches.md, "Live tables").
                    raise PlayerFailure(protocol.ABORTED, RELAY,
                                        f"the live relay could not be reached: {err}") from None
                time.sleep(0.5)


def connect(address: str) -> RelayChannel:
    """The runner's ``connect``: a seat's channel address is "<match id>:<seat>"."""
    match_id, seat = address.rsplit(":", 1)
    return RelayChannel(match_id, int(seat))


def channel_address(match_id: str, seat: int) -> str:
    return f"{match_id}:{seat}"


# ---------------------------------------------------------------------------------------------- the pages

def seat_lines(match_id: str, seat: int, start: int = 0) -> tuple[list[dict[str, Any]], bool]:
    """The seat's messages from ``start`` on (each ``{"t", "m"}``) and whether the referee said goodbye."""
    c = client()
    pipe = c.pipeline()
    pipe.lrange(key(match_id, "seat", seat, "out"), max(0, start), -1)
    pipe.exists(key(match_id, "seat", seat, "closed"))
    raw, closed = pipe.execute()
    return [orjson.loads(entry) for entry in raw], bool(closed)


def open_request(messages: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The last request sent to the seat, if no result followed it."""
    for entry in reversed(messages):
        kind = entry["m"].get("type")
        if kind == "request":
            return entry["m"]
        if kind in ("result", "goodbye"):
            return None
    return None


def _answered_key(match_id: str, seat: int, request_id: int | None) -> str:
    return key(match_id, "seat", seat, "answered", "ready" if request_id is None else request_id)


def was_answered(match_id: str, seat: int, request_id: int | None) -> bool:
    return bool(client().exists(_answered_key(match_id, seat, request_id)))


def answer(match_id: str, seat: int, request_id: int | None, line: bytes) -> bool:
    """Deliver the page's answer (one protocol line) for ``request_id`` (None: the ready); False when that
    request was answered already."""
    taken = _answered_key(match_id, seat, request_id)
    incoming = key(match_id, "seat", seat, "in")
    # One step on the server: marked answered and delivered together, or neither.
    return bool(_answer_once()(keys=[taken, incoming], args=[line, KEEP_SECONDS]))


ANSWER_ONCE = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[2])
  return 1
end
return 0
"""


def _answer_once():
    return client().register_script(ANSWER_ONCE)


def actions(match_id: str) -> list[dict[str, Any]]:
    return [orjson.loads(entry) for entry in client().lrange(key(match_id, "actions"), 0, -1)]


class TooManyViewers(Exception):
    """A live view refused by the bounds on viewers per match and per address."""


def count_viewer(match_id: str, viewer: str, address: str) -> None:
    """Note that ``viewer`` (one open page) follows the match; refuse a new one past the bounds. A page that
    keeps asking keeps its place; one that stopped asking VIEWER_SEEN_S ago has left."""
    c = client()
    now = time.time()
    by_match, by_address = key(match_id, "viewers"), f"kozyr:live:address:{address}"
    pipe = c.pipeline()
    for name in (by_match, by_address):
        pipe.zremrangebyscore(name, 0, now - VIEWER_SEEN_S)
        pipe.zscore(name, viewer)
        pipe.zcard(name)
    _, in_match, match_count, _, in_address, address_count = pipe.execute()
    if in_match is None and match_count >= settings.LIVE_VIEWERS_PER_MATCH:
        raise TooManyViewers(f"this match already has {match_count} live viewers, the most it takes "
                             f"({settings.LIVE_VIEWERS_PER_MATCH}); its replay opens when it ends")
    if in_address is None and address_count >= settings.LIVE_VIEWERS_PER_ADDRESS:
        raise TooManyViewers(f"your address already follows {address_count} live views, the most one address "
                             f"may ({settings.LIVE_VIEWERS_PER_ADDRESS}); close one first")
    pipe = c.pipeline()
    for name in (by_match, by_address):
        pipe.zadd(name, {viewer: now}).expire(name, VIEWER_SEEN_S * 4)
    pipe.execute()
