"""The `unsafe` backend: no isolation at all, for trusted built-in bots and tests that say so.

The bot runs as the worker, sees the worker's files and network, and gets only the caller's extra
environment (not the worker's). What it still guarantees: limits where cgroups allow, and that finish()
kills every process it started — found through its cgroup when one can be created, else through its
session's process group and its descendants.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import psutil

from .. import cgroups, janitor
from ..environment import SANDBOX_PATH, bot_environment
from ..errors import SandboxError
from ..launcher import Plan, spawn
from ..leftovers import owner
from ..limits import Limits
from ..process import Confinement, SandboxProcess
from ..rlimits import rlimits_for
from ..scripts import check_interpreter

NO_ISOLATION = "no isolation: the bot runs as the worker and can read its files and use its network"


class UnsafeConfinement(Confinement):
    backend = "unsafe"
    backend_version = "subprocess"

    def __init__(self, limits: Limits, use_cgroups: bool | None):
        super().__init__()
        support = cgroups.detect() if use_cgroups is not False else cgroups.Support()
        name = f"{owner()}.unsafe-{time.monotonic_ns()}"  # see sandbox/leftovers.py
        self._cgroups = cgroups.Run(support, name, limits) if support.usable else None
        self._group: int | None = None
        self._known: set[int] = set()
        mechanisms = self._cgroups.mechanisms if self._cgroups else {}
        self.guarantees_weakened = [NO_ISOLATION]
        if self._cgroups is None:
            self.guarantees_weakened.append("no cgroup: processes that leave the session are not tracked")
        cpu = "watchdog" if "cpu_accounting" in mechanisms else "rlimit RLIMIT_CPU (per process)"
        memory = mechanisms.get("memory_mb", "rlimit RLIMIT_DATA (per process)")
        self.limits_applied = {
            "memory_mb": {"value": limits.memory_mb, "mechanism": memory},
            "processes": {"value": limits.processes, "mechanism": mechanisms.get("processes", "none")},
            "cpu_seconds": {"value": limits.cpu_seconds, "mechanism": cpu},
            "wall_seconds": {"value": limits.wall_seconds, "mechanism": "watchdog"},
            "open_files": {"value": limits.open_files, "mechanism": "rlimit RLIMIT_NOFILE"},
            "file_size_mb": {"value": limits.file_size_mb, "mechanism": "rlimit RLIMIT_FSIZE"},
            "tmp_mb": {"value": limits.tmp_mb, "mechanism": "none (no private /tmp)"},
            "cpus": {"value": limits.cpus, "mechanism": mechanisms.get("cpus", "none")},
            # Buffered writes reach the disk later, from the kernel's flusher, outside the bot's cgroup (v1).
            "disk_mb_per_second": {"value": limits.disk_mb_per_second, "mechanism": mechanisms.get("disk_io", "none")},
            "disk_operations_per_second": {"value": limits.disk_operations_per_second,
                                           "mechanism": mechanisms.get("disk_io", "none")},
        }  # fmt: skip
        self._rlimits = rlimits_for(limits, memory="memory_mb" not in mechanisms, processes=False)

    def launch_plan(self) -> Plan:
        """Born in its cgroups like bwrap's launcher (sandbox/launcher.py): no slow migration through cgroup.procs."""
        if self._cgroups is None:
            return Plan(None, [], self._rlimits, None)
        return Plan(self._cgroups.v2_dir, self._cgroups.v1_dirs, self._rlimits, None)

    def started(self, pid: int) -> None:
        self._group = pid  # start_new_session: the bot leads its own session and process group

    def live_cpu_seconds(self) -> float | None:
        return self._cgroups.cpu_seconds() if self._cgroups else None

    def kill_all(self, main_pid: int) -> None:
        if self._group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._group, signal.SIGKILL)
        if self._cgroups is not None:
            # The cgroup holds every process the bot started, unless one moved itself out: the bot runs as
            # the worker, which may write to cgroup.procs (docs/sandbox.md says so). Scanning the whole
            # process table for such an escapee would cost ~20 ms per bot and still miss a setsid daemon.
            self._cgroups.kill()
            return
        for pid in self._tree(main_pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if self._group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._group, signal.SIGKILL)

    def _tree(self, main_pid: int) -> set[int]:
        with contextlib.suppress(psutil.Error):
            self._known.update(child.pid for child in psutil.Process(main_pid).children(recursive=True))
        return self._known | self._in_group()

    def _in_group(self) -> set[int]:
        found = set()
        for process in psutil.process_iter(["status"]):
            with contextlib.suppress(OSError):
                if os.getpgid(process.pid) == self._group and process.info["status"] != psutil.STATUS_ZOMBIE:
                    found.add(process.pid)
        return found

    def survivors(self) -> list[int]:
        if self._cgroups is not None:
            return sorted(self._cgroups.pids())
        found = self._in_group()
        for pid in self._known:
            with contextlib.suppress(psutil.Error):
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    found.add(pid)
        return sorted(found)

    def cleanup(self) -> None:
        if self._cgroups is not None:
            janitor.later(self._cgroups.remove)


def _host_program(program: str, bot_dir: Path) -> Path | None:
    if "/" in program:
        return bot_dir / program if not program.startswith("/") else Path(program)
    found = shutil.which(program, path=SANDBOX_PATH)
    return Path(found) if found else None


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def start_unsafe(command: list[str], bot_dir: Path, limits: Limits, env: dict | None = None,
                 allow_unsafe: bool = False, use_cgroups: bool | None = None) -> SandboxProcess:  # fmt: skip
    if not allow_unsafe:
        raise SandboxError(
            "backend 'unsafe' runs the bot without any isolation; pass allow_unsafe=True only for trusted "
            "built-in bots"
        )
    if not Path(bot_dir).is_dir():
        raise SandboxError(f"bot directory {bot_dir} does not exist or is not a directory")
    started = time.monotonic()
    environment = bot_environment(env, home=str(bot_dir))
    program = _host_program(command[0], Path(bot_dir))
    if program is not None:
        check_interpreter(program, command[0], _runnable, SANDBOX_PATH)
    confinement = UnsafeConfinement(limits, use_cgroups)
    plan = confinement.launch_plan()
    try:
        if program is None or not _runnable(str(program)):
            raise FileNotFoundError(errno.ENOENT, "no such program", command[0])
        popen = spawn(plan, command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment,
                      cwd=str(bot_dir))  # fmt: skip
        launcher = plan.hand_over(popen.pid)
    except (OSError, subprocess.SubprocessError) as error:
        plan.reap_reported()
        confinement.cleanup()
        raise SandboxError(f"could not start {command[0]!r}: {error}") from error
    except BaseException:
        plan.reap_reported()
        confinement.cleanup()
        raise
    finally:
        plan.close()
    confinement.started(popen.pid)  # the session's and process group's id, even when the launcher was cloned
    return SandboxProcess(popen, confinement, limits, started, time.monotonic() - started, pid=launcher)
