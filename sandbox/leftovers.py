"""What a worker that died without cleaning up (SIGKILL, OOM kill, power loss) left behind, swept by the next
worker that starts a sandbox on this machine with the same state folder: the copies of bot files and the
cgroups (and whatever still runs in them). Uid leases have their own sweep (uids.py).

Every process that starts sandboxes takes an owner token, `<state id>-<pid>-<random>`, and holds an exclusive
flock on `owners/<token>.lock` in the state folder for its whole life; the kernel drops the lock when the
process dies, whatever killed it. Staging folders and cgroups carry the token in their names
(`<token>.<rest>`), so a folder or cgroup whose token has no live lock holder belongs to a dead worker.

The state id names the state folder, because the cgroups are not in it: workers with different state folders
(KOZYR_SANDBOX_STATE_DIR) share the `kozyr-sandbox` cgroup folder when they share a cgroup, and each one's
lock is in its own folder only, so a sweep leaves cgroups of other state ids alone. (Names of the older form
`<pid>-<random>.<rest>`, without a state id, are judged by this folder's locks, as they always were.)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import cgroups
from .state import state_dir

_held_locks: list[int] = []  # the owner lock's descriptor, kept open for the life of the process
_token: str | None = None
# One token per process: two threads taking one each at once would each sweep, and the sweep of one could
# come before the other's lock file was in place.
_token_lock = threading.Lock()


def owner() -> str:
    """This process's owner token (taken, and dead owners swept, on first use)."""
    global _token
    with _token_lock:
        if _token is None:
            token = _take_token()
            sweep(alive={token})
            _token = token
        return _token


def _take_token() -> str:
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
    return name.split(".", 1)[0]


def _state_of(token: str) -> str | None:
    """The state id a token carries; None for the older `<pid>-<random>`; "" for a name that is no token."""
    parts = token.split("-")
    if len(parts) == 3:
        return parts[0]
    return None if len(parts) == 2 else ""


@contextlib.contextmanager
def owned_folder(kind: str) -> Iterator[Path]:
    """A private folder (mode 0700), `runs/<owner>.<kind>-<random>`, for files of this process that must not
    outlive it: removed when the block ends, or by the next sweep when the process is killed first."""
    runs = state_dir() / "runs"
    runs.mkdir(mode=0o711, exist_ok=True)  # as staging.py: sandbox uids traverse it to their own run folder
    folder = Path(tempfile.mkdtemp(prefix=f"{owner()}.{kind}-", dir=runs))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def live_owners() -> set[str]:
    """Tokens whose lock is held; the lock files of dead owners are removed on the way."""
    folder = state_dir() / "owners"
    tokens = [entry.name[: -len(".lock")] for entry in os.scandir(folder) if entry.name.endswith(".lock")]
    return {token for token in tokens if _alive(token)}


def _alive(token: str) -> bool:
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


class _Verdicts:
    """Who is dead, for one sweep. A worker may take its token and make its folders and cgroups while the sweep
    runs, after the sweep looked at who was alive: so a token not alive then is asked of its own lock when
    something of it is about to be removed, and only deaths are remembered (a dead owner never comes back)."""

    def __init__(self, alive: set[str]):
        self._alive = alive  # alive at the start: at worst one that dies meanwhile is swept next time
        self._dead: set[str] = set()

    def dead(self, token: str) -> bool:
        if token in self._alive:
            return False
        if token not in self._dead and not _alive(token):
            self._dead.add(token)
        return token in self._dead


def sweep(alive: Iterable[str] = frozenset()) -> list[str]:
    """Remove the staging folders, container working folders and cgroups of every owner of this state folder
    that is dead; return what was removed."""
    verdicts = _Verdicts(set(alive) | live_owners())
    # runs/: bwrap's copies of bot files and the runner's (owned_folder); engine/: the container CLI's working
    # folders (docker.py). All in this state folder, so its locks say who is alive whatever the state id.
    removed = _sweep_folder(state_dir() / "runs", verdicts) + _sweep_folder(state_dir() / "engine", verdicts)
    return removed + _sweep_cgroups(verdicts)


def _sweep_folder(folder: Path, verdicts: _Verdicts) -> list[str]:
    if not folder.is_dir():
        return []
    removed = []
    for entry in os.scandir(folder):
        if verdicts.dead(token_of(entry.name)):
            # rmtree never follows symlinks; the bot could not write there anyway. (A plain file: conmon's
            # `oom` marker from before each container had a folder of its own.)
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            removed.append(entry.path)
    return removed


def _sweep_cgroups(verdicts: _Verdicts) -> list[str]:
    """Only cgroups of this state folder's owners (and of the older names): another state id's owner has its
    lock in another folder, so its cgroups would look dead here even while its bot runs."""
    support = cgroups.detect()
    homes = ([support.v2_home] if support.v2_home else []) + list(support.v1_homes.values())
    ours_or_older = (state_id(), None)
    removed = []
    for home in homes:
        with contextlib.suppress(OSError):
            for entry in os.scandir(home):
                token = token_of(entry.name)
                ours = entry.is_dir(follow_symlinks=False) and "." in entry.name \
                    and _state_of(token) in ours_or_older  # fmt: skip
                if ours and verdicts.dead(token) and _remove_cgroup(Path(entry.path)):
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
