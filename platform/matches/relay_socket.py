"""The real-time relay's socket end: one websocket per remote bot connection, `arena connect`'s other side
(docs/protocol.md "Remote bots").

An ASGI handler in the web process (config/asgi.py routes ``/api/remote/connect/`` here). An idle connection
is a coroutine waiting on its socket: no thread, no process, nothing on a worker. While the bot's version
plays a match, the worker writes the seat's lines to the relay (matches.relay, which owns every key and
bound) and this handler moves them: relay → socket as ``line`` frames, socket → relay as the seat's
answers. It never judges a line beyond what a pipe's reader would (its length, the match's output, lines
nobody asked for): the worker's referee parses and rules on it.

Frames are JSON text. Server → client: welcome, ping, rtt, start, line, over, abandon, error.
Client → server: line, exit, pong. Close codes: 4001 unauthorized, 4003 forbidden (another bot's token),
4004 nothing to play (no remote version, no relay), 4008 policy (a bad frame, a flood), 4029 too many
connections, 4009 the version changed (reconnect to play the new one), 1013 try again later (the site's
database is briefly away; a connection already open keeps serving its seats meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import statistics
import time
import urllib.parse
import weakref
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import orjson
import redis.asyncio as aredis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, close_old_connections

from accounts.limits import client_ip
from arena import protocol
from arena.players import MAX_STDOUT_BYTES
from bots import remote as remote_bots
from matches import relay
from matches.validation import do_validate_remote

log = logging.getLogger(__name__)

PATH = "/api/remote/connect/"
UNAUTHORIZED, FORBIDDEN, NOTHING, POLICY, VERSION_CHANGED, TOO_MANY = 4001, 4003, 4004, 4008, 4009, 4029
TRY_AGAIN = 1013  # the site cannot serve the connection now (its database is away): the client reconnects
# One line of the longest kind with its envelope, every byte of it escaped by JSON at its widest ("\u0001"):
# a line within the protocol's limit is always delivered to be ruled on, never refused as a frame.
MAX_FRAME_CHARS = 6 * protocol.MAX_LINE_BYTES + 4096
PING_EVERY_S = 5.0
FIRST_PINGS = 5
RTT_WINDOW = 60  # the p95 is of the last this many round trips
ASSIGNED_POLL_S = 0.5
CLAIM_RENEW_S = 2.0
MAX_MATCHES = 16


async def db(function, *args, **kwargs):
    """A database call from the event loop, in Django's thread, on a connection that is still good."""
    def call():
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()  # as at the end of a request: kept only as long as CONN_MAX_AGE allows
    return await sync_to_async(call)()


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aredis.Redis] = weakref.WeakKeyDictionary()


def relay_client() -> aredis.Redis:
    """The relay's client for this event loop (one per web process; its connections belong to its loop)."""
    loop = asyncio.get_running_loop()
    if loop not in _clients:
        _clients[loop] = aredis.Redis.from_url(settings.LIVE_REDIS_URL,
                                               socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
                                               socket_timeout=settings.REDIS_TIMEOUT + 2, health_check_interval=30)
    return _clients[loop]


class Closed(Exception):
    """The socket is gone (or is to be closed with ``code`` and ``reason``)."""

    def __init__(self, code: int = 1000, reason: str = ""):
        super().__init__(reason)
        self.code, self.reason = code, reason


@dataclass
class Served:
    """One seat this connection plays: where it stands in the seat's lines."""

    name: str  # the assignment's field, "<attempt name>/<seat>": what the client calls the match
    relay: relay.SocketSeat
    info: dict[str, Any]
    task: asyncio.Task | None = None
    sent_bytes: int = 0
    failed: bool = False
    unassigned: asyncio.Event = field(default_factory=asyncio.Event)


class Session:
    """One open connection."""

    def __init__(self, receive, send, token, version, row, max_matches: int):
        self._receive, self._send = receive, send
        self.token, self.version, self.row = token, version, row
        self.max_matches = max_matches
        self.served: dict[str, Served] = {}
        self.rtts: list[float] = []
        self.pings: dict[int, float] = {}
        self.next_ping = 0
        self.frames: list[float] = []  # arrival times in the last two seconds, for the flood bound
        self.closing: Closed | None = None
        self.lock = asyncio.Lock()

    # ---- the socket

    async def send(self, frame: dict[str, Any]) -> None:
        async with self.lock:
            await self._send({"type": "websocket.send", "text": orjson.dumps(frame).decode()})

    async def receive(self) -> dict[str, Any]:
        while True:
            message = await self._receive()
            if message["type"] == "websocket.disconnect":
                raise Closed(message.get("code", 1000))
            if message["type"] != "websocket.receive":
                continue
            now = time.monotonic()
            self.frames = [t for t in self.frames if now - t < 2.0]
            self.frames.append(now)
            if len(self.frames) > 2 * settings.REMOTE_FRAMES_PER_SECOND:
                raise Closed(POLICY, f"flood: more than {settings.REMOTE_FRAMES_PER_SECOND} messages a second")
            text = message.get("text")
            if text is None:
                raise Closed(POLICY, "frames are JSON text, not binary")
            if len(text) > MAX_FRAME_CHARS:
                raise Closed(POLICY, f"a frame of {len(text):,} characters; the most is {MAX_FRAME_CHARS:,}")
            try:
                frame = orjson.loads(text)
            except orjson.JSONDecodeError as err:
                raise Closed(POLICY, f"a frame that is not JSON: {err}") from None
            if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
                raise Closed(POLICY, "a frame is a JSON object with a \"type\"")
            return frame

    # ---- round trips

    async def ping(self) -> None:
        self.next_ping += 1
        self.pings[self.next_ping] = time.monotonic()
        await self.send({"type": "ping", "id": self.next_ping})

    def pong(self, frame: dict[str, Any]) -> None:
        sent = self.pings.pop(frame.get("id"), None) if isinstance(frame.get("id"), int) else None
        if sent is not None:
            self.rtts = [*self.rtts, (time.monotonic() - sent) * 1000][-RTT_WINDOW:]

    def p95_ms(self) -> int | None:
        if not self.rtts:
            return None
        if len(self.rtts) == 1:
            return round(self.rtts[0])
        return round(statistics.quantiles(self.rtts, n=20, method="inclusive")[-1])

    # ---- the lines

    async def deliver(self, frame: dict[str, Any]) -> None:
        served = self.served.get(frame.get("match"))  # type: ignore[arg-type]
        if served is None or served.failed:
            return  # a match this connection does not play (or no longer): nothing reaches any other seat
        if frame["type"] == "exit":
            detail = str(frame.get("detail", "the bot's process ended"))[:300]
            return await self.rule(served, protocol.CRASH, "exited", f"on its owner's machine: {detail}")
        line = frame.get("line")
        if not isinstance(line, str):
            raise Closed(POLICY, "a line frame carries its line as text")
        data = line.encode("utf-8", "surrogatepass")
        if len(data) + 1 > protocol.MAX_LINE_BYTES:
            return await self.rule(served, protocol.PROTOCOL_ERROR, protocol.LINE_TOO_LONG,
                                   f"no newline within {protocol.MAX_LINE_BYTES} bytes")
        if data.startswith(relay.FAILURE[:1]):
            return await self.rule(served, protocol.PROTOCOL_ERROR, protocol.BAD_JSON,
                                   "a line that starts with a NUL byte is not JSON")
        served.sent_bytes += len(data) + 1
        if served.sent_bytes > MAX_STDOUT_BYTES:
            return await self.rule(served, protocol.PROTOCOL_ERROR, protocol.OUTPUT_LIMIT,
                                   f"the seat sent more than {MAX_STDOUT_BYTES} bytes in one match")
        pushed = await served.relay.deliver(data)
        if pushed == relay.FULL:
            await self.rule(served, protocol.PROTOCOL_ERROR, protocol.OUTPUT_LIMIT,
                            f"more than {relay.IN_LINES} lines waiting unread: a seat sends one line per hello or "
                            f"request")
        elif pushed == relay.ENDED:
            served.failed = True  # the seat's attempt is over: nothing more of it is taken

    async def rule(self, served: Served, verdict: str, code: str, detail: str) -> None:
        """The site rules on the seat (as a pipe's reader would): the worker turns this into its verdict."""
        served.failed = True
        await served.relay.rule(verdict, code, detail)

    # ---- the seats

    async def watch_assignments(self) -> None:
        """Pick up the matches the version is assigned; mark those no longer assigned."""
        version_key = relay.version_key(self.version)
        while True:
            assigned = await relay.assigned_seats(relay_client(), version_key)
            for key, served in list(self.served.items()):
                if key not in assigned:
                    served.unassigned.set()
            for key, info in sorted(assigned.items()):
                if key in self.served or len(self.served) >= self.max_matches:
                    continue
                seat = relay.SocketSeat(relay_client(), info["live"], int(info["seat"]), str(self.row.pk))
                if not await seat.claim():
                    continue  # another connection of the bot plays it
                served = Served(name=key, relay=seat, info=info)
                self.served[key] = served
                served.task = asyncio.create_task(self.play(served))
            await asyncio.sleep(ASSIGNED_POLL_S)

    async def play(self, served: Served) -> None:
        seat = served.relay
        try:
            answered = await seat.answered()
            await self.send({"type": "start", "match": served.name, "match_id": int(seat.match_id.split(".")[0]),
                             "seat": seat.seat, "kind": served.info.get("kind", ""),
                             "preset": served.info.get("preset", ""), "resume": answered > 0})
            cursor = asked = 0
            renewed = time.monotonic()
            while True:
                messages = await seat.lines(cursor)
                cursor += len(messages)
                for message in messages:
                    question = message.get("type") in ("hello", "request")
                    await self.send({"type": "line", "match": served.name, "line": orjson.dumps(message).decode(),
                                     "answered": question and asked < answered})
                    asked += question
                if not messages and await seat.closed():
                    await self.send({"type": "over", "match": served.name})
                    return
                if not messages and served.unassigned.is_set():
                    await self.send({"type": "abandon", "match": served.name,
                                     "reason": "the match's attempt was given up (its worker stopped, or the relay "
                                               "lost it); if the match is played again, it starts anew"})
                    return
                if time.monotonic() - renewed >= CLAIM_RENEW_S:
                    await seat.renew()
                    renewed = time.monotonic()
                await seat.wait(1)
        finally:
            self.served.pop(served.name, None)
            with contextlib.suppress(Exception):
                await seat.release()

    # ---- the connection's life

    async def heartbeat(self) -> None:
        beat = time.monotonic()
        while True:
            await asyncio.sleep(PING_EVERY_S)
            await self.ping()
            if time.monotonic() - beat >= remote_bots.HEARTBEAT_SECONDS - PING_EVERY_S / 2:
                beat = time.monotonic()
                try:
                    await db(remote_bots.heartbeat, self.row.pk, self.p95_ms(), len(self.rtts))
                except remote_bots.Ended as ended:
                    raise Closed(UNAUTHORIZED if ended.final else VERSION_CHANGED, str(ended)) from None
                except DatabaseError as err:
                    # The site's database is away, not the bot: its seats are served from the relay all the
                    # same, and the next beat tries again. Closing here would make the bot forfeit our outage.
                    log.warning("remote connection %s: its heartbeat could not be recorded (%s)", self.row.pk,
                                err)

    async def read(self) -> None:
        while True:
            frame = await self.receive()
            kind = frame["type"]
            if kind == "pong":
                self.pong(frame)
            elif kind in ("line", "exit"):
                await self.deliver(frame)
            else:
                raise Closed(POLICY, f"unknown frame type {kind!r}: a client sends line, exit and pong")

    async def measure(self) -> None:
        """The first round trips, before any match: the allowance is known when the version is first matched."""
        for _ in range(FIRST_PINGS):
            await self.ping()
            deadline = time.monotonic() + 5
            while self.pings and time.monotonic() < deadline:
                frame = await asyncio.wait_for(self.receive(), deadline - time.monotonic())
                if frame["type"] == "pong":
                    self.pong(frame)
                elif frame["type"] in ("line", "exit"):
                    continue  # no match is played yet: nothing to deliver
                else:
                    raise Closed(POLICY, f"unknown frame type {frame['type']!r}")
        p95 = self.p95_ms()
        try:
            await db(remote_bots.heartbeat, self.row.pk, p95, len(self.rtts))
        except remote_bots.Ended as ended:
            raise Closed(UNAUTHORIZED if ended.final else VERSION_CHANGED, str(ended)) from None
        allowance = settings.REMOTE_ALLOWANCE_CAP_MS if p95 is None else min(settings.REMOTE_ALLOWANCE_CAP_MS, p95)
        await self.send({"type": "rtt", "p95_ms": p95, "allowance_ms": allowance})

    async def run(self) -> None:
        await self.measure()
        if self.version.status == self.version.Status.PENDING:
            await db(do_validate_remote, self.version)
        tasks = [asyncio.create_task(t) for t in (self.read(), self.heartbeat(), self.watch_assignments())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()  # raises what ended it
        finally:
            running = [*tasks, *(s.task for s in self.served.values() if s.task is not None)]
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)


def _headers(scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _address(scope) -> str:
    """The client's address by the site's one rule (accounts.limits.client_ip, KOZYR_TRUSTED_PROXIES): behind
    a proxy, the socket's peer is the proxy, and a header from anyone else is not believed."""
    client = scope.get("client") or ("", 0)
    meta = {"REMOTE_ADDR": str(client[0]), "HTTP_X_FORWARDED_FOR": _headers(scope).get("x-forwarded-for", "")}
    return client_ip(SimpleNamespace(META=meta))


async def _refuse(send, code: int, reason: str) -> None:
    """Accepted only to say why: a refusal before the handshake would reach the client as a bare 403."""
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": orjson.dumps({"type": "error", "detail": reason}).decode()})
    await send({"type": "websocket.close", "code": code, "reason": reason[:120]})


async def serve(scope, receive, send) -> None:
    """The ASGI application for one remote bot connection."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    try:
        await _open(scope, receive, send)
    except DatabaseError as err:  # before the session: nothing to undo, and the client tries again
        log.warning("a remote connection was refused: the site's database is away (%s)", err)
        await _refuse(send, TRY_AGAIN, "the site's database is briefly unavailable: try again in a few seconds")


async def _open(scope, receive, send) -> None:
    query = urllib.parse.parse_qs(scope.get("query_string", b"").decode("latin-1"))
    bot_name = (query.get("bot") or [""])[0]
    try:
        max_matches = int((query.get("max_matches") or ["4"])[0])
    except ValueError:
        max_matches = 0
    if not 1 <= max_matches <= MAX_MATCHES:
        return await _refuse(send, POLICY, f"max_matches must be a whole number from 1 to {MAX_MATCHES}")
    if not relay.enabled():
        return await _refuse(send, NOTHING, "this site has no live relay, so it takes no remote bots")
    authorization = _headers(scope).get("authorization", "")
    scheme, _, text = authorization.partition(" ")
    token = await db(remote_bots.token_bot, text.strip()) if scheme.lower() == "bearer" else None
    if token is None:
        return await _refuse(send, UNAUTHORIZED, "unauthorized: send `Authorization: Bearer <the bot's remote "
                                                 "token>`; this one is unknown or revoked")
    if token.bot.name.lower() != bot_name.lower():
        return await _refuse(send, FORBIDDEN, f"this token is not {bot_name!r}'s: a remote token plays only its "
                                              f"own bot")
    version = await db(remote_bots.remote_version, token.bot)
    if version is None:
        return await _refuse(send, NOTHING, f"{token.bot.name} has no remote version to play: make one on its "
                                            f"page (its newest was rejected or retired)")
    try:
        row = await db(remote_bots.open_connection, token, version, address=_address(scope), max_matches=max_matches)
    except remote_bots.TooManyConnections as err:
        return await _refuse(send, TOO_MANY, str(err))
    await send({"type": "websocket.accept"})
    session = Session(receive, send, token, version, row, max_matches)
    code, reason = 1000, ""
    try:
        await session.send({"type": "welcome", "protocol": protocol.PROTOCOL_VERSION, "bot": token.bot.name,
                            "game": token.bot.game, "version": version.number, "status": version.status,
                            "grace_seconds": settings.REMOTE_GRACE_SECONDS,
                            "allowance_cap_ms": settings.REMOTE_ALLOWANCE_CAP_MS, "connection": str(row.pk)})
        await session.run()
    except Closed as closed:
        code, reason = closed.code, closed.reason
    except (TimeoutError, OSError) as err:
        code, reason = 1011, f"the connection failed: {type(err).__name__}"
    except DatabaseError as err:
        log.warning("remote connection %s of %s: the site's database is away (%s)", row.pk, token.bot.name, err)
        code, reason = TRY_AGAIN, "the site's database is briefly unavailable: try again in a few seconds"
    except Exception:
        log.exception("remote connection %s of %s failed", row.pk, token.bot.name)
        code, reason = 1011, "the site failed"
    finally:
        with contextlib.suppress(DatabaseError):  # else the row lapses by itself: it is no longer renewed
            await db(remote_bots.close_connection, row.pk)
    if code != 1000 or reason:
        with contextlib.suppress(Exception):
            if reason:
                await session.send({"type": "error", "detail": reason})
            await send({"type": "websocket.close", "code": code, "reason": reason[:120]})
    else:
        with contextlib.suppress(Exception):
            await send({"type": "websocket.close", "code": 1000})
