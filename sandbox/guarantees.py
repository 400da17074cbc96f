"""What this machine lets a backend guarantee, before any bot runs: the list of weakened guarantees, said
once by the runner, and `require_full_isolation()`, with which a platform worker refuses to start in a
weakened state unless its operator accepted it (KOZYR_SANDBOX_ACCEPT_WEAKER=1)."""

from __future__ import annotations

import os

from . import cgroups
from .errors import SandboxError
from .uids import can_switch_uid

ACCEPT_WEAKER = "KOZYR_SANDBOX_ACCEPT_WEAKER"
LIMITED_BY_CGROUPS = ("memory_mb", "processes", "cpus", "cpu_accounting", "disk_io")


def weakened_guarantees(backend: str = "bwrap") -> list[str]:
    """One sentence per guarantee of docs/sandbox.md that `backend` cannot give on this machine, as run by
    this process. Empty: everything holds. (The docker backend's guarantees are the engine's: not listed.)"""
    if backend == "docker":
        return []
    weakened = []
    if backend == "unsafe":
        weakened.append("backend 'unsafe': no isolation at all (the bot runs as the worker, sees its files and "
                        "network, and a daemon can leave its cgroup and survive)")  # fmt: skip
    elif not can_switch_uid():
        weakened.append("not running as root: bots get no uid of their own, so they share the worker's uid "
                        "(no per-bot process limit; per-user kernel counters are shared between bots)")  # fmt: skip
    mechanisms = cgroups.available_mechanisms()
    missing = [name for name in LIMITED_BY_CGROUPS if name not in mechanisms]
    if missing:
        where = "no writable cgroup here" if not mechanisms else "the worker's cgroup does not delegate them"
        weakened.append(f"cgroup limits missing ({where}): {', '.join(missing)} — "
                        "memory and CPU time fall back to per-process rlimits, disk I/O and CPU bandwidth are "
                        "not limited")  # fmt: skip
    return weakened


def require_full_isolation(backend: str = "bwrap") -> None:
    """Raise SandboxError naming every weakened guarantee, unless KOZYR_SANDBOX_ACCEPT_WEAKER=1."""
    weakened = weakened_guarantees(backend)
    if weakened and os.environ.get(ACCEPT_WEAKER) != "1":
        raise SandboxError(
            f"the {backend} sandbox cannot give its full guarantees here: {'; '.join(weakened)}. Run the worker "
            f"as root on a host with cgroups (docs/sandbox.md), or set {ACCEPT_WEAKER}=1 to accept this"
        )
