"""The bwrap backend's private, read-only-to-the-bot copy of the bot's files for one run.

Copying (rather than bind-mounting the caller's folder) means the sandbox uid can read the files whatever
their host permissions, the bot sees a snapshot that nobody changes under it, and the caller's folder is
never reachable from inside. Symlinks are copied as symlinks: inside the sandbox they resolve against the
sandbox's own filesystem view, never the host's.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..errors import SandboxError
from ..leftovers import owner
from ..state import state_dir

MAX_BOT_FILES = 20_000
MAX_BOT_BYTES = 256 << 20


class Staging:
    """`runs/<owner>.<random>/bot`. The run folder is mode 0700 and belongs to the sandbox uid (when the
    worker leases one), so only the sandbox, and root, can reach the copy: bot source is private to its owner.
    The name carries the owner token of this worker, so a worker that dies leaves nothing for long
    (sandbox/leftovers.py)."""

    def __init__(self, bot_dir: Path, uid: int | None = None):
        source = Path(bot_dir)
        if not source.is_dir():
            raise SandboxError(f"bot directory {source} does not exist or is not a directory")
        runs = state_dir() / "runs"
        runs.mkdir(mode=0o711, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix=f"{owner()}.", dir=runs))  # mode 0700
        if uid is not None:
            os.chown(self.root, uid, uid)
        self.bot = self.root / "bot"
        try:
            _copy_tree(source, self.bot)
        except BaseException:
            self.remove()
            raise

    def remove(self) -> None:
        # shutil.rmtree unlinks symlinks instead of following them (and is fd-based on Linux).
        shutil.rmtree(self.root, ignore_errors=True)


def _copy_tree(source: Path, target: Path) -> None:
    files = 0
    size = 0
    os.mkdir(target, 0o755)
    for folder, subfolders, names in os.walk(source, followlinks=False):
        relative = Path(folder).relative_to(source)
        for name in sorted(subfolders + names):
            origin = Path(folder, name)
            copy = target / relative / name
            info = os.lstat(origin)
            files += 1
            if files > MAX_BOT_FILES:
                raise SandboxError(f"bot directory {source} has more than {MAX_BOT_FILES} entries")
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(origin), copy)
            elif stat.S_ISDIR(info.st_mode):
                os.mkdir(copy, 0o755)
            elif stat.S_ISREG(info.st_mode):
                size += info.st_size
                if size > MAX_BOT_BYTES:
                    raise SandboxError(f"bot directory {source} is larger than {MAX_BOT_BYTES >> 20} MiB")
                shutil.copyfile(origin, copy, follow_symlinks=False)
                os.chmod(copy, 0o755 if info.st_mode & stat.S_IXUSR else 0o644)
            else:
                raise SandboxError(f"bot directory entry {origin} is not a file, folder or symlink")
        # os.walk does not descend into symlinked folders with followlinks=False; they were copied as links.
