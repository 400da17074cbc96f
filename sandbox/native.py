"""The native launcher (native/launch.c): launcher.Plan's child set-up in C, compiled once per machine.

With a Python `preexec_fn`, subprocess must fork the whole worker process, run Python in the child, and then
fork it again for clone3: most of `start()`'s time. With this small program the worker starts it with vfork,
and the clone3 copies a process of a few hundred kilobytes. It is built with the system C compiler into the
state folder the first time a sandbox starts (~0.2 s); without a compiler, or with
KOZYR_SANDBOX_NATIVE_LAUNCHER=0, the Python set-up is used (same guarantees, slower start).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import threading
from functools import cache
from pathlib import Path

from .state import state_dir

SOURCE = Path(__file__).parent / "native" / "launch.c"
SETTING = "KOZYR_SANDBOX_NATIVE_LAUNCHER"


# functools.cache does not hold back a second thread while the first builds: both would compile into the same
# temporary file, and one would exec it while the other still wrote it ("Text file busy").
_building = threading.Lock()


def launcher_binary() -> str | None:
    """The compiled launcher, built on first use; None when it cannot be (then Python sets up the child)."""
    with _building:
        return _launcher_binary()


@cache
def _launcher_binary() -> str | None:
    if os.environ.get(SETTING) == "0" or not SOURCE.is_file():
        return None
    source = SOURCE.read_bytes()
    folder = state_dir() / "bin"
    folder.mkdir(mode=0o755, exist_ok=True)
    binary = folder / f"kozyr-launch-{hashlib.sha256(source).hexdigest()[:16]}"
    if _trusted(binary):
        return str(binary)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    building = folder / f".{binary.name}.{os.getpid()}"
    try:
        done = subprocess.run([compiler, "-O2", "-o", str(building), str(SOURCE)], capture_output=True, timeout=60,
                              check=False)  # fmt: skip
        if done.returncode != 0:
            return None
        os.chmod(building, 0o755)
        os.rename(building, binary)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(building)
    return str(binary) if _trusted(binary) else None


def _trusted(binary: Path) -> bool:
    """Ours and writable by nobody else (the worker runs it as root)."""
    try:
        info = binary.stat()
    except OSError:
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022 and os.access(binary, os.X_OK)
