"""One unprivileged host uid per running bot, so per-user kernel limits (RLIMIT_NPROC) and signal
permissions separate bots from each other and from the worker.

A uid is leased with an exclusive flock on a lock file in a root-only folder: safe across threads and
processes on one machine, and released by the kernel if the worker dies. The range comes from
KOZYR_SANDBOX_UIDS ("60000-60999" by default) and must not belong to real accounts.
"""

from __future__ import annotations

import fcntl
import os
import random
import signal
import time

from .errors import SandboxError
from .state import state_dir

DEFAULT_RANGE = "60000-60999"


def uid_range() -> range:
    text = os.environ.get("KOZYR_SANDBOX_UIDS", DEFAULT_RANGE)
    try:
        low, high = (int(part) for part in text.split("-"))
    except ValueError:
        raise SandboxError(f"KOZYR_SANDBOX_UIDS must look like 60000-60999, got {text!r}") from None
    if not 1000 <= low <= high < 2**31 - 1:
        raise SandboxError(f"KOZYR_SANDBOX_UIDS must be an increasing range of unprivileged uids, got {text!r}")
    return range(low, high + 1)


def can_switch_uid() -> bool:
    return os.geteuid() == 0


# The lock file says whether the last holder left the uid empty. A worker that crashed mid-run leaves
# IN_USE behind (the kernel drops its lock), and the next holder sweeps the uid before using it. An empty
# file was never leased (IN_USE is written before anything is launched as the uid), so nothing of ours can
# run as that uid: no sweep (a sweep reads the whole process table, ~2 ms).
NEVER_USED = b""
CLEAN = b"clean"
IN_USE = b"in-use"


class UidLease:
    """An exclusive claim on one uid for the life of one run."""

    def __init__(self, uid: int, lock_fd: int):
        self.uid = uid
        self._lock_fd: int | None = lock_fd

    def release(self, clean: bool = True) -> None:
        """Give the uid back; `clean` only when no process of it is left."""
        if self._lock_fd is not None:
            if clean:
                os.pwrite(self._lock_fd, CLEAN, 0)
                os.ftruncate(self._lock_fd, len(CLEAN))
            os.close(self._lock_fd)
            self._lock_fd = None


def lease_uid() -> UidLease:
    uids = uid_range()
    folder = state_dir() / "uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    start = random.randrange(len(uids))
    for offset in range(len(uids)):
        uid = uids[(start + offset) % len(uids)]
        fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if os.pread(fd, 16, 0) not in (CLEAN, NEVER_USED) and not kill_all_processes_of(uid):
            os.close(fd)
            continue
        os.pwrite(fd, IN_USE, 0)
        os.ftruncate(fd, len(IN_USE))
        return UidLease(uid, fd)
    raise SandboxError(f"all {len(uids)} sandbox uids ({uids.start}-{uids.stop - 1}) are in use")


def processes_of(uid: int) -> list[int]:
    """Live processes whose real, effective or saved uid is `uid` (zombies hold nothing but a pid and are
    reaped by their parent). Reads /proc directly: it runs on every start and finish without a cgroup."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as status:
                text = status.read()
        except OSError:
            continue
        state = text[text.index(b"State:") + 6 :].split(None, 1)[0]
        uids = text[text.index(b"Uid:") + 4 :].split(None, 4)[:3]
        if state != b"Z" and str(uid).encode() in uids:
            found.append(int(entry.name))
    return found


def kill_all_processes_of(uid: int, attempts: int = 50) -> bool:
    """SIGKILL every process of `uid` with kill(-1) sent *as that uid*: the kernel then signals exactly the
    processes that uid may signal (its own, including setsid daemons and processes inside namespaces),
    in one call, so none can fork away between a listing and a kill. True when none is left."""
    for _ in range(attempts):
        if not processes_of(uid):
            return True
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the forked child only
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        time.sleep(0.002)
    return not processes_of(uid)
