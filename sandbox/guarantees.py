"""What this machine lets a backend guarantee, before any bot runs: which limits cgroups enforce here
(`available_mechanisms()`, found by creating one group), the list of weakened guarantees, said once by the
runner, and `require_full_isolation()`, with which a platform worker refuses to start in a
weakened state unless its operator accepted it (KOZYR_SANDBOX_ACCEPT_WEAKER=1)."""

from __future__ import annotations

import os
from functools import cache

from . import cgroups
from .errors import SandboxError
from .leftovers import owner
from .limits import Limits
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
    mechanisms = available_mechanisms()
    missing = [name for name in LIMITED_BY_CGROUPS if name not in mechanisms]
    if missing:
        where = "no writable cgroup here" if not mechanisms else "the worker's cgroup does not delegate them"
        weakened.append(f"cgroup limits missing ({where}): {', '.join(missing)} — "
                        "memory and CPU time fall back to per-process rlimits, disk I/O and CPU bandwidth are "
                        "not limited")  # fmt: skip
    return weakened


@cache
def available_mechanisms() -> dict[str, str]:
    """Which limits cgroups enforce for a run started by this process (found by creating one group)."""
    support = cgroups.detect()
    if not support.usable:
        return {}
    run = cgroups.Run(support, f"{owner()}.probe-{os.getpid()}", Limits())
    try:
        return dict(run.mechanisms)
    finally:
        run.remove()


def require_full_isolation(backend: str = "bwrap") -> None:
    """Raise SandboxError naming every weakened guarantee, unless KOZYR_SANDBOX_ACCEPT_WEAKER=1."""
    weakened = weakened_guarantees(backend)
    if weakened and os.environ.get(ACCEPT_WEAKER) != "1":
        raise SandboxError(
            f"the {backend} sandbox cannot give its full guarantees here: {'; '.join(weakened)}. Run the worker "
            f"as root on a host with cgroups (docs/sandbox.md), or set {ACCEPT_WEAKER}=1 to accept this"
        )
