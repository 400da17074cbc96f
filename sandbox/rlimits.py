"""Per-process resource limits (setrlimit), applied between fork and exec by launcher.Plan."""

from __future__ import annotations

import math
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
