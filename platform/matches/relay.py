"""The real-time relay: the one home of what workers, pages and remote bots' sockets say to each other about a
match being played, kept in Redis. Its keys, bounds, expiries and wake-ups are named here and nowhere else:
the worker (play.match, through the channels below), the pages (web.table_views, web.live_views) and the
socket end (matches.relay_socket) call these functions.

Redis is there in both configurations (the embedded broker of `make run` is a Redis server; production runs
one, and the relay takes a database of its own on it, or ``KOZYR_LIVE_REDIS_URL``'s server). Per match
attempt, under ``kozyr:live:<id>.<deal set>.<attempt>:`` (``attempt_name``; nothing in it derives from the
match's seed, and a remote bot is told it):

- ``attempt``: present while the attempt is being played (set when it starts, renewed with every line the
  worker sends, deleted when it ends). Its absence tells the worker the relay lost the match (a flush, a
  restart without persistence): the match is aborted, never scored. Nothing is written for a seat whose
  attempt is not being played.
- ``actions``: every action the rules accepted, in order, each with the wall-clock time it was played
  (``{"t": …, "seat": …, "action": …}``). A live view recomputes its frames from the match's seed and these
  (arena.replay_frames), showing only those older than the match's delay.
- ``seat:<n>:out``: every protocol line the referee sent seat n, in order, each with its time
  (``{"t": …, "m": {message}}``). A person's page reads it from any point, so a reloaded or reopened page
  resumes where the match stands; a remote seat's connection forwards it.
- ``seat:<n>:in``: the seat's answers, one protocol line each; the worker waits on it with the seat's clock.
  At most IN_LINES lines wait unread (a seat answers one line per question: more is a flood, refused),
  each at most a protocol line, so a seat never holds more than IN_LINES × 64 KiB of the server. A *failure
  entry* (``FAILURE`` then JSON) is the site's own ruling on a remote seat (its process ended, a line too
  long); the worker turns it into the verdict a sandboxed bot would get.
- ``seat:<n>:answered:<request id>``: taken once by the page's first answer to a request (a double click
  or two tabs answer once).
- ``seat:<n>:closed``: the referee's goodbye was sent; the page stops asking, the socket says ``over``.
- ``seat:<n>:claim``, ``wake``, ``answers`` (remote seats): the id of the connection serving the seat, set for
  CLAIM_SECONDS and renewed while it serves (its absence is "disconnected"); a nudge pushed with every line
  sent (capped at WAKE_CAP), so the connection forwards it at once; how many lines the connections
  delivered, so a reconnected `arena connect` is told which questions were answered already.
- ``viewers`` (and ``kozyr:live:address:<address>``): the live views following the match, bounded per match
  and per client address.

Per remote version, ``kozyr:remote:assigned:<version key>`` is a hash of the attempts it plays now (field
``<attempt name>/<seat>``): a connection of the version picks up what appears there. The version key is its
id and the microsecond it was made, so two databases on one Redis (a test run beside `make run`) never hand
each other's matches to a connection.

Every key expires KEEP_SECONDS after its last write (longer than any seat's clock for one decision, so a
running match never loses one), a seat's answers IN_KEEP_SECONDS after theirs, and everything
ENDED_KEEP_SECONDS after its attempt ends. A seat's lines go in only through one script on the server
(PUSH_LINE), which checks the bounds: a bot or a page never writes a line the referee did not ask for, and
nothing for a seat whose attempt is over. The database row stays the truth: a live view of a match that is
no longer running shows its replay, whatever is left here.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Sequence
from typing import Any

import orjson
import redis
import redis.asyncio as aredis
from django.conf import settings

from arena import protocol
from arena.players import PlayerFailure

log = logging.getLogger(__name__)

KEEP_SECONDS = 3600  # past any seat's clock for one decision (a person's: move time and bank, minutes)
IN_KEEP_SECONDS = 600  # an answer waits for the worker's next read, which comes within one decision
ENDED_KEEP_SECONDS = 600  # after the match: long enough for its pages to notice the end, then gone
IN_LINES = 8  # lines a seat may have waiting unread: one per question asked, and a few in flight
CLAIM_SECONDS = 6  # a remote seat's claim lapses this long after its connection stopped renewing it
WAKE_CAP = 64  # nudges are hints: a few are enough, the lines themselves are in ``out``
WAIT_SLICE_S = 1.0  # one blocking pop at most this long: well below the client's read timeout (2 s at least)
RETRY_FOR_S = 10.0  # a relay that is briefly away is retried this long before the seat's line is lost
VIEWER_SEEN_S = 15  # a live view that has not asked for this long no longer counts against the bounds
REDIS_ERRORS = (redis.RedisError,)  # away, timed out, out of memory, read-only: the relay cannot be used
RELAY = "relay"  # the aborted verdict's code when the relay failed: nobody's fault, and not the machine's
DISCONNECTED = "disconnected"  # the timeout code of a remote seat whose connection stayed away past the grace
FAILURE = b"\x00failure:"  # never the start of a bot's line: the socket refuses a NUL at a line's start


class RelayUnavailable(Exception):
    """The site has no live relay (its broker is not Redis and KOZYR_LIVE_REDIS_URL is unset)."""


def enabled() -> bool:
    return bool(settings.LIVE_REDIS_URL)


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
                                socket_timeout=settings.REDIS_TIMEOUT, health_check_interval=30)


def client() -> redis.Redis:
    if not enabled():
        raise RelayUnavailable("this site has no live relay: its broker is not Redis and KOZYR_LIVE_REDIS_URL "
                               "is unset")
    return _client(settings.LIVE_REDIS_URL)


def attempt_name(match) -> str:
    """A match attempt's name in the relay: its id, its duplicate set's random id (no key left by another
    database, a test run's or a restored backup's, is ever taken for this match's) and the attempt (a worker
    that lost its lease and plays on never writes into the next attempt's lists). A remote bot is told this
    name, so nothing in it may derive from the seed: the deal follows from the seed."""
    return f"{match.pk}.{match.duplicate_set.hex[:16]}.{match.attempts}"


def key(match_id: str, *parts: object) -> str:
    return ":".join(["kozyr", "live", str(match_id), *map(str, parts)])


def seat_key(match_id: str, seat: int, part: str) -> str:
    return key(match_id, "seat", seat, part)


def version_key(version) -> str:
    """A remote version's name in the relay: its id and the microsecond it was made."""
    return f"{version.pk}-{int(version.created.timestamp() * 1_000_000)}"


def assigned_key(version_key: str) -> str:
    return f"kozyr:remote:assigned:{version_key}"


def assignment(match_id: str, seat: int) -> str:
    """The field of the version's assignment hash for this seat: what the socket calls the match."""
    return f"{match_id}/{seat}"


# ---------------------------------------------------------------------------------------------- the worker

def publish_action(match_id: str, seat: int, action: dict[str, Any]) -> None:
    """Called by the referee after each accepted action (its on_action watcher)."""
    name = key(match_id, "actions")
    entry = orjson.dumps({"t": round(time.time(), 3), "seat": seat, "action": action})
    client().pipeline().rpush(name, entry).expire(name, KEEP_SECONDS).execute()


def _seat_parts(match_id: str, seats: Sequence[int]) -> list[str]:
    return [seat_key(match_id, s, part) for s in seats for part in ("out", "in", "closed")]


def start_match(match_id: str, seats: Sequence[int]) -> None:
    """A new attempt of the match begins: whatever an earlier attempt left is forgotten."""
    pipe = client().pipeline()
    pipe.delete(key(match_id, "actions"), *_seat_parts(match_id, seats))
    pipe.set(key(match_id, "attempt"), b"1", ex=KEEP_SECONDS)
    pipe.execute()


def end_match(match_id: str, seats: Sequence[int]) -> None:
    """The attempt is over: nothing more is taken for its seats, and its lists expire soon (every match's
    actions are relayed; on a busy ladder hours of them would fill the broker's Redis)."""
    pipe = client().pipeline()
    pipe.delete(key(match_id, "attempt"))
    for name in [key(match_id, "actions"), *_seat_parts(match_id, seats)]:
        pipe.expire(name, ENDED_KEEP_SECONDS)
    pipe.execute()


def assign(version_key: str, match_id: str, seat: int, info: dict[str, Any]) -> None:
    """The version plays this seat of this attempt: its connections may pick it up. Any earlier attempt of the
    same match is dropped from the hash (its worker died: the connection abandons it)."""
    c = client()
    name = assigned_key(version_key)
    match_pk = match_id.split(".", 1)[0]
    stale = [f for f in c.hkeys(name) if f.decode().split(".", 1)[0] == match_pk]
    pipe = c.pipeline()
    if stale:
        pipe.hdel(name, *stale)
    pipe.delete(*[seat_key(match_id, seat, p) for p in ("claim", "wake", "answers")])
    pipe.hset(name, assignment(match_id, seat), orjson.dumps({**info, "live": match_id, "seat": seat}))
    pipe.expire(name, KEEP_SECONDS)
    pipe.execute()


def unassign(version_key: str, match_id: str, seat: int) -> None:
    pipe = client().pipeline()
    pipe.hdel(assigned_key(version_key), assignment(match_id, seat))
    for part in ("claim", "wake", "answers"):
        pipe.expire(seat_key(match_id, seat, part), ENDED_KEEP_SECONDS)
    pipe.execute()


class RelayLost(PlayerFailure):
    """The relay no longer holds the attempt (flushed, restarted without persistence): nobody's fault."""

    def __init__(self):
        super().__init__(protocol.ABORTED, RELAY, "the live relay lost this match (its Redis was flushed or "
                                                  "restarted without persistence); the match is not scored")


class RelayChannel:
    """The worker's end of one seat (arena.channels.LineChannel): lines out to the seat's list, answers in."""

    def __init__(self, match_id: str, seat: int):
        self.match_id, self.seat = match_id, seat
        self.out, self.incoming = seat_key(match_id, seat, "out"), seat_key(match_id, seat, "in")
        self.attempt = key(match_id, "attempt")

    def send(self, lines: Sequence[bytes]) -> None:
        now = round(time.time(), 3)
        entries = [b'{"t":%s,"m":%s}' % (str(now).encode(), line) for line in lines]
        if entries:
            self._retry(lambda c: c.pipeline().rpush(self.out, *entries).expire(self.out, KEEP_SECONDS)
                        .expire(self.attempt, KEEP_SECONDS).execute())

    def check_attempt(self) -> None:
        """Raise RelayLost when the relay no longer knows the attempt (a page or a connection could never
        deliver this seat's answer: its lines are gone)."""
        if not client().exists(self.attempt):
            raise RelayLost()

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
                self.check_attempt()
                found = client().blpop([self.incoming], timeout=min(left, WAIT_SLICE_S))
            except REDIS_ERRORS as err:  # the clock runs on while the relay is away
                if away_since is None:
                    away_since = time.monotonic()
                log.warning("match %s seat %s: the live relay is away (%s)", self.match_id, self.seat, err)
                time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
                continue
            away_since = None
            if found is not None:
                return ruled(found[1])

    def close(self) -> None:
        closed = seat_key(self.match_id, self.seat, "closed")
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


class RemoteChannel(RelayChannel):
    """The worker's end of a remote seat: a relay channel whose failure entries become verdicts, and whose
    connection may be away for the grace period before the seat forfeits as disconnected.

    The grace keeps the seat; it never adds time. The seat's clock (``deadline``, the referee's) runs on
    while no connection serves it, and a reconnected bot answers within what is left of it: a bot that
    reconnects on every request thinks no longer than one that stays."""

    def __init__(self, match_id: str, seat: int):
        super().__init__(match_id, seat)
        self.grace_s = float(settings.REMOTE_GRACE_SECONDS)
        self.claim = seat_key(match_id, seat, "claim")
        self.wake = seat_key(match_id, seat, "wake")

    def send(self, lines: Sequence[bytes]) -> None:
        super().send(lines)
        if lines:
            self._retry(lambda c: c.pipeline().rpush(self.wake, b"1").ltrim(self.wake, -WAKE_CAP, -1)
                        .expire(self.wake, KEEP_SECONDS).execute())

    def receive(self, deadline: float) -> bytes | None:
        away_since: float | None = None
        relay_away_since: float | None = None
        while True:
            now = time.monotonic()
            try:
                self.check_attempt()
                connected = bool(client().exists(self.claim))
            except REDIS_ERRORS:
                connected = True  # the relay itself is away: RelayChannel's rule (the clock runs on) applies below
            if connected:
                away_since = None
            else:
                away_since = away_since if away_since is not None else now
                if now - away_since >= self.grace_s:
                    raise PlayerFailure(protocol.TIMEOUT, DISCONNECTED,
                                        f"the remote bot's connection was away for {self.grace_s:.0f} s, the "
                                        f"grace period, while the seat had to answer")
            limit = deadline if away_since is None else min(deadline, away_since + self.grace_s)
            left = limit - now
            if left <= 0:
                if now >= deadline and relay_away_since is not None:
                    raise PlayerFailure(protocol.ABORTED, RELAY, "the live relay was unreachable for the last "
                                        f"{now - relay_away_since:.1f} s of the seat's clock")
                if now >= deadline:
                    return None  # the clock ran out, connected or not: the referee's timeout
                continue  # the grace ran out first: ruled above on the next turn
            try:
                found = client().blpop([self.incoming], timeout=min(left, WAIT_SLICE_S))
            except REDIS_ERRORS as err:
                relay_away_since = relay_away_since or now
                log.warning("match %s seat %s: the live relay is away (%s)", self.match_id, self.seat, err)
                time.sleep(min(0.5, max(0.0, limit - time.monotonic())))
                continue
            relay_away_since = None
            if found is not None:
                return ruled(found[1])


def ruled(line: bytes) -> bytes:
    """The seat's line, or the site's own ruling on the seat (a failure entry) raised as its verdict: a remote
    bot's process ended, a person resigned."""
    if line.startswith(FAILURE):
        ruling = orjson.loads(line[len(FAILURE):])
        raise PlayerFailure(ruling["verdict"], ruling["code"], ruling["detail"])
    return line


def failure_entry(verdict: str, code: str, detail: str) -> bytes:
    return FAILURE + orjson.dumps({"verdict": verdict, "code": code, "detail": detail})


def resign(match_id: str, seat: int, detail: str) -> int:
    """A person gives the match up: the site's ruling on their seat, read by the referee at the seat's next read
    (its decision now, or its next one), after any answer it sent already. PUSHED, TAKEN (resigned already)
    or ENDED."""
    return push_line(match_id, seat, failure_entry(protocol.RESIGNED, protocol.RESIGNED, detail),
                     once=seat_key(match_id, seat, "resigned"), force=True)


REMOTE_PREFIX = "remote/"


def channel_address(match_id: str, seat: int, version_key: str | None = None) -> str:
    """A channel seat's address for the runner: "<attempt>:<seat>" a person's, "remote/<attempt>:<seat>:<version
    key>" a remote bot's."""
    if version_key is None:
        return f"{match_id}:{seat}"
    return f"{REMOTE_PREFIX}{match_id}:{seat}:{version_key}"


def is_remote_address(address: str) -> bool:
    return address.startswith(REMOTE_PREFIX)


def address_version(address: str) -> str:
    """The version key a remote seat's address names."""
    return address.rsplit(":", 1)[1]


def connect(address: str) -> RelayChannel:
    """The runner's ``connect`` for every channel seat (channel_address)."""
    if is_remote_address(address):
        match_id, seat, _ = address.removeprefix(REMOTE_PREFIX).rsplit(":", 2)
        return RemoteChannel(match_id, int(seat))
    match_id, seat = address.rsplit(":", 1)
    return RelayChannel(match_id, int(seat))


# ---------------------------------------------------------------------------------------------- the pages

def seat_lines(match_id: str, seat: int, start: int = 0) -> tuple[list[dict[str, Any]], bool]:
    """The seat's messages from ``start`` on (each ``{"t", "m"}``) and whether the referee said goodbye."""
    pipe = client().pipeline()
    pipe.lrange(seat_key(match_id, seat, "out"), max(0, start), -1)
    pipe.exists(seat_key(match_id, seat, "closed"))
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


def answer(match_id: str, seat: int, request_id: int | None, line: bytes) -> int:
    """Deliver the page's answer (one protocol line) for ``request_id`` (None: the ready): PUSHED, TAKEN when
    that request was answered already, ENDED when the seat's attempt is not being played, FULL when the
    referee has not read the seat's earlier lines."""
    return push_line(match_id, seat, line, once=_answered_key(match_id, seat, request_id))


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


# ---------------------------------------------------------------------------------------------- the bounds

PUSHED, ENDED, FULL, TAKEN = 1, 0, -1, -2

# One step on the server, so that no two writers race past the checks: the line is taken only while the attempt
# is being played and the seat has not been told goodbye, only while fewer than IN_LINES lines wait (unless it
# is the site's own ruling on the seat, ``force``), and, given a ``once`` key, only by the first answer.
PUSH_LINE = """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[5] == '0' and redis.call('LLEN', KEYS[3]) >= tonumber(ARGV[2]) then return -1 end
if KEYS[5] ~= '' then
  if not redis.call('SET', KEYS[5], '1', 'NX', 'EX', ARGV[4]) then return -2 end
end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('EXPIRE', KEYS[3], ARGV[3])
if KEYS[4] ~= '' then
  redis.call('INCR', KEYS[4])
  redis.call('EXPIRE', KEYS[4], ARGV[4])
end
return 1
"""


def push_line(match_id: str, seat: int, line: bytes, *, once: str = "", counted: bool = False,
              force: bool = False) -> int:
    """Put a line on the seat's ``in`` list for the worker: PUSHED, or why not (ENDED, FULL, TAKEN)."""
    keys, args = _push_call(match_id, seat, line, once=once, counted=counted, force=force)
    return int(client().register_script(PUSH_LINE)(keys=keys, args=args))


def _push_call(match_id: str, seat: int, line: bytes, *, once: str = "", counted: bool = False,
               force: bool = False) -> tuple[list[str], list[object]]:
    keys = [key(match_id, "attempt"), seat_key(match_id, seat, "closed"), seat_key(match_id, seat, "in"),
            seat_key(match_id, seat, "answers") if counted else "", once]
    return keys, [line, IN_LINES, IN_KEEP_SECONDS, KEEP_SECONDS, "1" if force else "0"]


# ---------------------------------------------------------------------------------------------- the socket
# The socket end (matches.relay_socket) runs on the web process's event loop, with an asyncio client of its own.

class SocketSeat:
    """One remote seat as the connection serving it sees the relay."""

    def __init__(self, r: aredis.Redis, match_id: str, seat: int, connection: str):
        self.r, self.match_id, self.seat, self.connection = r, match_id, seat, connection

    def _key(self, part: str) -> str:
        return seat_key(self.match_id, self.seat, part)

    async def claim(self) -> bool:
        """Serve the seat, unless another connection of the bot does."""
        return bool(await self.r.set(self._key("claim"), self.connection, nx=True, ex=CLAIM_SECONDS))

    async def renew(self) -> None:
        await self.r.set(self._key("claim"), self.connection, ex=CLAIM_SECONDS)

    async def release(self) -> None:
        if await self.r.get(self._key("claim")) == self.connection.encode():
            await self.r.delete(self._key("claim"))

    async def answered(self) -> int:
        """How many of the seat's questions connections answered already (a reconnect's resume)."""
        return int(await self.r.get(self._key("answers")) or 0)

    async def lines(self, cursor: int) -> list[dict[str, Any]]:
        """The messages the referee sent the seat from ``cursor`` on."""
        return [orjson.loads(entry)["m"] for entry in await self.r.lrange(self._key("out"), cursor, -1)]

    async def closed(self) -> bool:
        return bool(await self.r.exists(self._key("closed")))

    async def wait(self, seconds: float) -> None:
        """Until the worker sends the seat a line, or ``seconds``."""
        await self.r.blpop([self._key("wake")], timeout=seconds)

    async def deliver(self, line: bytes) -> int:
        """The bot's line for the worker (push_line's answer)."""
        keys, args = _push_call(self.match_id, self.seat, line, counted=True)
        return int(await self.r.register_script(PUSH_LINE)(keys=keys, args=args))

    async def rule(self, verdict: str, code: str, detail: str) -> int:
        """The site's own ruling on the seat (as a pipe's reader would rule), for the worker's verdict."""
        keys, args = _push_call(self.match_id, self.seat, failure_entry(verdict, code, detail), force=True)
        return int(await self.r.register_script(PUSH_LINE)(keys=keys, args=args))


async def assigned_seats(r: aredis.Redis, version_key: str) -> dict[str, dict[str, Any]]:
    """The seats the version plays now: assignment field → its info (``live``, ``seat``, ``kind``, ``preset``)."""
    return {k.decode(): orjson.loads(v) for k, v in (await r.hgetall(assigned_key(version_key))).items()}
