"""What a worker that died without cleaning up (SIGKILL, OOM kill, power loss) left behind, swept by the next
worker that starts a sandbox on this machine: the copies of bot files and the cgroups (and whatever still runs
in them). Uid leases have their own sweep (uids.py).

Every process that starts sandboxes takes an owner token, `<pid>-<random>`, and holds an exclusive flock on
`owners/<token>.lock` in the state folder for its whole life; the kernel drops the lock when the process dies,
whatever killed it. Staging folders and cgroups carry the token in their names (`<token>.<rest>`), so a
folder or cgroup whose token has no live lock holder belongs to a dead worker.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import time
from functools import cache
from pathlib import Path

from . import cgroups
from .state import state_dir

_held_locks: list[int] = []  # the owner lock's descriptor, kept open for the life of the process


@cache
def owner() -> str:
    """This process's owner token (taken, and dead owners swept, on first use)."""
    folder = state_dir() / "owners"
    folder.mkdir(mode=0o700, exist_ok=True)
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    # Locked under a temporary name and then renamed: a sweeper never sees an owner file not yet locked.
    pending = folder / f".{token}.pending"
    fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(pending, folder / f"{token}.lock")
    _held_locks.append(fd)
    sweep(alive={token})
    return token


def token_of(name: str) -> str:
    return name.split(".", 1)[0]


def live_owners() -> set[str]:
    """Tokens whose lock is held; the lock files of dead owners are removed on the way."""
    alive = set()
    folder = state_dir() / "owners"
    for entry in os.scandir(folder):
        if not entry.name.endswith(".lock"):
            continue
        token = entry.name[: -len(".lock")]
        try:
            fd = os.open(entry.path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            alive.add(token)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
        finally:
            os.close(fd)
    return alive


def sweep(alive: set[str] = frozenset()) -> list[str]:
    """Remove the staging folders, container working folders and cgroups of every owner that is not alive;
    return what was removed."""
    alive = set(alive) | live_owners()
    removed = []
    # runs/: bwrap's copies of bot files; engine/: the container CLI's working folders (docker.py).
    for kind in ("runs", "engine"):
        folder = state_dir() / kind
        if not folder.is_dir():
            continue
        for entry in os.scandir(folder):
            if token_of(entry.name) not in alive:
                # rmtree never follows symlinks; the bot could not write there anyway. (A plain file: conmon's
                # `oom` marker from before each container had a folder of its own.)
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                removed.append(entry.path)
    support = cgroups.detect()
    homes = ([support.v2_home] if support.v2_home else []) + list(support.v1_homes.values())
    for home in homes:
        with contextlib.suppress(OSError):
            for entry in os.scandir(home):
                abandoned = entry.is_dir(follow_symlinks=False) and "." in entry.name \
                    and token_of(entry.name) not in alive  # fmt: skip
                if abandoned and _remove_cgroup(Path(entry.path)):
                    removed.append(entry.path)
    return removed


def _remove_cgroup(folder: Path) -> bool:
    """Kill whatever still runs in an abandoned cgroup, then remove it."""
    with contextlib.suppress(OSError):
        (folder / "cgroup.kill").write_text("1")
    for _ in range(200):
        try:
            pids = [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return False
        except OSError:
            time.sleep(0.01)
    return False
