"""Players: how the referee talks to a seat, whatever is behind it.

Two kinds: a built-in bot running in-process, and an external program speaking the line protocol through
pipes. The referee only uses the small interface below (launch, wait_ready, ask, hang_up, close) and never
trusts what comes back. An external program is started by a *launcher* handed in from outside (the runner wires the
``sandbox`` package in; ``arena`` itself knows nothing of isolation).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import select
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena import protocol
from arena.protocol import ProtocolError

STDERR_TAIL_LINES = 20
STDERR_LOG_LINES = 2000  # kept per seat and match with the decision each belongs to (the owner's log)
STDERR_LINE_CHARS = 400  # a kept line is its first 400 characters, then "…" if it was longer
_LINE_BYTES = STDERR_LINE_CHARS * 4  # enough UTF-8 for 400 characters
STDERR_READ_BYTES = 1024 * 1024
MAX_STDERR_BYTES = 64 * 1024 * 1024  # all a bot may write to stderr in one match; past it the bot forfeits
_SETTLE_READS = 4  # at most this many full reads before a request: a bot that never stops writing waits for no one
_DATA, _EMPTY, _END = object(), object(), object()
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
BUSY_CHECK_S = 0.05  # answers quicker than this are not measured for a busy host: nothing to forgive that matters
RUNNABLE_SLICE_S = 0.02  # past the deadline, a bot kept runnable by its host is looked at again this often
MAX_STDOUT_BYTES = 16 * 1024 * 1024  # all a bot may write in one match; a flood ends the match for it


class InfrastructureError(Exception):
    """A launcher could not start a bot for a reason that is not the bot's (the sandbox could not be set up):
    the match is aborted, not scored. Any other exception out of a launcher is the bot's launch failure."""


class BotCannotStart(Exception):
    """A launcher could not start a bot through the bot's own fault (its build failed): the seat crashes at
    launch. ``log_lines`` (the compiler's last lines) become the seat's stderr, for its owner."""

    def __init__(self, reason: str, log_lines: Sequence[str] = ()):
        super().__init__(reason)
        self.log_lines = list(log_lines)


class PlayerFailure(Exception):
    """A seat misbehaved. ``verdict`` is a protocol verdict, ``code`` the precise reason."""

    def __init__(self, verdict: str, code: str, detail: str):
        super().__init__(f"{verdict} ({code}): {detail}")
        self.verdict = verdict
        self.code = code
        self.detail = detail


@dataclass
class SeatReport:
    """What the referee learns about a seat besides its moves."""

    name: str = ""
    stderr_tail: list[str] = field(default_factory=list)
    # The first STDERR_LOG_LINES lines with the request id that was open when each was read: [[id, line], …]
    # (id 0: before the first request). For the bot's owner, beside the decisions in the replay viewer.
    stderr_log: list[list[Any]] = field(default_factory=list)
    stderr_bytes: int = 0
    stdout_bytes: int = 0
    resources: dict[str, Any] | None = None


class Player(Protocol):
    label: str
    # Start-up time granted beyond the time control's startup_ms: the runtime's own start (a JVM's), so no
    # language loses on start-up alone (sandbox.runtimes.STARTUP_ALLOWANCE_MS, docs/protocol.md "Time").
    startup_allowance_ms: int

    def launch(self, hello: dict[str, Any], deadline: float) -> None:
        """Start the bot and send the hello; return at once (the referee starts every seat at the same time)."""

    def wait_ready(self, deadline: float) -> dict[str, Any]:
        """The bot's first message (the referee checks it is a valid 'ready')."""

    def send(self, message: dict[str, Any], deadline: float) -> None: ...

    def ask(self, request: dict[str, Any], deadline: float, before: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        """Deliver ``before`` (the events since the seat's last request) and the request; return the answer."""

    def hang_up(self, farewell: Sequence[dict[str, Any]]) -> None:
        """Deliver the last messages and close the bot's input; it may now exit (the referee hangs up on every
        seat before closing any, so their exits overlap)."""

    def close(self, farewell: Sequence[dict[str, Any]] = ()) -> SeatReport:
        """Hang up (if not done yet), end the bot, whatever is left of it, and report."""


# ---- built-in bots ---------------------------------------------------------------------------------------

class BuiltinPlayer:
    """A trusted in-process bot. It gets exactly the observation and legal actions an external bot gets."""

    startup_allowance_ms = 0

    def __init__(self, label: str, bot: Any, name: str):
        self.label = label
        self._bot = bot
        self._name = name
        self._report = SeatReport(name=name)

    def launch(self, hello: dict[str, Any], deadline: float) -> None:
        """Nothing to start: the bot is an object in this process."""

    def wait_ready(self, deadline: float) -> dict[str, Any]:
        return {"type": "ready", "name": self._name}

    def start(self, hello: dict[str, Any], deadline: float) -> dict[str, Any]:
        return self.wait_ready(deadline)

    def send(self, message: dict[str, Any], deadline: float) -> None:
        """Built-in bots read everything from their observation; events need no handling."""

    def ask(self, request: dict[str, Any], deadline: float, before: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        try:
            action = self._bot.act(request["observation"], request["legal_actions"])
        except Exception as err:  # a bug in a built-in bot must not take the referee down
            self._report.stderr_tail = traceback.format_exception(err)[-STDERR_TAIL_LINES:]
            raise PlayerFailure(protocol.CRASH, "exception", f"built-in bot raised {type(err).__name__}: {err}") \
                from None
        return {"type": "action", "id": request["id"], "action": action}

    def hang_up(self, farewell: Sequence[dict[str, Any]]) -> None:
        """Nothing to tell: the bot's object is simply dropped."""

    def close(self, farewell: Sequence[dict[str, Any]] = ()) -> SeatReport:
        return self._report


# ---- external programs -----------------------------------------------------------------------------------

class Process(Protocol):
    """What a launcher returns: a started program with pipes (``sandbox`` processes fit this)."""

    pid: int
    stdin: Any
    stdout: Any
    stderr: Any

    def poll(self) -> int | None: ...

    def mark_output_truncated(self) -> None: ...

    def finish(self, grace_seconds: float = 0.5) -> Any: ...


class Launcher(Protocol):
    def __call__(self) -> Process: ...


class _StderrTail:
    """Drains a bot's stderr so it never blocks, keeping only the last lines (memory stays bounded).

    It reads in large chunks, and only the last STDERR_TAIL_LINES lines of a chunk are ever cut out and
    decoded, so a flood of short lines costs the worker about what it costs the bot. Past ``max_bytes`` it
    stops reading and signals ``alarm_fd``, which the seat's reads and writes watch (verdict stderr-limit).
    """

    def __init__(self, fd: int, max_bytes: int):
        self._fd = fd
        self.max_bytes = max_bytes
        self.decision = 0  # the request open now; the seat sets it before each request
        self._log: list[tuple[int, bytes]] = []
        self._log_partial = b""
        self._log_partial_decision = 0  # the request open when the unfinished last line's latest bytes came
        # raw lines, decoded only when the tail is asked for: a flood pays for slicing, not for decoding
        self._raw: collections.deque[bytes] = collections.deque(maxlen=STDERR_TAIL_LINES)
        with contextlib.suppress(OSError):  # a larger pipe: fewer wake-ups and reads per MiB (best effort)
            fcntl.fcntl(fd, F_SETPIPE_SZ, STDERR_READ_BYTES)
        self.total = 0
        self.flooded = False
        self._partial = b""  # the start of the line not yet finished, at most _LINE_BYTES
        self._stop = threading.Event()
        self._ended = False  # end of file or the volume limit: nothing more is read
        # The reader thread and settle() both read the pipe; the lock makes "read, then keep under the
        # request open" one step, so no line is ever kept under a request it arrived after.
        self._lock = threading.Lock()
        os.set_blocking(fd, False)
        self.alarm_fd, self._alarm_write = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        # poll, not select: select refuses descriptors above 1023, which a long-lived worker reaches.
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._pending = select.poll()  # settle()'s own: it never blocks, and runs on the referee's thread
        self._pending.register(fd, select.POLLIN)
        self._thread = threading.Thread(target=self._run, name=f"stderr-{fd}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # Once stopped (the seat is closed, the bot finished), what is already in the pipe is still taken: the
        # bot's last lines, written just before it ended, must not depend on this thread's turn to run.
        reads_after_stop = 0  # bounded: a daemon the bot left behind may write for ever
        while not self._ended:
            stopped = self._stop.is_set()
            if stopped:
                if reads_after_stop >= _SETTLE_READS or not self._poll.poll(0):
                    break
                reads_after_stop += 1
            elif not self._poll.poll(100):
                continue
            with self._lock:
                if self._read_once(self.decision) is _EMPTY and stopped:
                    break
        with self._lock:
            if self._partial:
                self._raw.append(self._partial)
                self._partial = b""

    def _read_once(self, decision: int) -> object:
        """One read of what the pipe holds now, kept under ``decision``; the caller holds the lock.

        Returns _DATA, _EMPTY (nothing there: the other reader took it) or _END (end of file, an error, or
        the volume limit passed: nothing more is ever read)."""
        if self._ended:
            return _END
        try:
            chunk = os.read(self._fd, STDERR_READ_BYTES)
        except BlockingIOError:
            return _EMPTY
        except OSError:
            chunk = b""
        if not chunk:
            self._ended = True
            return _END
        self._take(chunk, decision)
        if self.total > self.max_bytes:
            self.flooded = self._ended = True
            with contextlib.suppress(OSError):
                os.write(self._alarm_write, b"!")
            return _END
        return _DATA

    def settle(self, next_decision: int) -> None:
        """Before the next request: whatever the bot wrote to stderr by now (it flushed it before answering)
        is read here, on the caller's thread, and kept under the request that was open; only then does the
        next request's id apply. Deterministic: it never depends on the reader thread's turn to run.
        Bounded, for bots that never stop writing."""
        with self._lock:
            if len(self._log) < STDERR_LOG_LINES:
                for _ in range(_SETTLE_READS):  # poll first: most decisions find the pipe empty, no read needed
                    if not self._pending.poll(0) or self._read_once(self.decision) is not _DATA:
                        break
            self.decision = next_decision

    def _take(self, chunk: bytes, decision: int = 0) -> None:
        self.total += len(chunk)
        if len(self._log) < STDERR_LOG_LINES:
            self._keep_for_log(chunk, decision)
        last = chunk.rfind(b"\n")
        if last < 0:
            self._partial = (self._partial + chunk[:_LINE_BYTES])[:_LINE_BYTES]
            return
        tail: list[bytes] = []  # the chunk's last complete lines, newest first, found from the end only
        end = last
        while len(tail) < STDERR_TAIL_LINES:
            start = chunk.rfind(b"\n", 0, end)
            if start < 0:  # the chunk's first line finishes the line begun in earlier chunks
                tail.append((self._partial + chunk[:min(end, _LINE_BYTES)])[:_LINE_BYTES])
                break
            tail.append(chunk[start + 1:min(end, start + 1 + _LINE_BYTES)])
            end = start
        self._partial = chunk[last + 1:last + 1 + _LINE_BYTES]
        self._raw.extend(reversed(tail))

    def _keep_for_log(self, chunk: bytes, decision: int) -> None:
        """Cut lines one by one only until the log is full: a flood pays for at most STDERR_LOG_LINES finds."""
        start = 0
        while len(self._log) < STDERR_LOG_LINES:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._log_partial = (self._log_partial + chunk[start:start + _LINE_BYTES])[:_LINE_BYTES]
                self._log_partial_decision = decision
                return
            self._log.append((decision, (self._log_partial + chunk[start:min(end, start + _LINE_BYTES)])
                              [:_LINE_BYTES]))
            self._log_partial = b""
            start = end + 1

    @property
    def log(self) -> list[list[Any]]:
        kept = list(self._log)
        if self._log_partial and len(kept) < STDERR_LOG_LINES:
            kept.append((self._log_partial_decision, self._log_partial))
        return [[decision, _tail_line(line)] for decision, line in kept]

    @property
    def lines(self) -> list[str]:
        return [_tail_line(line) for line in self._raw]

    def stop(self) -> list[str]:
        self._stop.set()
        self._thread.join(timeout=1.0)
        if not self._thread.is_alive():
            for fd in (self.alarm_fd, self._alarm_write):
                with contextlib.suppress(OSError):
                    os.close(fd)
        return self.lines


def _tail_line(line: bytes) -> str:
    """One kept stderr line as shown (docs/protocol.md: the first 400 characters, non-printables escaped)."""
    text = line.decode("utf-8", "replace").rstrip("\r")
    cut = text if len(text) <= STDERR_LINE_CHARS else text[:STDERR_LINE_CHARS] + "…"
    return protocol.printable(cut)


def stderr_flood(limit: int) -> PlayerFailure:
    return PlayerFailure(protocol.PROTOCOL_ERROR, protocol.STDERR_LIMIT,
                         f"wrote more than {limit // 2**20} MiB to stderr in one match")


class _StderrFlood(Exception):
    """Raised out of a wait when the seat's stderr reader gave the alarm."""


class _StdinClosed(Exception):
    """Raised out of a wait when the bot closed its stdin (nothing it wrote is left unread)."""


class _LineReader:
    """Reads newline-terminated lines from a pipe with a deadline, never buffering more than one line."""

    def __init__(self, fd: int, max_line: int, max_total: int, alarm_fd: int | None = None,
                 stdin_fd: int | None = None):
        self._fd = fd
        self._max_line = max_line
        self._max_total = max_total
        self._buffer = bytearray()
        self.total = 0
        self._poll = select.poll()  # registered once: cheaper per wait than select() on a fresh list
        self._poll.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._alarm_fd = alarm_fd  # the stderr reader's: it fires when the bot floods stderr
        if alarm_fd is not None:
            self._poll.register(alarm_fd, select.POLLIN)
        # The write end of the bot's stdin, watched while waiting: the kernel reports POLLERR on it as soon as
        # the bot closed its stdin, so a bot that closed it after its request arrived, and then went quiet, is
        # seen at once instead of after the whole bank.
        self._stdin_fd = stdin_fd
        if stdin_fd is not None:
            self._poll.register(stdin_fd, select.POLLERR)

    def read_line(self, deadline: float) -> bytes | None:
        """The next line without its newline; None at end of file; raises TimeoutError or ProtocolError."""
        while True:
            # Whitespace between messages (blank lines included) is skipped in bulk, so a flood of empty
            # lines costs the referee nothing per line and ends at the output limit.
            if self._buffer[:1].isspace():
                self._buffer = bytearray(self._buffer.lstrip())
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                return line
            if len(self._buffer) >= self._max_line:
                raise ProtocolError(protocol.LINE_TOO_LONG,
                                    f"no newline within {self._max_line} bytes (the line limit)")
            remaining = deadline - time.monotonic()
            ready = self._poll.poll(max(1, int(remaining * 1000 + 0.999))) if remaining > 0 else ()
            if not ready:
                raise TimeoutError
            if self._alarm_fd is not None and any(fd == self._alarm_fd for fd, _ in ready):
                raise _StderrFlood
            if self._stdin_fd is not None and not any(fd == self._fd for fd, _ in ready):
                raise _StdinClosed  # only stdin's POLLERR woke us: what the bot still wrote was read first
            chunk = os.read(self._fd, min(65536, self._max_line - len(self._buffer) + 1))
            if not chunk:
                return None
            self.total += len(chunk)
            if self.total > self._max_total:
                raise ProtocolError(protocol.OUTPUT_LIMIT, f"wrote more than {self._max_total} bytes to stdout "
                                                           f"in one match")
            self._buffer += chunk


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _own_wait_seconds() -> float:
    """Seconds the calling thread has waited, runnable, for a CPU (Linux's schedstat; 0 where it is not kept)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class ExternalPlayer:
    """A program speaking the protocol on stdin/stdout, started by a launcher when the match begins."""

    def __init__(self, label: str, launcher: Launcher, *, max_line: int = protocol.MAX_LINE_BYTES,
                 max_stdout: int = MAX_STDOUT_BYTES, max_stderr: int = MAX_STDERR_BYTES,
                 startup_allowance_ms: int = 0):
        self.label = label
        self.startup_allowance_ms = startup_allowance_ms
        self._launcher = launcher
        self._max_line = max_line
        self._max_stdout = max_stdout
        self._max_stderr = max_stderr
        self._proc: Process | None = None
        self._reader: _LineReader | None = None
        self._stderr: _StderrTail | None = None
        self._stdin_fd = -1
        self._report = SeatReport()
        self._truncated = False
        self._hung_up = False
        self.host_wait_s = 0.0  # the last decision's time a busy host took from the bot (``ask``)

    # -- lifecycle --
    def start(self, hello: dict[str, Any], deadline: float) -> dict[str, Any]:
        self.launch(hello, deadline)
        return self.wait_ready(deadline)

    def launch(self, hello: dict[str, Any], deadline: float) -> None:
        """Start the program and send the hello without waiting: the referee starts every seat at once."""
        try:
            self._proc = self._launcher()
        except InfrastructureError as err:
            raise PlayerFailure(protocol.ABORTED, "infrastructure", protocol.printable(str(err))) from None
        except BotCannotStart as err:
            lines = [protocol.printable(line, 500) for line in err.log_lines]
            self._report.stderr_tail = lines[-STDERR_TAIL_LINES:]
            self._report.stderr_log = [[0, line] for line in lines[:STDERR_LOG_LINES]]
            raise PlayerFailure(protocol.CRASH, "build-failed", protocol.printable(str(err))) from None
        except Exception as err:  # the launcher says why (missing interpreter, sandbox refused, …)
            raise PlayerFailure(protocol.SANDBOX_FAILURE, "launch-failed", protocol.printable(str(err))) from None
        self._stdin_fd = self._proc.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)
        self._stderr = _StderrTail(self._proc.stderr.fileno(), self._max_stderr)
        self._reader = _LineReader(self._proc.stdout.fileno(), self._max_line, self._max_stdout,
                                   self._stderr.alarm_fd, self._stdin_fd)
        self.send(hello, deadline)

    def wait_ready(self, deadline: float) -> dict[str, Any]:
        return self._read_message(deadline, "startup", "waiting for 'ready' after hello")

    def send(self, message: dict[str, Any], deadline: float) -> None:
        self._write([message], deadline)

    # A busy host: the time the bot's threads waited, runnable, for a CPU taken by other matches is not the bot's
    # (docs/protocol.md, "Time"). It is forgiven, however busy the host, within the referee's ceiling on the
    # match; time the bot spends asleep or blocked stays its own, so a bot gains no thinking time by it.
    forgives_busy_host = True

    def ask(self, request: dict[str, Any], deadline: float, before: Sequence[dict[str, Any]] = (),
            ceiling: float | None = None) -> dict[str, Any]:
        """The bot's answer by ``deadline``, later by what a busy host took from it (``host_wait_s``), never past
        ``ceiling``."""
        self.host_wait_s = 0.0
        asked = time.monotonic()
        base = self._task_times()
        own_base = _own_wait_seconds()
        if self._stderr is not None:
            self._stderr.settle(request["id"])
        self._write([*before, request], deadline)
        doing = f"answering request {request['id']}"
        if base is None:
            return self._read_message(deadline, "move", doing)
        limit = ceiling if ceiling is not None else float("inf")

        own_since = own_base  # the referee's waits from here on may be forgiven (see later())

        def forgiven() -> float:
            now = self._task_times()
            if now is None:
                return self.host_wait_s
            # The bot's threads' wait for a CPU, and the referee's own: once the answer is written, a busy host
            # also delays the referee that reads it.
            ran, waited = now[0] - base[0], now[1] - base[1] + _own_wait_seconds() - own_since
            wall = time.monotonic() - asked
            # Never more than the decision's time the bot did not run: a bot of several threads waits in each.
            self.host_wait_s = max(self.host_wait_s, min(waited, max(0.0, wall - ran)))
            return self.host_wait_s

        held = False  # whether the bot was given time because its host held it runnable at the deadline

        def later() -> float | None:
            nonlocal held, own_since
            # The referee woke for the deadline, not for an answer: its wait to run now delayed nobody's answer,
            # so only its waits after this look count (the one that reads the answer among them).
            own_since = _own_wait_seconds()
            now = time.monotonic()
            extended = min(limit, deadline + forgiven())
            if extended > now:
                return extended
            # A thread's wait for a CPU is counted only once it runs again: a bot its host keeps waiting at this
            # very moment has a wait nobody can see yet. While a thread of it is runnable and it has not run for
            # its whole move time, it is not the bot that is late: look again in a moment. What it is charged
            # is settled below, once the answer is in and every wait is counted.
            if now < limit and self._runnable() and self._ran_since(base) < deadline - asked:
                held = True
                return min(limit, now + RUNNABLE_SLICE_S)
            return None

        answer = self._read_message(deadline, "move", doing, later)
        if time.monotonic() - asked >= BUSY_CHECK_S:  # a quick answer costs nothing on any clock: not measured
            forgiven()
        if held and time.monotonic() - asked - self.host_wait_s > deadline - asked:
            # Given time while runnable, it had in fact used its own: slept, then computed past its move time.
            raise PlayerFailure(protocol.TIMEOUT, "move", f"no answer within the move time limit ({doing})")
        return answer

    def _runnable(self) -> bool:
        runnable = getattr(self._proc, "runnable", None)
        return bool(runnable()) if runnable is not None else False

    def _ran_since(self, base: tuple[float, float]) -> float:
        now = self._task_times()
        return now[0] - base[0] if now is not None else float("inf")

    def _task_times(self) -> tuple[float, float] | None:
        measure = getattr(self._proc, "task_times", None)
        return measure() if measure is not None else None

    def _write(self, messages: list[dict[str, Any]], deadline: float) -> None:
        """All messages in one write where the pipe allows: one wake-up of the bot per decision, not one per line."""
        data = memoryview(b"".join(map(protocol.encode, messages)))
        while data:
            try:
                written = os.write(self._stdin_fd, data)
            except BrokenPipeError:
                raise self._crashed("while the referee was writing to it", closed="stdin") from None
            except BlockingIOError:  # the pipe is full: wait until the bot reads, but not past the deadline
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PlayerFailure(protocol.TIMEOUT, "not-reading",
                                        "stopped reading its input (stdin stayed full)") from None
                writable = select.poll()
                writable.register(self._stdin_fd, select.POLLOUT)
                if self._stderr is not None:
                    writable.register(self._stderr.alarm_fd, select.POLLIN)
                writable.poll(max(1, int(remaining * 1000 + 0.999)))
                if self._stderr is not None and self._stderr.flooded:
                    raise stderr_flood(self._max_stderr) from None
                continue
            data = data[written:]

    def hang_up(self, farewell: Sequence[dict[str, Any]]) -> None:
        if self._proc is None or self._hung_up:
            return
        self._hung_up = True
        for message in farewell:  # best effort: a bot that stopped reading just misses its goodbye
            try:
                self.send(message, time.monotonic() + 0.2)
            except PlayerFailure:
                break
        with contextlib.suppress(OSError):  # through the file object: a raw close could later close a reused fd
            self._proc.stdin.close()

    def close(self, farewell: Sequence[dict[str, Any]] = ()) -> SeatReport:
        if self._proc is None:
            return self._report
        self.hang_up(farewell)
        if self._truncated:
            self._proc.mark_output_truncated()
        report = self._proc.finish(grace_seconds=0.5)
        if self._stderr is not None:
            self._report.stderr_tail = self._stderr.stop()
            self._report.stderr_log = self._stderr.log
            self._report.stderr_bytes = self._stderr.total
        if self._reader is not None:
            self._report.stdout_bytes = self._reader.total
        self._report.resources = report.to_dict() if hasattr(report, "to_dict") else report
        self._proc = None
        return self._report

    # -- reading --
    def _read_message(self, deadline: float, limit: str, doing: str,
                      later: Callable[[], float | None] | None = None) -> dict[str, Any]:
        """The next message by ``deadline``; at the deadline, ``later`` may give a new one (None: time is up)."""
        assert self._reader is not None
        while True:
            try:
                line = self._reader.read_line(deadline)
            except TimeoutError:
                extended = later() if later is not None else None
                if extended is not None and extended > deadline:
                    deadline = extended
                    continue
                raise PlayerFailure(protocol.TIMEOUT, limit, f"no answer within the {limit} time limit ({doing})") \
                    from None
            except ProtocolError as err:
                self._truncated = True
                raise PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail) from None
            except _StderrFlood:
                self._truncated = True
                raise stderr_flood(self._max_stderr) from None
            except _StdinClosed:
                raise self._crashed(doing, closed="stdin") from None
            if line is None:
                if self._stderr is not None and self._stderr.flooded:
                    raise stderr_flood(self._max_stderr)
                raise self._crashed(doing)
            try:
                return protocol.decode(line)
            except ProtocolError as err:
                raise PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail) from None

    def _crashed(self, doing: str, closed: str = "stdout") -> PlayerFailure:
        """The pipe ``closed`` (the bot's stdin or stdout) is closed: say whether the bot exited or only closed it."""
        assert self._proc is not None
        code = None
        for _ in range(50):  # the pipe closes a moment before the exit status is ready
            code = self._proc.poll()
            if code is not None:
                break
            time.sleep(0.01)
        if code is None:
            return PlayerFailure(protocol.CRASH, f"closed-{closed}", f"the bot closed its {closed} without exiting "
                                                                    f"({doing})")
        return PlayerFailure(protocol.CRASH, "exited", f"the bot {_describe_exit(code)} {doing}")
