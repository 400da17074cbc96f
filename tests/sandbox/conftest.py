"""Shared harness for the sandbox tests: start a hostile bot, read what it says with a bound, finish it,
and check that nothing of it is left running.

Every test that takes the `backend` fixture (directly or through `launch`) runs once per backend under
test: KOZYR_SANDBOX_BACKENDS (default "bwrap,docker"). bwrap must work here: a missing bubblewrap fails
the suite rather than skipping it, so CI cannot pass with isolation silently off. The container backend
("docker", driven through podman or docker) is skipped, with the reason shown, only when neither engine is
installed; an installed engine that does not answer, or an image that does not build, fails. Its image is
built once per session by sandbox/image/build-local.sh (a no-op when the image is up to date), unless
KOZYR_SANDBOX_DOCKER_IMAGE names an image to test as it is (a deployment's).

A test that holds for some backends only says so with `@pytest.mark.sandbox_backends("bwrap", reason=...)`:
on the other backends it is reported as skipped with that reason (`xfail=True`: it runs and is expected to
fail, strictly, so a backend that gains the guarantee is noticed). The reason is the one docs/sandbox.md
gives for that backend.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from sandbox import Limits, SandboxProcess, SandboxReport, backends_available, start
from sandbox.backends import container_engine

HOSTILE = Path(__file__).parent / "hostile"
BUILD_LOCAL = Path(__file__).parents[2] / "sandbox" / "image" / "build-local.sh"
BACKENDS_UNDER_TEST = [name.strip() for name in os.environ.get("KOZYR_SANDBOX_BACKENDS", "bwrap,docker").split(",")
                       if name.strip()]  # fmt: skip


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "sandbox_backends(*names, reason, xfail=False): the test holds on these sandbox backends only; "
        "on the others it is skipped (or strictly expected to fail) with the reason")  # fmt: skip


def pytest_generate_tests(metafunc):
    if "backend" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("sandbox_backends")
    params = []
    for name in BACKENDS_UNDER_TEST:
        if marker is None or name in marker.args:
            params.append(pytest.param(name, id=name))
            continue
        reason = marker.kwargs.get("reason")
        if not reason:
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: sandbox_backends needs a reason")
        mark = (pytest.mark.xfail(reason=f"{name}: {reason}", strict=True) if marker.kwargs.get("xfail")
                else pytest.mark.skip(reason=f"{name}: {reason}"))  # fmt: skip
        params.append(pytest.param(name, id=name, marks=mark))
    metafunc.parametrize("backend", params, indirect=True, scope="session")


@pytest.fixture(scope="session")
def backend(request) -> str:
    name = request.param
    if name == "docker":
        request.getfixturevalue("container_image")
        return name
    reason = backends_available().get(name, f"unknown backend {name}")
    if reason is not None:
        pytest.fail(f"sandbox backend {name} does not work on this machine: {reason}")
    return name


@pytest.fixture(scope="session")
def container_image() -> str:
    """The bot runtime image, built here if missing or out of date; skips only when no engine is installed."""
    if shutil.which("podman") is None and shutil.which("docker") is None:
        pytest.skip("container backend not tested: neither podman nor docker is installed here "
                    "(sandbox/image/install-engine.sh, run by `make system-deps` and .ci/run, installs podman)")
    reason = container_engine.unavailable_reason()
    if reason is not None:
        pytest.fail(f"the container backend does not work on this machine: {reason}")
    if "KOZYR_SANDBOX_DOCKER_IMAGE" in os.environ:
        return container_engine.image()
    began = time.monotonic()
    built = subprocess.run([str(BUILD_LOCAL)], capture_output=True, text=True, timeout=900, check=False)
    if built.returncode != 0:
        pytest.fail(f"{BUILD_LOCAL.name} failed ({built.returncode}):\n{built.stdout}{built.stderr}")
    print(f"\n{built.stdout.strip()} [{time.monotonic() - began:.1f} s]")
    return container_engine.image()


@dataclass
class Run:
    proc: SandboxProcess
    report: SandboxReport
    stdout: bytes
    stderr: bytes

    def json(self) -> dict:
        return json.loads(self.stdout.decode().splitlines()[0])


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
        # A task SIGKILLed by cgroup.kill leaves its cgroup a moment before it leaves the process table: give
        # such a dying one the time finish() itself allows (_survivors_after_kill), no more. A container
        # removed while the engine is still starting it (finished before its first instruction) has its
        # last process reaped by the engine's monitor, not by us: a little longer on a loaded machine.
        deadline = time.monotonic() + (10 if report.backend == "docker" else 2)
        while (left := [p.pid for p in psutil.process_iter(["uids", "status"])
                        if p.info["uids"] and p.info["uids"].real == proc.sandbox_uid
                        and p.info["status"] != psutil.STATUS_ZOMBIE]) and time.monotonic() < deadline:  # fmt: skip
            time.sleep(0.01)
        assert left == [], f"processes of sandbox uid {proc.sandbox_uid} still running: {left}"
    if report.backend == "docker":
        name = proc._confinement.name
        engine, _ = container_engine.find_engine()
        listing = subprocess.run(engine.command("ps", "--all", "--quiet", "--filter", f"name=^{name}$"),
                                 capture_output=True, text=True, check=True)  # fmt: skip
        assert listing.stdout.strip() == "", f"container {name} still exists"
    # Whoever is left would still hold the write end of stdout: EOF proves there is nobody.
    assert read_until_eof(proc.stdout.fileno(), limit=1 << 24) is not None
    assert select.select([proc.stdout.fileno()], [], [], 5)[0], "stdout never reached EOF"
    assert os.read(proc.stdout.fileno(), 1 << 20) == b""
