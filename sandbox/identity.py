"""Owner tokens: which process made a staging folder, a container's working folder or a cgroup, and whether
that process still lives.

A process that starts sandboxes takes an owner token, `<state id>-<pid>-<random>`, and holds an exclusive
flock on `owners/<token>.lock` in the state folder for its whole life; the kernel drops the lock when the
process dies, whatever killed it. What it makes carries the token in its name (`<token>.<rest>`), so a name
whose token has no live lock holder belongs to a dead process. Taking this process's token and sweeping what
dead owners left is leftovers.py's job; this module only names and judges.

The state id names the state folder, because the cgroups are not in it: workers with different state folders
(KOZYR_SANDBOX_STATE_DIR) share the `kozyr-sandbox` cgroup folder when they share a cgroup, and each one's
lock is in its own folder only. (Names of the older form `<pid>-<random>.<rest>`, without a state id, are
judged by this folder's locks, as they always were.)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets

from .state import state_dir

_held_locks: list[int] = []  # the owner locks' descriptors, kept open for the life of the process


def take_token() -> str:
    """A new owner token whose lock this process holds until it dies."""
    folder = state_dir() / "owners"
    folder.mkdir(mode=0o700, exist_ok=True)
    token = f"{state_id()}-{os.getpid()}-{secrets.token_hex(4)}"
    # Locked under a temporary name and then renamed: a sweeper never sees an owner file not yet locked.
    pending = folder / f".{token}.pending"
    fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(pending, folder / f"{token}.lock")
    _held_locks.append(fd)
    return token


def state_id() -> str:
    """8 hex digits naming the state folder by its device and inode: one folder reached by two paths has one
    id, and two folders have two (bar a 32-bit hash collision), even at one path in two mount namespaces. (A
    state folder deleted and made again is another folder: what the old one's dead workers left in the
    cgroups is not the new one's to sweep.)"""
    info = os.stat(state_dir())
    return hashlib.sha256(f"{info.st_dev}:{info.st_ino}".encode()).hexdigest()[:8]


def token_of(name: str) -> str:
    """The owner token a folder or cgroup name starts with."""
    return name.split(".", 1)[0]


def state_of(token: str) -> str | None:
    """The state id a token carries; None for the older `<pid>-<random>`; "" for a name that is no token."""
    parts = token.split("-")
    if len(parts) == 3:
        return parts[0]
    return None if len(parts) == 2 else ""


def live_owners() -> set[str]:
    """Tokens whose lock is held; the lock files of dead owners are removed on the way."""
    folder = state_dir() / "owners"
    if not folder.is_dir():
        return set()  # a fresh state folder: no worker has taken a token in it yet
    tokens = [entry.name[: -len(".lock")] for entry in os.scandir(folder) if entry.name.endswith(".lock")]
    return {token for token in tokens if alive(token)}


def alive(token: str) -> bool:
    """Whether the token's owner lives, asked of its lock now. The owner file is locked and renamed into place
    before anything is named after the token, so a file that is gone means dead too (a sweep removed it after
    its owner died); the file of a dead owner is removed."""
    lock = state_dir() / "owners" / f"{token}.lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # not a lock this code made: leave what is named after it alone
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        return False
    finally:
        os.close(fd)
