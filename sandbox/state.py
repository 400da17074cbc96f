"""The sandbox's private folder on the host: uid locks and per-run copies of bot files."""

from __future__ import annotations

import os
import stat
import tempfile
from functools import cache
from pathlib import Path

from .errors import SandboxError


@cache
def state_dir() -> Path:
    """KOZYR_SANDBOX_STATE_DIR, else /run/kozyr-sandbox as root, else a per-user folder in the temp dir.

    The folder must be ours and not a symlink: a world-writable parent such as /tmp could otherwise be used
    to make us write through someone else's link."""
    configured = os.environ.get("KOZYR_SANDBOX_STATE_DIR")
    if configured:
        path = Path(configured)
    elif os.geteuid() == 0 and Path("/run").is_dir():
        path = Path("/run/kozyr-sandbox")
    else:
        path = Path(tempfile.gettempdir()) / f"kozyr-sandbox-{os.geteuid()}"
    try:
        path.mkdir(mode=0o711, exist_ok=True)
        info = os.lstat(path)
    except OSError as error:
        raise SandboxError(f"cannot create the sandbox state folder {path}: {error}") from error
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise SandboxError(f"sandbox state folder {path} is not a folder owned by uid {os.geteuid()}")
    # Sandbox uids need to traverse it (execute bit only) to reach the bot copy that bwrap mounts.
    os.chmod(path, 0o711)
    return path
