"""What a worker that died without cleaning up (SIGKILL, OOM kill, power loss) left behind, swept by the next
worker that starts a sandbox on this machine with the same state folder: the copies of bot files, the
container CLI's working folders and the cgroups (and whatever still runs in them). Uid leases have their own
sweep (uids.py); containers theirs (backends/container_reaper.py).

`owner()` is this process's owner token (identity.py says what one is), taken on first use after a sweep of
every dead owner's leftovers: the first sandbox a worker starts cleans up after the workers that died before
it. A sweep leaves cgroups of other state ids alone: their owners' locks are in other state folders.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import cgroups, identity
from .state import state_dir

_token: str | None = None
# One token per process: two threads taking one each at once would each sweep, and the sweep of one could
# come before the other's lock file was in place.
_token_lock = threading.Lock()


def owner() -> str:
    """This process's owner token (taken, and dead owners swept, on first use)."""
    global _token
    with _token_lock:
        if _token is None:
            token = identity.take_token()
            sweep(alive={token})
            _token = token
        return _token


@contextlib.contextmanager
def owned_folder(kind: str) -> Iterator[Path]:
    """A private folder (mode 0700), `runs/<owner>.<kind>-<random>`, for files of this process that must not
    outlive it: removed when the block ends, or by the next sweep when the process is killed first."""
    runs = state_dir() / "runs"
    runs.mkdir(mode=0o711, exist_ok=True)  # as bwrap_staging.py: sandbox uids traverse it to their own run folder
    folder = Path(tempfile.mkdtemp(prefix=f"{owner()}.{kind}-", dir=runs))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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
        if token not in self._dead and not identity.alive(token):
            self._dead.add(token)
        return token in self._dead


def sweep(alive: Iterable[str] = frozenset()) -> list[str]:
    """Remove the staging folders, container working folders and cgroups of every owner of this state folder
    that is dead; return what was removed."""
    verdicts = _Verdicts(set(alive) | identity.live_owners())
    # runs/: bwrap's copies of bot files and the runner's (owned_folder); engine/: the container CLI's working
    # folders (backends/docker.py). All in this state folder, so its locks say who is alive whatever the state id.
    removed = _sweep_folder(state_dir() / "runs", verdicts) + _sweep_folder(state_dir() / "engine", verdicts)
    return removed + _sweep_cgroups(verdicts)


def _sweep_folder(folder: Path, verdicts: _Verdicts) -> list[str]:
    if not folder.is_dir():
        return []
    removed = []
    for entry in os.scandir(folder):
        if verdicts.dead(identity.token_of(entry.name)):
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
    ours_or_older = (identity.state_id(), None)
    removed = []
    for home in homes:
        with contextlib.suppress(OSError):
            for entry in os.scandir(home):
                token = identity.token_of(entry.name)
                ours = entry.is_dir(follow_symlinks=False) and "." in entry.name \
                    and identity.state_of(token) in ours_or_older  # fmt: skip
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
