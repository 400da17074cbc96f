"""A running sandboxed bot: its pipes, its exit status, the watchdog that enforces wall and CPU time, and
`finish()`, which always leaves nothing of the bot running and returns the report.

What differs between backends (how to kill every process of the bot, how to measure it, what to clean up)
lives in a `Confinement`; this module holds the part every backend shares.
"""

from __future__ import annotations

import abc
import contextlib
import os
import resource
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import schedstat
from .limits import Limits
from .report import CPU_TIME, WALL_TIME, Ending, SandboxReport, classify
from .watchdog import WATCHDOG, Watchdog

SCHEDSTAT = schedstat.available()
PIDS_KEPT_S = 1.0  # how long the list of a bot's processes is used before it is looked up again

if TYPE_CHECKING:
    from .cgroups import Run


@dataclass(frozen=True)
class Measures:
    cpu_seconds: float | None  # None: this backend cannot measure it
    peak_memory_mb: float | None
    oom_kills: int | None


class Confinement(abc.ABC):
    """How one backend holds a bot. The defaults fit a plain child process measured by wait4()."""

    backend = ""
    backend_version = ""
    sandbox_uid: int | None = None
    _cgroups: Run | None = None  # when the backend tracks the bot in cgroups
    # Whether live_cpu_seconds() may take long (the container engine's CLI): such a bot gets a watchdog thread
    # of its own instead of holding up the shared one (watchdog.py).
    slow_checks = False

    def __init__(self) -> None:
        self.limits_applied: dict[str, dict] = {}
        self.guarantees_weakened: list[str] = []

    def decode_status(self, status: int) -> tuple[int | None, int | None]:
        """(exit_code, signal) of the bot from the wait status of the launched process."""
        if os.WIFSIGNALED(status):
            return None, os.WTERMSIG(status)
        return os.WEXITSTATUS(status), None

    def live_cpu_seconds(self) -> float | None:
        return None

    def bot_pids(self, main_pid: int) -> set[int] | None:
        """Every process of the bot as this machine's /proc sees it, or None where it cannot (a container engine
        runs the bot beyond this process's view): from the cgroups that track the bot, else the launched process
        and its descendants."""
        if self.slow_checks:
            return None
        if self._cgroups is not None:
            return self._cgroups.pids()
        import psutil  # here, not above: the image builder runs this package on a bare python3

        try:
            main = psutil.Process(main_pid)
            return {main_pid, *(child.pid for child in main.children(recursive=True))}
        except psutil.Error:
            return None

    def ended(self) -> None:  # noqa: B027 - most backends hold nothing that waits for the bot
        """The launched process ended (seen by poll()): drop whatever waited for the bot to start."""

    @abc.abstractmethod
    def kill_all(self, main_pid: int) -> None:
        """Kill every process of the bot, wherever it went."""

    def survivors(self) -> list[int]:
        return []

    def measure(self, rusage) -> Measures:
        """CPU, peak memory and OOM kills: from the cgroups where they track the bot, else from wait4()."""
        if self._cgroups is None:
            return Measures(_rusage_cpu(rusage), _rusage_peak_mb(rusage), None)
        cpu = self._cgroups.cpu_seconds()
        peak = self._cgroups.peak_memory_mb()
        return Measures(
            cpu_seconds=_rusage_cpu(rusage) if cpu is None else cpu,
            peak_memory_mb=_rusage_peak_mb(rusage) if peak is None else peak,
            oom_kills=self._cgroups.oom_kills(),
        )

    def setup_failed(self) -> bool:
        return False

    def cleanup(self) -> None:  # noqa: B027 - a backend holding nothing (docker) has nothing to release
        """Release everything the run held (uid, cgroups, copies). Called once, after every process died."""


def decode_shell_status(status: int) -> tuple[int | None, int | None]:
    """Launchers such as bwrap and `docker run` report a bot killed by signal N as exit status 128 + N."""
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    code = os.WEXITSTATUS(status)
    if 128 < code < 128 + signal.NSIG:
        return None, code - 128
    return code, None


class SandboxProcess:
    def __init__(self, popen: subprocess.Popen, confinement: Confinement, limits: Limits, started: float,
                 startup_seconds: float, pid: int | Callable[[], int] | None = None, stdin=None,
                 stdout=None):  # fmt: skip
        self._popen = popen
        self._confinement = confinement
        self._limits = limits
        self._started = started
        self.startup_seconds = startup_seconds
        # The bot's own pipes: popen's, or ones the backend made itself (bwrap: see BOT_STDIN_FD there).
        self.stdin = popen.stdin if stdin is None else stdin
        self.stdout = popen.stdout if stdout is None else stdout
        self.stderr = popen.stderr
        # The process whose wait status is the bot's: popen's own, or a launcher it cloned (launcher.py),
        # whose pid is read when first needed (Plan.hand_over).
        self._pid = popen.pid if pid is None else pid
        self._pid_lock = threading.Lock()
        self.sandbox_uid = confinement.sandbox_uid
        self._lock = threading.RLock()
        self._finish_lock = threading.Lock()
        self._status: int | None = None
        self._rusage: resource.struct_rusage | None = None
        self._ended: float | None = None
        self._killed_for: str | None = None
        self._output_truncated = False
        self._report: SandboxReport | None = None
        self._bot_pids: tuple[float, set[int] | None] | None = None  # (when found, the bot's processes)
        self._watchdog = Watchdog(shared=False) if confinement.slow_checks else WATCHDOG
        self._watchdog.watch(self)

    @property
    def pid(self) -> int:
        if callable(self._pid):
            with self._pid_lock:
                if callable(self._pid):
                    self._pid = self._pid()
        return self._pid

    # -- what the caller uses -------------------------------------------------------------------------
    def poll(self) -> int | None:
        """The bot's exit status once the launched process ended (negative: killed by that signal)."""
        with self._lock:
            if self._status is None:
                try:
                    pid, status, rusage = os.wait4(self.pid, os.WNOHANG)
                except ChildProcessError:
                    pid, status, rusage = self.pid, 0, None
                if pid == 0:
                    return None
                self._status, self._rusage, self._ended = status, rusage, time.monotonic()
                self._confinement.ended()
                exit_code, sig = self._confinement.decode_status(status)
                self._popen.returncode = -sig if sig is not None else exit_code
            return self._popen.returncode

    def mark_output_truncated(self) -> None:
        """The caller stopped reading because the bot wrote more than it allows."""
        self._output_truncated = True

    def finish(self, grace_seconds: float = 0.5) -> SandboxReport:
        """Close stdin, give the bot `grace_seconds` to exit, then kill every process it has. Idempotent."""
        with self._finish_lock:
            if self._report is None:
                self._report = self._finish(grace_seconds)
            return self._report

    def close(self) -> None:
        """finish(), then close the caller's ends of the pipes."""
        self.finish()
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> SandboxProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def task_times(self) -> tuple[float, float] | None:
        """(CPU seconds, seconds waiting for a CPU) of every thread of the bot so far (sandbox.schedstat), or None
        where they cannot be seen: the referee forgives a busy host's share of a decision with them."""
        if self._status is not None or not SCHEDSTAT:
            return None
        now = time.monotonic()
        if self._bot_pids is None or now - self._bot_pids[0] > PIDS_KEPT_S:
            # Finding the bot's processes walks /proc (milliseconds); reading their threads' counters is cheap.
            # A process the bot starts is counted from the next look on: its wait is then forgiven, never charged.
            self._bot_pids = (now, self._confinement.bot_pids(self.pid))
        pids = self._bot_pids[1]
        return None if not pids else schedstat.task_times(pids)

    def runnable(self) -> bool:
        """Whether a thread of the bot is on a CPU or waiting, runnable, for one right now (sandbox.schedstat)."""
        if self._status is not None or not SCHEDSTAT or self._bot_pids is None or not self._bot_pids[1]:
            return False
        return schedstat.any_runnable(self._bot_pids[1])

    # -- internals ------------------------------------------------------------------------------------
    def _finish(self, grace_seconds: float) -> SandboxReport:
        if self.stdin is not None:
            with contextlib.suppress(OSError):
                self.stdin.close()
        killed_at_finish = not self._wait(max(0.0, grace_seconds))
        self._watchdog.forget(self)
        self._confinement.kill_all(self.pid)
        while not self._wait(2.0):
            self._confinement.kill_all(self.pid)
        status, ended = self._status, self._ended
        assert status is not None and ended is not None, "_wait() returned True: poll() saw the process end"
        survivors = self._survivors_after_kill()
        measures = self._confinement.measure(self._rusage)
        setup_failed = self._confinement.setup_failed()
        weakened = list(self._confinement.guarantees_weakened)
        if survivors:
            weakened.append(f"{len(survivors)} process(es) of the bot survived cleanup: {sorted(survivors)}")
        else:
            self._confinement.cleanup()
        exit_code, sig = self._confinement.decode_status(status)
        ending = Ending(
            setup_failed=setup_failed,
            killed_for=self._killed_for,
            killed_at_finish=killed_at_finish and self._killed_for is None,
            exit_code=exit_code,
            signal=sig,
            oom_kills=measures.oom_kills,
            cpu_seconds=measures.cpu_seconds,
            cpu_limit=self._limits.cpu_seconds,
            peak_memory_mb=measures.peak_memory_mb,
            memory_limit_mb=self._limits.memory_mb,
            output_truncated=self._output_truncated,
        )
        outcome, detail = classify(ending)
        return SandboxReport(
            outcome=outcome,
            detail=detail,
            exit_code=exit_code,
            signal=sig,
            cpu_seconds=measures.cpu_seconds,
            wall_seconds=ended - self._started,
            peak_memory_mb=measures.peak_memory_mb,
            output_truncated=self._output_truncated,
            killed_at_finish=ending.killed_at_finish,
            limits=self._confinement.limits_applied,
            guarantees_weakened=weakened,
            backend=self._confinement.backend,
            backend_version=self._confinement.backend_version,
            startup_seconds=self.startup_seconds,
            sandbox_uid=self.sandbox_uid,
        )

    def _survivors_after_kill(self, patience: float = 2.0) -> list[int]:
        """Processes of the bot still alive; SIGKILLed ones take a moment to leave the process table."""
        deadline = time.monotonic() + patience
        while (survivors := self._confinement.survivors()) and time.monotonic() < deadline:
            self._confinement.kill_all(self.pid)
            time.sleep(0.01)
        return survivors

    def _wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the launched process to end; True if it did."""
        deadline = time.monotonic() + timeout
        try:
            pidfd = os.pidfd_open(self.pid)
        except OSError:
            pidfd = None
        try:
            while self.poll() is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                if pidfd is not None:
                    # poll, not select: a long-running worker's descriptors can pass select's 1024 limit
                    waiter = select.poll()
                    waiter.register(pidfd, select.POLLIN)
                    waiter.poll(max(1, int(remaining * 1000 + 0.999)))
                else:
                    time.sleep(min(remaining, 0.005))
            return True
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def check_limits(self) -> bool:
        """One look by the watchdog (watchdog.py): True once the bot ended or was killed for a limit."""
        if self.poll() is not None:
            return True
        if time.monotonic() - self._started >= self._limits.wall_seconds:
            self._kill_for(WALL_TIME)
            return True
        cpu = self._confinement.live_cpu_seconds()
        if cpu is not None and cpu >= self._limits.cpu_seconds:
            self._kill_for(CPU_TIME)
            return True
        return False

    def _kill_for(self, reason: str) -> None:
        with self._lock:
            if self._status is not None:
                return
            self._killed_for = reason
        self._confinement.kill_all(self.pid)


def _rusage_cpu(rusage) -> float:
    return 0.0 if rusage is None else rusage.ru_utime + rusage.ru_stime


def _rusage_peak_mb(rusage) -> float | None:
    return None if rusage is None else rusage.ru_maxrss / 1024
