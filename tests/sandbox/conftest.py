"""Shared harness for the sandbox tests: start a hostile bot, read what it says with a bound, finish it,
and check that nothing of it is left running.

KOZYR_SANDBOX_BACKEND=docker runs the adversarial suite against the docker backend (skipped when no engine
answers); the default is bwrap, which must work here: a missing bubblewrap fails the suite rather than
skipping it, so CI cannot pass with isolation silently off.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from sandbox import Limits, SandboxProcess, SandboxReport, backends_available, start

HOSTILE = Path(__file__).parent / "hostile"
BACKEND = os.environ.get("KOZYR_SANDBOX_BACKEND", "bwrap")


@dataclass
class Run:
    proc: SandboxProcess
    report: SandboxReport
    stdout: bytes
    stderr: bytes

    def json(self) -> dict:
        return json.loads(self.stdout.decode().splitlines()[0])


@pytest.fixture(scope="session")
def backend() -> str:
    reason = backends_available().get(BACKEND, f"unknown backend {BACKEND}")
    if reason is not None:
        if BACKEND == "docker":
            pytest.skip(f"docker backend unavailable: {reason}")
        pytest.fail(f"sandbox backend {BACKEND} does not work on this machine: {reason}")
    return BACKEND


@pytest.fixture
def bot_dir(tmp_path) -> Path:
    folder = tmp_path / "bot"
    shutil.copytree(HOSTILE, folder)
    return folder


@pytest.fixture
def launch(backend, bot_dir):
    """launch(script, *args, limits=...) -> SandboxProcess; every process is finished at teardown."""
    started: list[SandboxProcess] = []

    def _launch(script: str, *args: str, limits: Limits | None = None, folder: Path | None = None, **kwargs):
        proc = start(["python3", script, *args], folder or bot_dir, limits or Limits(wall_seconds=30),
                     backend=backend, env={"PYTHONUNBUFFERED": "1"}, **kwargs)  # fmt: skip
        started.append(proc)
        return proc

    yield _launch
    for proc in started:
        report = proc.finish(grace_seconds=0)
        assert_nothing_left(proc, report)
        proc.close()


def read_until(proc: SandboxProcess, *, limit: int = 1 << 20, seconds: float = 10.0, lines: int | None = None) -> bytes:
    """Read the bot's stdout until EOF, `lines` complete lines, `limit` bytes or `seconds`, whichever first."""
    received = b""
    deadline = time.monotonic() + seconds
    fd = proc.stdout.fileno()
    while len(received) < limit and (lines is None or received.count(b"\n") < lines):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            break
        chunk = os.read(fd, min(65536, limit - len(received)))
        if not chunk:
            break
        received += chunk
    return received


def finish(proc: SandboxProcess, stdout: bytes = b"", grace: float = 0.5) -> Run:
    report = proc.finish(grace_seconds=grace)
    assert_nothing_left(proc, report)
    stderr = read_until_eof(proc.stderr.fileno())
    return Run(proc, report, stdout, stderr)


def read_until_eof(fd: int, limit: int = 1 << 20) -> bytes:
    received = b""
    while len(received) < limit and select.select([fd], [], [], 5)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        received += chunk
    return received


def run_to_end(proc: SandboxProcess, grace: float = 5.0) -> Run:
    stdout = read_until(proc, seconds=30)
    return finish(proc, stdout, grace)


def assert_nothing_left(proc: SandboxProcess, report: SandboxReport) -> None:
    assert not any("survived" in text for text in report.guarantees_weakened), report.guarantees_weakened
    if proc.sandbox_uid is not None:
        left = [p.pid for p in psutil.process_iter(["uids", "status"])
                if p.info["uids"] and p.info["uids"].real == proc.sandbox_uid
                and p.info["status"] != psutil.STATUS_ZOMBIE]  # fmt: skip
        assert left == [], f"processes of sandbox uid {proc.sandbox_uid} still running: {left}"
    # Whoever is left would still hold the write end of stdout: EOF proves there is nobody.
    assert read_until_eof(proc.stdout.fileno(), limit=1 << 24) is not None
    assert select.select([proc.stdout.fileno()], [], [], 5)[0], "stdout never reached EOF"
    assert os.read(proc.stdout.fileno(), 1 << 20) == b""
