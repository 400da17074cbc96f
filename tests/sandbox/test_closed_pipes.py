"""A bot that closes its stdout or stdin but keeps running is seen to have done so at once, under every
backend: nothing but the bot may hold the other end of its pipes (bubblewrap's outer process, Podman's
conmon included)."""

from __future__ import annotations

import time

import pytest

from tests.sandbox.conftest import read_until


def test_a_closed_stdout_reaches_the_worker_as_end_of_file_while_the_bot_runs(launch):
    proc = launch("closer.py", "stdout")
    assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
    proc.stdin.write(b"close now\n")
    began = time.monotonic()
    assert read_until(proc, seconds=10) == b""
    assert time.monotonic() - began < 5, "stdout stayed open after the bot closed it"
    assert proc.poll() is None  # still running: the verdict is "closed its stdout", not "exited"


def test_a_closed_stdin_breaks_the_workers_pipe_while_the_bot_runs(launch):
    proc = launch("closer.py", "stdin")
    assert read_until(proc, lines=2) == b'{"type": "ready"}\nclosed\n'
    with pytest.raises(BrokenPipeError):
        proc.stdin.write(b"are you there?\n")
    assert proc.poll() is None
