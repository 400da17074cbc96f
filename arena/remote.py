"""``arena connect``: the bot author's end of a remote bot (docs/protocol.md, "Remote bots").

One websocket to the site, kept open (reconnected with a backoff when it drops), carries every match the
site assigns to the bot's remote version. Each match gets a fresh process of the author's command, which
speaks the ordinary protocol on its stdin and stdout: the site's lines for that seat are written to its
stdin, its stdout lines are sent back. Nothing here judges the protocol — the site's referee does; this
end only keeps the pipes and the connection, with two exceptions:

- after a reconnect the site replays a match's whole history to a fresh process, marking each ``hello`` or
  ``request`` whose answer it already has (``answered``); the answers the fresh process gives to those are
  dropped here, by a first-in first-out list per match, so the site gets only the open request's answer;
- an over-long stdout line is cut just past the limit, so the site rules it ``line-too-long`` as it would a
  sandboxed bot's without the whole line crossing the network.

Pure asyncio: no thread or process of its own per match, only the bot's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from arena.protocol import MAX_LINE_BYTES, printable

PATH = "/api/remote/connect/"
DEFAULT_MAX_MATCHES = 4
# Close codes after which reconnecting cannot help: the token, the bot or its remote version is wrong.
FATAL_CLOSES = {4001: "unauthorized", 4003: "forbidden", 4004: "not found"}
FATAL_STATUSES = (401, 403, 404)  # the same refusals, made before the websocket opened
RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 10.0
EXIT_GRACE_SECONDS = 0.5  # after goodbye and a closed stdin, as the referee allows a sandboxed bot
KEEP_BYTES = MAX_LINE_BYTES + 1  # what is sent of a line too long: enough for the site to rule it so
ASKING = ("hello", "request")  # the lines a bot answers
MAX_FRAME_BYTES = 16 * 1024 * 1024
FATAL_STATUS = 2


def websocket_url(site: str, bot: str, max_matches: int) -> str:
    """``https://host/prefix`` → ``wss://host/prefix/api/remote/connect/?bot=NAME&max_matches=N``."""
    parts = urllib.parse.urlsplit(site)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise ValueError(f"{site!r} is not a site address; give one like https://kozyr.example.org")
    query = urllib.parse.urlencode({"bot": bot, "max_matches": max_matches})
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}{PATH}?{query}"


def describe_exit(code: int | None) -> str:
    if code is None:
        return "closed its stdout"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exited with code {code}"


class Refused(Exception):
    """The site refused this bot for good (bad token, no remote version): reconnecting cannot help."""


@dataclass(eq=False)
class _Match:
    live: str  # the site's id of this attempt of the match: every frame about it carries it
    match_id: Any
    seat: Any
    process: asyncio.subprocess.Process
    asked: deque[bool] = field(default_factory=deque)  # per hello/request sent: was it answered already?
    result: dict[str, Any] | None = None
    said_goodbye: bool = False
    ended: bool = False  # over, abandoned, exited or dropped with the connection: nothing more is sent
    reader: asyncio.Task | None = None


class LineReader:
    """A bot's stdout, one line at a time, without ever holding much more than a line's limit.

    The stream's limit must be MAX_LINE_BYTES. A line longer than that comes back cut to its first KEEP_BYTES
    as soon as they have arrived (a sandboxed bot's line is ruled too long then too, newline or not); the
    rest of it, up to its newline, is read and thrown away."""

    def __init__(self, stream: asyncio.StreamReader):
        self.stream = stream
        self.skipping = False  # inside the rest of an over-long line

    async def next(self) -> bytes | None:
        """The next line without its newline; None at the end of the stream (an unfinished last line is no
        line: the process closed its stdout)."""
        while True:
            try:
                line = await self.stream.readuntil(b"\n")
            except asyncio.IncompleteReadError:
                return None
            except asyncio.LimitOverrunError as err:
                if self.skipping:
                    await self.stream.readexactly(err.consumed)
                    continue
                self.skipping = True
                return await self.stream.readexactly(KEEP_BYTES)  # already there: more than the limit is
            if self.skipping:
                self.skipping = False
                continue
            return line[:-1]


def _line_type(line: str) -> tuple[Any, dict[str, Any] | None]:
    try:
        message = json.loads(line)
    except ValueError:
        return None, None
    return (message.get("type"), message) if isinstance(message, dict) else (None, None)


def _kill(process: asyncio.subprocess.Process) -> None:
    """The bot and everything it started (it leads its own process group)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


class RemoteClient:
    """One ``arena connect``: ``await run()`` plays until ``stop()`` (0) or until the site refuses the bot
    for good (2, after one line on stderr)."""

    def __init__(self, url: str, token: str, command: Sequence[str], *, quiet: bool = False,
                 cwd: str | None = None, say: Callable[[str], None] | None = None,
                 retry_first: float = RETRY_FIRST_SECONDS, retry_max: float = RETRY_MAX_SECONDS,
                 exit_grace: float = EXIT_GRACE_SECONDS):
        self.url = url
        self.token = token
        self.command = list(command)
        self.quiet = quiet
        self.cwd = cwd
        self._say = say or (lambda text: print(text, flush=True))
        self.retry_first = retry_first
        self.retry_max = retry_max
        self.exit_grace = exit_grace
        self.matches: dict[str, _Match] = {}
        self._stopping = asyncio.Event()
        self._ws: ClientConnection | None = None
        self._session_task: asyncio.Task | None = None
        self._chores: set[asyncio.Task] = set()
        self._error: str | None = None  # the site's last error frame, not yet printed (a close may follow it)
        self.connections = 0  # how many times the websocket opened (tests read it)

    # ---- the connection

    def stop(self) -> None:
        """Close the connection cleanly (1000) and stop the bots; ``run`` then returns 0."""
        self._stopping.set()
        if self._ws is not None:
            self._chore(self._ws.close(1000, "arena connect stopped"))
        elif self._session_task is not None:
            self._session_task.cancel()  # still connecting: nothing to close

    async def run(self) -> int:
        delay = self.retry_first
        try:
            while not self._stopping.is_set():
                self._session_task = asyncio.create_task(self._session())
                try:
                    welcomed, why, said_by_site = await self._session_task
                except Refused as err:
                    print(f"arena: error: {err}", file=sys.stderr, flush=True)
                    return FATAL_STATUS
                except asyncio.CancelledError:
                    if not self._stopping.is_set():
                        raise
                    break
                finally:
                    self._session_task = None
                if self._stopping.is_set():
                    break
                if welcomed:
                    delay = self.retry_first
                # the site's own reasons (too many connections, a flood) are shown even with --quiet
                self.tell(f"disconnected: {why}; reconnecting in {delay:g} s", always=said_by_site)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), delay)
                delay = min(delay * 2, self.retry_max)
        finally:
            await self._drop_all()
            if self._chores:  # a closing handshake, bots given their half second: a moment, then cancelled
                await asyncio.wait(list(self._chores), timeout=1)
            for chore in list(self._chores):
                chore.cancel()
            await asyncio.gather(*self._chores, return_exceptions=True)
        self.tell("stopped")
        return 0

    async def _session(self) -> tuple[bool, str, bool]:
        """One connection, until it closes: (whether the site welcomed us, why it ended, whether the site said
        why: a close code of its own, 4000 or more)."""
        try:
            ws = await connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                               user_agent_header="arena-connect", max_size=MAX_FRAME_BYTES, open_timeout=15,
                               close_timeout=2)
        except InvalidStatus as err:
            status = err.response.status_code
            body = printable(err.response.body.decode("utf-8", "replace").strip()[:300])
            if status in FATAL_STATUSES:
                raise Refused(f"the site refused the connection: {body or 'no reason given'} (HTTP {status})") \
                    from None
            return False, f"the site answered HTTP {status}" + (f": {body}" if body else ""), True
        except (OSError, InvalidHandshake, TimeoutError) as err:
            return False, f"cannot connect to {self.url}: {printable(str(err)) or type(err).__name__}", False
        self.connections += 1
        self._ws = ws
        self._error = None
        welcomed = False
        try:
            if self._stopping.is_set():
                await ws.close(1000, "arena connect stopped")
            while True:
                raw = await ws.recv()
                if isinstance(raw, bytes):
                    continue
                try:
                    frame = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(frame, dict):
                    continue
                welcomed = welcomed or frame.get("type") == "welcome"
                self._flush_error()
                if frame.get("type") == "error":
                    self._error = printable(str(frame.get("detail") or "")) or "no detail given"
                    continue
                await self._handle(ws, frame)
        except ConnectionClosed:
            pass
        finally:
            self._ws = None
            await self._drop_all()  # a reconnect starts the matches still in play again (resume)
        code, reason = ws.close_code, printable(ws.close_reason or "")
        if self._error and (not reason or self._error.startswith(reason)):
            reason, self._error = self._error, None  # the close repeats the error, cut short: say it once, whole
        self._flush_error()
        if code in FATAL_CLOSES:
            raise Refused(f"{reason or FATAL_CLOSES[code]} (close code {code})")
        why = f"{reason or 'connection lost'} (close code {code})" if code else "connection lost"
        return welcomed, why, code is not None and code >= 4000

    def _flush_error(self) -> None:
        if self._error is not None:
            self.tell(f"the site says: {self._error}", always=True)
            self._error = None

    async def _send(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(frame, ensure_ascii=False))

    async def _handle(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "ping":  # at once, from here: never behind a bot's output
            await self._send(ws, {"type": "pong", "id": frame.get("id")})
        elif kind == "line":
            self._deliver(frame)
        elif kind == "start":
            await self._start(ws, frame)
        elif kind == "over":
            self._over(frame)
        elif kind == "abandon":
            self._abandon(frame)
        elif kind == "welcome":
            self._chore(self._welcome(ws, frame))
        elif kind == "rtt":
            p95 = frame.get("p95_ms")
            self.tell("round trip measured by the site: " + (f"p95 {p95} ms" if p95 is not None else "none yet")
                      + f"; allowance per move and start-up {frame.get('allowance_ms')} ms")

    async def _welcome(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        """Says who we are playing as, with the round trip of one websocket ping (measured beside the frames,
        so the site's own pings are still answered at once)."""
        try:
            latency = await asyncio.wait_for(await ws.ping(), 5)
            trip = f"round trip {latency * 1000:.0f} ms"
        except (ConnectionClosed, TimeoutError):
            trip = "round trip not measured"
        self.tell(f"connected to {self.url.split('?')[0]} as {frame.get('bot')} ({frame.get('game')}) "
                  f"v{frame.get('version')}, {frame.get('status')}, {trip}")

    # ---- matches

    async def _start(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        live = frame.get("match")
        if not isinstance(live, str):
            return
        old = self.matches.pop(live, None)
        if old is not None:
            self._end(old)
        label = f"match {frame.get('match_id', live)}"
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=self.cwd,
                limit=MAX_LINE_BYTES, start_new_session=hasattr(os, "killpg"))
        except OSError as err:
            self.tell(f"{label}: cannot start the bot: {err}", always=True)
            await self._send(ws, {"type": "exit", "match": live, "detail": f"could not start: {err}"[:300]})
            return
        match = _Match(live=live, match_id=frame.get("match_id"), seat=frame.get("seat"), process=process)
        self.matches[live] = match
        match.reader = asyncio.create_task(self._pump(ws, match))
        resumed = " (resumed: the site replays its lines to a fresh bot)" if frame.get("resume") else ""
        self.tell(f"{label} started: {frame.get('preset')}, seat {frame.get('seat')}, {frame.get('kind')}{resumed}")

    def _deliver(self, frame: dict[str, Any]) -> None:
        match = self._match_of(frame, self.matches.get)
        line = frame.get("line")
        if match is None or not isinstance(line, str):
            return  # a match we do not (or no longer) play
        kind, message = _line_type(line)
        if kind in ASKING:
            match.asked.append(bool(frame.get("answered")))
        elif kind == "result":
            match.result = message
        elif kind == "goodbye":
            match.said_goodbye = True
        stdin = match.process.stdin
        if stdin is None or stdin.is_closing():
            return
        with contextlib.suppress(OSError, RuntimeError):
            stdin.write(line.encode("utf-8", "replace") + b"\n")  # not drained: the receive loop never waits

    @staticmethod
    def _match_of(frame: dict[str, Any], find: Callable[..., _Match | None]) -> _Match | None:
        """The match a frame names, through ``find`` (get or pop); None for one we do not play."""
        live = frame.get("match")
        return find(live, None) if isinstance(live, str) else None

    async def _pump(self, ws: ClientConnection, match: _Match) -> None:
        """The bot's stdout to the site, line by line; its end before the match's is reported."""
        assert match.process.stdout is not None
        stdout = LineReader(match.process.stdout)
        while not match.ended:
            line = await stdout.next()
            if line is None:
                break
            if match.ended or not line.strip():
                continue  # blank lines are ignored, as the referee ignores them
            if match.asked and match.asked.popleft():
                continue  # the answer to a line the site had answered before the reconnect
            await self._send(ws, {"type": "line", "match": match.live, "line": line.decode("utf-8", "replace")})
        if match.ended or match.said_goodbye:
            return
        try:
            code: int | None = await asyncio.wait_for(match.process.wait(), self.exit_grace)
        except TimeoutError:
            code = None
        if match.ended:
            return
        self.matches.pop(match.live, None)
        match.ended = True
        _kill(match.process)
        detail = describe_exit(code)
        await self._send(ws, {"type": "exit", "match": match.live, "detail": detail})
        self.tell(f"match {match.match_id}: the bot {detail} before the match ended (a crash)", always=True)
        await match.process.wait()

    def _over(self, frame: dict[str, Any]) -> None:
        match = self._match_of(frame, self.matches.pop)
        if match is None:
            return
        match.ended = True
        self.tell(f"match {match.match_id} ended: {_outcome(match)}")
        self._chore(self._let_go(match))

    def _abandon(self, frame: dict[str, Any]) -> None:
        match = self._match_of(frame, self.matches.pop)
        if match is None:
            return
        self._end(match)
        self.tell(f"match {match.match_id} abandoned: {printable(str(frame.get('reason') or 'no reason given'))}")

    async def _let_go(self, match: _Match) -> None:
        """After goodbye: stdin closed, a moment to exit, then the process group is killed."""
        if match.process.stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                match.process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(match.process.wait(), self.exit_grace)
        self._end(match)
        await match.process.wait()

    def _end(self, match: _Match) -> None:
        match.ended = True
        _kill(match.process)
        if match.reader is not None:
            match.reader.cancel()

    async def _drop_all(self) -> None:
        dropped = list(self.matches.values())
        self.matches.clear()
        for match in dropped:
            self._end(match)
        if dropped:
            self.tell(f"stopped {len(dropped)} bot(s) of matches in play")
        await asyncio.gather(*(m.process.wait() for m in dropped), return_exceptions=True)

    # ---- odds and ends

    def tell(self, text: str, always: bool = False) -> None:
        if always or not self.quiet:
            self._say(f"{time.strftime('%H:%M:%S')} {text}")

    def _chore(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)


def _outcome(match: _Match) -> str:
    """The seat's rank and verdict from the protocol's result line (docs/protocol.md §2.7)."""
    result, seat = match.result, match.seat
    try:
        assert result is not None and isinstance(seat, int)
        ranks, verdicts = result["ranks"], result.get("verdicts") or []
        text = f"seat {seat} ranked {ranks[seat]} of {len(ranks)}"
        if seat < len(verdicts):
            text += f", verdict {verdicts[seat]}"
        if isinstance(result.get("points"), list):
            text += f", points {result['points']} ({result.get('points_kind', '')})"
        return printable(text)
    except (AssertionError, KeyError, IndexError, TypeError):
        return "no result line seen"


def main(*, site: str, bot: str, token: str, command: Sequence[str], max_matches: int = DEFAULT_MAX_MATCHES,
         quiet: bool = False) -> int:
    """``arena connect``: plays until Ctrl-C or SIGTERM (0), or until the site refuses the bot (2)."""

    async def play() -> int:
        client = RemoteClient(websocket_url(site, bot, max_matches), token, command, quiet=quiet)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, client.stop)
        return await client.run()

    return asyncio.run(play())
