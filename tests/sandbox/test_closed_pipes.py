"""A bot that closes its stdout or stdin but keeps running is seen to have done so at once, under every
backend: nothing but the bot may hold the other end of its pipes (bubblewrap's outer process, Podman's
conmon included)."""

from __future__ import annotations

import select
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


def test_a_closed_stdin_is_seen_without_writing(launch):
    # The referee waits for an answer without writing: the closed pipe must show in poll (POLLERR on the
    # write end), which needs that nothing but the bot held its read end.
    proc = launch("closer.py", "stdin")
    assert read_until(proc, lines=2) == b'{"type": "ready"}\nclosed\n'
    watch = select.poll()
    watch.register(proc.stdin.fileno(), select.POLLERR)
    assert watch.poll(5000), "the worker's end of stdin did not report the bot's close"
    assert proc.poll() is None


def test_a_container_that_never_runs_ends_the_workers_read_at_once(backend, bot_dir, monkeypatch):
    if backend != "docker":
        pytest.skip("the container backend's FIFOs (bwrap's pipes close with bubblewrap itself)")
    from sandbox import Limits, start

    monkeypatch.setenv("KOZYR_SANDBOX_DOCKER_IMAGE", "kozyr-no-such-image:none")
    began = time.monotonic()
    proc = start(["python3", "echo.py"], bot_dir, Limits(wall_seconds=30), backend="docker")
    assert read_until(proc, seconds=15) == b""
    assert time.monotonic() - began < 5, "the worker kept waiting for a bot that never started"
    report = proc.finish(grace_seconds=0)
    # the engine never started it: the sandbox's failure, never the bot's (test_container_engine_failures.py)
    assert report.outcome == "sandbox_failure" and b"kozyr-no-such-image" in proc.stderr.read()
    proc.close()
