"""Per-process resource limits (setrlimit) applied between fork and exec, and the child set-up that also
joins cgroups and drops to the sandbox uid. Runs in the forked child: keep it to plain syscalls."""

from __future__ import annotations

import math
import os
import resource

from .limits import Limits

# Room for bwrap's launcher, which runs as the sandbox uid too.
LAUNCHER_TASKS = 1


def rlimits_for(limits: Limits, *, memory: bool, processes: bool) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) triples. `memory`/`processes`: also limit these here (no cgroup does it, or
    the uid is ours alone so RLIMIT_NPROC counts only this bot)."""
    cpu_soft = math.ceil(limits.cpu_seconds) + 1  # a backstop: the watchdog normally stops the bot first
    chosen = [
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_FSIZE, limits.file_size_mb << 20, limits.file_size_mb << 20),
        (resource.RLIMIT_CPU, cpu_soft, cpu_soft + 1),
        (resource.RLIMIT_MEMLOCK, 0, 0),
    ]
    if memory:
        # RLIMIT_DATA, not RLIMIT_AS: Node reserves gigabytes of address space it never touches and cannot
        # start under RLIMIT_AS; RLIMIT_DATA counts the private writable memory both runtimes really use.
        chosen.append((resource.RLIMIT_DATA, limits.memory_mb << 20, limits.memory_mb << 20))
    if processes:
        chosen.append((resource.RLIMIT_NPROC, limits.processes + LAUNCHER_TASKS, limits.processes + LAUNCHER_TASKS))
    return chosen


def child_setup(procs_files: list[bytes], rlimits: list[tuple[int, int, int]], uid: int | None):
    """The preexec function: join the run's cgroups, set limits, then drop every privilege to `uid`."""

    def setup() -> None:  # pragma: no cover - runs in the forked child only
        pid = str(os.getpid()).encode()
        for path in procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        for which, soft, hard in rlimits:
            resource.setrlimit(which, (soft, hard))
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)

    return setup
