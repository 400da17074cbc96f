"""A remote bot's seat on the live relay (docs/protocol.md "Remote bots", docs/matches.md "Remote bots").

The worker plays a remote seat exactly as a person's (arena.channels.ChannelPlayer over matches.live's
lists): the lines it sends go to ``seat:<n>:out``, the answers come from ``seat:<n>:in``. The web process
holding the bot's `arena connect` connection moves lines between those lists and the connection
(api/remote_socket.py). Neither side knows the other; what they share, per remote seat, is:

- ``kozyr:remote:assigned:<version key>``: a hash of the match attempts the version is playing now
  (field ``<live id>/<seat>``); a connection of the version picks up what appears there, a dead worker's
  attempt disappears when the next attempt of its match is assigned. The version key is its id and the
  microsecond it was made (``version_key``), so two databases on one Redis (a test run beside `make run`)
  never hand each other's matches to a connection;
- ``seat:<n>:claim``: the id of the connection serving the seat, set for CLAIM_SECONDS and renewed while it
  serves; its absence is what the worker calls "disconnected", and the grace period runs from then;
- ``seat:<n>:wake``: a nudge pushed with every line sent, so the serving connection forwards it at once;
- ``seat:<n>:answers``: how many lines the connections delivered, so a reconnected `arena connect` is told
  which hello and requests were answered already (it replays them to a fresh bot and drops those answers);
- in ``seat:<n>:in``, besides the bot's lines, a *failure entry* (``FAILURE`` then JSON) when the site
  itself rules on the seat: the bot's process ended, a line too long, more than a match's output. The worker
  turns it into the same verdict a sandboxed bot gets.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import orjson
from django.conf import settings

from arena import protocol
from arena.players import PlayerFailure
from matches import live

FAILURE = b"\x00failure:"  # never the start of a bot's line: the connection refuses a NUL in a line
CLAIM_SECONDS = 6  # a claim lapses this long after its connection stopped renewing it
WAKE_CAP = 64  # nudges are hints: a few are enough, the lines themselves are in ``out``
DISCONNECTED = "disconnected"  # the timeout code of a seat whose connection stayed away past the grace


def version_key(version) -> str:
    return f"{version.pk}-{int(version.created.timestamp() * 1_000_000)}"


def assigned_key(version_key: str) -> str:
    return f"kozyr:remote:assigned:{version_key}"


def seat_key(live_id: str, seat: int, part: str) -> str:
    return live.key(live_id, "seat", seat, part)


def field(live_id: str, seat: int) -> str:
    return f"{live_id}/{seat}"


# ---------------------------------------------------------------------------------------------- the worker

def assign(version_key: str, live_id: str, seat: int, info: dict[str, Any]) -> None:
    """The version plays this seat of this attempt: its connections may pick it up. Any earlier attempt of the
    same match is dropped from the hash (its worker died: the connection abandons it)."""
    c = live.client()
    name = assigned_key(version_key)
    match_pk = live_id.split(".", 1)[0]
    stale = [f for f in c.hkeys(name) if f.decode().split(".", 1)[0] == match_pk]
    pipe = c.pipeline()
    if stale:
        pipe.hdel(name, *stale)
    parts = [seat_key(live_id, seat, p) for p in ("claim", "wake", "answers")]
    pipe.delete(*parts)
    pipe.hset(name, field(live_id, seat), orjson.dumps({**info, "live": live_id, "seat": seat}))
    pipe.expire(name, live.KEEP_SECONDS)
    pipe.execute()


def unassign(version_key: str, live_id: str, seat: int) -> None:
    c = live.client()
    pipe = c.pipeline()
    pipe.hdel(assigned_key(version_key), field(live_id, seat))
    for part in ("claim", "wake", "answers"):
        pipe.expire(seat_key(live_id, seat, part), live.ENDED_KEEP_SECONDS)
    pipe.execute()


class RemoteChannel(live.RelayChannel):
    """The worker's end of a remote seat: a relay channel whose silence, while no connection serves the seat,
    is waited out for the grace period instead of the clock, and whose failure entries become verdicts."""

    def __init__(self, live_id: str, seat: int, move_ms: int):
        super().__init__(live_id, seat)
        self.move_s = move_ms / 1000
        self.grace_s = float(settings.REMOTE_GRACE_SECONDS)
        self.claim = seat_key(live_id, seat, "claim")
        self.wake = seat_key(live_id, seat, "wake")

    def send(self, lines: Sequence[bytes]) -> None:
        super().send(lines)
        if lines:
            self._retry(lambda c: c.pipeline().rpush(self.wake, b"1").ltrim(self.wake, -WAKE_CAP, -1)
                        .expire(self.wake, live.KEEP_SECONDS).execute())

    def receive(self, deadline: float) -> bytes | None:
        away_since: float | None = None
        relay_away_since: float | None = None
        while True:
            now = time.monotonic()
            try:
                connected = bool(live.client().exists(self.claim))
            except live.REDIS_ERRORS:
                connected = True  # the relay itself is away: RelayChannel's rule (the clock runs on) applies below
            if not connected:
                if away_since is None:
                    away_since = now
                if now - away_since >= self.grace_s:
                    raise PlayerFailure(protocol.TIMEOUT, DISCONNECTED,
                                        f"the remote bot's connection was away for {self.grace_s:.0f} s, the "
                                        f"grace period, while the seat had to answer")
                limit = away_since + self.grace_s
            else:
                if away_since is not None:  # back: a restarted bot gets a full move time from now
                    deadline = max(deadline, now + self.move_s)
                    away_since = None
                limit = deadline
            left = limit - now
            if left <= 0:
                if relay_away_since is not None:
                    raise PlayerFailure(protocol.ABORTED, live.RELAY, "the live relay was unreachable for the last "
                                        f"{now - relay_away_since:.1f} s of the seat's clock")
                return None
            try:
                found = live.client().blpop([self.incoming], timeout=min(left, live.WAIT_SLICE_S))
            except live.REDIS_ERRORS as err:
                relay_away_since = relay_away_since or now
                live.log.warning("match %s seat %s: the live relay is away (%s)", self.match_id, self.seat, err)
                time.sleep(min(0.5, max(0.0, limit - time.monotonic())))
                continue
            relay_away_since = None
            if found is not None:
                line = found[1]
                if line.startswith(FAILURE):
                    ruling = orjson.loads(line[len(FAILURE):])
                    raise PlayerFailure(ruling["verdict"], ruling["code"], ruling["detail"])
                return line


def failure_entry(verdict: str, code: str, detail: str) -> bytes:
    return FAILURE + orjson.dumps({"verdict": verdict, "code": code, "detail": detail})


def connect(address: str) -> live.RelayChannel:
    """The runner's ``connect`` for every channel seat: "remote/<live id>:<seat>:<move ms>:<version key>" is a
    remote bot's, "<live id>:<seat>" a person's."""
    if is_remote_address(address):
        live_id, seat, move_ms, _ = address.removeprefix(REMOTE_PREFIX).rsplit(":", 3)
        return RemoteChannel(live_id, int(seat), int(move_ms))
    return live.connect(address)


REMOTE_PREFIX = "remote/"


def channel_address(live_id: str, seat: int, move_ms: int, version_key: str) -> str:
    return f"{REMOTE_PREFIX}{live_id}:{seat}:{move_ms}:{version_key}"


def is_remote_address(address: str) -> bool:
    return address.startswith(REMOTE_PREFIX)


def address_version(address: str) -> str:
    """The version key (``version_key``) a remote seat's address names."""
    return address.rsplit(":", 1)[1]
