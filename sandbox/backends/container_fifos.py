"""The bot's stdin and stdout through named pipes that only the worker and the bot ever open.

Podman's conmon keeps a copy of every descriptor handed into a container (`--preserve-fds`), so a bot that
closed its stdout was not seen to until it exited. Here the worker makes three FIFOs in a folder that is
bind-mounted read-only into the container (`MOUNT`), and the container's first program (docker.PIPE_SHIM)
opens them itself:

* `out`: the worker opens it for reading before the container exists, and also for writing (a holding
  writer, closed at the hand-over), so that a read before the bot's writer is there waits instead of seeing
  end-of-file;
* `in`: the worker's end is opened read-write first (a FIFO opened for writing alone needs a reader), so the
  hello can be written at once; it waits in the pipe;
* `sync`: the shim opens both, then `sync` for reading. A worker thread blocked opening `sync` for writing
  wakes up, replaces its `in` descriptor by a write-only one (`dup2`, same number, same blocking mode),
  closes its holding writer and then `sync`; the shim sees end-of-file on `sync` and only then execs
  the bot. From the bot's first instruction on, the worker holds nothing but a reader of `out` and a writer
  of `in`: a bot closing its stdout gives the worker end-of-file, one closing its stdin gives it EPIPE.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

MOUNT = "/run/kozyr-pipes"


class HandedFifos:
    def __init__(self, folder: Path, uid: int | None):
        """Make the FIFOs in `folder` (created here): owned by `uid` and private to it when the worker can
        give them away (root), else open to the container's unmapped user (the folder above is the worker's
        alone, so no other host user reaches them)."""
        self.folder = folder
        folder.mkdir(mode=0o755)
        for name in ("in", "out", "sync"):
            path = folder / name
            os.mkfifo(path, 0o600)
            if uid is not None:
                os.chown(path, uid, uid)
            else:
                os.chmod(path, 0o666)
        self._released = threading.Event()
        self.stdout_fd = os.open(folder / "out", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self._out_holder: int | None = os.open(folder / "out", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self.stdin_fd = os.open(folder / "in", os.O_RDWR | os.O_CLOEXEC)
        os.set_blocking(self.stdout_fd, True)
        self.handed_over = threading.Event()
        self._thread = threading.Thread(target=self._hand_over, name=f"fifos-{folder.name}", daemon=True)
        self._thread.start()

    def _hand_over(self) -> None:
        sync = os.open(self.folder / "sync", os.O_WRONLY | os.O_CLOEXEC)  # waits for the shim (or release())
        try:
            if self._released.is_set():
                return
            writer = os.open(self.folder / "in", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # the shim reads
            try:
                os.set_blocking(writer, os.get_blocking(self.stdin_fd))
                os.dup2(writer, self.stdin_fd, inheritable=False)
            finally:
                os.close(writer)
            self._close_holder()
            self.handed_over.set()
        finally:
            os.close(sync)  # the shim's read of `sync` ends: it execs the bot

    def _close_holder(self) -> None:
        fd, self._out_holder = self._out_holder, None
        if fd is not None:
            os.close(fd)

    def release(self) -> None:
        """The run is over (or never started): stop waiting for the shim and close what only waited for it.
        The caller closes stdin_fd and stdout_fd."""
        if self._released.is_set():
            return
        self._released.set()
        if self._thread.is_alive():
            # Meet the thread's open of `sync` ourselves, so that it returns.
            with contextlib.suppress(OSError):
                unblock = os.open(self.folder / "sync", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
                self._thread.join(timeout=5)
                os.close(unblock)
        self._thread.join(timeout=5)
        self._close_holder()
