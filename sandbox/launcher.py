"""Starting bwrap's launcher already inside the run's cgroups, limited, and as the sandbox uid.

Joining a cgroup by writing a pid into `cgroup.procs` (v2, and v1's `cgroup.procs`) takes the kernel's global
`cgroup_threadgroup_rwsem` for writing, which waits for an RCU grace period whenever no other migration
happened in the last one: 8-15 ms per start here, more than bwrap's own set-up. Two ways around it, both
without any moment where the launcher runs outside its limits:

* cgroup v1: a single-threaded process writing "0" (itself) into a group's `tasks` file is moved without
  that lock (the kernel only needs it to keep a whole thread group still);
* cgroup v2: `clone3(CLONE_INTO_CGROUP)` creates the launcher directly inside its group. The forked child
  running `child_setup` (single-threaded) joins the v1 groups and sets the rlimits, then clones the launcher
  into the v2 group with CLONE_PARENT, so the launcher is still the worker's own child (wait4, rusage,
  bwrap's --die-with-parent), reports its pid through a pipe and exits. The launcher drops to the sandbox
  uid and execs bwrap. If clone3 is refused (kernel < 5.7), the child joins the v2 group the slow way and
  execs bwrap itself.

`spawn()` runs those steps in native/launch.c when it is built (native.py: started with vfork, no Python in
the child), else in `Plan.child_setup` between fork and exec. The unsafe backend uses the same plan.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import platform
import resource
import struct
import subprocess
from collections.abc import Callable

from . import native

# clone3 has the same number on every architecture that has it (the syscall table was unified at 424).
SYS_CLONE3 = 435
CLONE_PARENT = 0x0000_8000
CLONE_INTO_CGROUP = 0x2_0000_0000
CLONE_ARGS_SIZE = 88  # struct clone_args up to .cgroup (CLONE_ARGS_SIZE_VER2)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def clone3_available() -> bool:
    return platform.system() == "Linux" and platform.machine() in ("x86_64", "aarch64")


class Plan:
    """What the forked child does before bwrap runs; built in the parent so the child only makes syscalls."""

    def __init__(self, v2_dir: str | None, v1_dirs: list[str], rlimits: list[tuple[int, int, int]],
                 uid: int | None, fds: dict[int, int] | None = None):  # fmt: skip
        # fds: descriptor number in bwrap -> descriptor in this process. Placed first thing in the child;
        # every other descriptor above them is then marked close-on-exec, so nothing else leaks into bwrap.
        self.fds = dict(fds or {})
        self.v1_tasks = [os.fsencode(os.path.join(folder, "tasks")) for folder in v1_dirs]
        self.v2_procs = os.fsencode(os.path.join(v2_dir, "cgroup.procs")) if v2_dir else None
        self.rlimits = rlimits
        self.uid = uid
        self._cgroup_fd: int | None = None
        self._clone_args = None
        self.report_read: int | None = None
        self._report_write: int | None = None
        if v2_dir and clone3_available():
            self._cgroup_fd = os.open(v2_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            # exit_signal must be 0 with CLONE_PARENT: the launcher inherits the child's (SIGCHLD).
            packed = struct.pack("=11Q", CLONE_PARENT | CLONE_INTO_CGROUP, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 self._cgroup_fd)  # fmt: skip
            self._clone_args = ctypes.create_string_buffer(packed, CLONE_ARGS_SIZE)
            self.report_read, self._report_write = os.pipe()

    def child_setup(self) -> None:  # pragma: no cover - runs in the forked child only
        _place_fds(self.fds)
        for path in self.v1_tasks:
            _write(path, b"0")
        # Opened before the rlimits: this child holds every descriptor of the worker (marked close-on-exec,
        # not closed), so once RLIMIT_NOFILE is the bot's it may have no free number left to open anything.
        procs = os.open(self.v2_procs, os.O_WRONLY | os.O_CLOEXEC) if self.v2_procs is not None else None
        for which, soft, hard in self.rlimits:
            resource.setrlimit(which, (soft, hard))
        if procs is not None:
            launcher = -1
            report = self._report_write
            if self._clone_args is not None and report is not None:
                launcher = _libc.syscall(SYS_CLONE3, self._clone_args, ctypes.c_size_t(CLONE_ARGS_SIZE))
                if launcher > 0:
                    os.write(report, str(launcher).encode())
                    os._exit(0)
            if launcher < 0:  # no clone3 here: join the slow way and become the launcher ourselves
                os.write(procs, str(os.getpid()).encode())
            os.close(procs)
        if self.uid is not None:
            os.setgroups([])
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)

    def native_command(self, helper: str, argv: list[str]) -> tuple[list[str], tuple[int, ...]] | None:
        """The same set-up done by native/launch.c (see native.py): its command line, and the descriptors
        to pass it. None when this plan needs what only the Python set-up does (v2 without clone3)."""
        if self.v2_procs is not None and self._clone_args is None:
            return None
        fds = dict(self.fds)
        command = [helper]
        if self._clone_args is not None:
            if self._report_write is None or self._cgroup_fd is None or self.v2_procs is None:
                raise ValueError("a closed launch plan cannot start anything")
            # The v2 group's descriptor and the report pipe go above every target of `fds`, so placing those
            # cannot clobber them.
            report_fd = max(fds, default=2) + 1
            cgroup_fd = report_fd + 1
            fds[report_fd] = self._report_write
            fds[cgroup_fd] = self._cgroup_fd
            command += ["-g", f"{cgroup_fd}:{os.fsdecode(self.v2_procs)}", "-p", str(report_fd)]
        for target, source in fds.items():
            command += ["-f", f"{target}:{source}"]
        for path in self.v1_tasks:
            command += ["-t", os.fsdecode(path)]
        for which, soft, hard in self.rlimits:
            command += ["-r", f"{which}:{_unsigned(soft)}:{_unsigned(hard)}"]
        if self.uid is not None:
            command += ["-u", str(self.uid)]
        return [*command, "--", *argv], tuple(sorted(set(fds.values())))

    def launcher_pid(self, forked_pid: int) -> int:
        """After Popen returned: the launcher's pid (the forked child's own when it became the launcher)."""
        if self._report_write is not None:
            os.close(self._report_write)
            self._report_write = None
        if self.report_read is None:
            return forked_pid
        data = os.read(self.report_read, 32)
        if not data:
            return forked_pid
        if forked_pid > 0:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(forked_pid, 0)  # it exits right after reporting
        else:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(data), 0)
        return int(data)

    def hand_over(self, forked_pid: int) -> Callable[[], int]:
        """After Popen returned: a function giving the launcher's pid, reading the report only when first
        called (by SandboxProcess, when it first needs the pid), so that the launcher's clone3 overlaps
        whatever the caller does next, such as starting the next seat. The plan is closed except for the
        report, which the function closes."""
        report_read = self.report_read
        self.report_read = None
        self.close()
        if report_read is None:
            return lambda: forked_pid

        def resolve() -> int:
            self.report_read = report_read
            try:
                return self.launcher_pid(forked_pid)
            finally:
                self.close()

        return resolve

    def reap_reported(self) -> None:
        """After a failed start: reap a launcher that was cloned but could not exec bwrap."""
        if self.report_read is not None:
            self.launcher_pid(-1)

    def close(self) -> None:
        for fd in (self._cgroup_fd, self.report_read, self._report_write):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._cgroup_fd = self.report_read = self._report_write = None


def spawn(plan: Plan, argv: list[str], *, stdin, stdout, env: dict, cwd: str) -> subprocess.Popen:
    """Start `argv` set up by `plan`: through the native launcher (vfork, see native.py) when it is built,
    else with the plan's Python set-up between fork and exec."""
    helper = native.launcher_binary()
    native_command = plan.native_command(helper, argv) if helper else None
    if native_command is not None:
        command, pass_fds = native_command
        return subprocess.Popen(command, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, bufsize=0, env=env,
                                cwd=cwd, pass_fds=pass_fds, start_new_session=True)  # fmt: skip
    return subprocess.Popen(
        argv, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, bufsize=0, env=env, cwd=cwd,
        close_fds=False,  # the child places its descriptors itself and marks every other one close-on-exec
        start_new_session=True, preexec_fn=plan.child_setup,
    )  # fmt: skip


def _unsigned(limit: int) -> int:
    return limit if limit >= 0 else (1 << 64) + limit  # RLIM_INFINITY is -1 in Python, ~0 in C


SYS_CLOSE_RANGE = 436
CLOSE_RANGE_CLOEXEC = 4


def _place_fds(fds: dict[int, int]) -> None:  # pragma: no cover - runs in the forked child only
    """dup2 each source onto its target number. A source sitting on some target number is first moved above
    them all. (Whatever the parent had on a target number is replaced: it is not the child's to keep.)"""
    top = max(fds, default=2) + 1
    sources = {target: fcntl.fcntl(source, fcntl.F_DUPFD_CLOEXEC, top) if source in fds else source
               for target, source in fds.items()}  # fmt: skip
    for target, source in sources.items():
        os.dup2(source, target)  # the copy is inheritable
    for source in sources.values():
        if source not in fds:  # a source below the targets that is no target itself must not leak
            os.set_inheritable(source, False)
    if _libc.syscall(SYS_CLOSE_RANGE, top, 0xFFFF_FFFF, CLOSE_RANGE_CLOEXEC) != 0:
        for name in os.listdir("/proc/self/fd"):  # kernel < 5.11
            with contextlib.suppress(OSError):
                if int(name) >= top:
                    os.set_inheritable(int(name), False)


def _write(path: bytes, data: bytes) -> None:  # pragma: no cover - runs in the forked child only
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
