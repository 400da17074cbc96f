"""The bwrap launcher is born inside every cgroup of its run, limited and as the sandbox uid, and is the
worker's own child — whether it was cloned into its v2 group or (no clone3) joined it the slow way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox import Limits, cgroups, launcher
from tests.sandbox.conftest import read_until

pytestmark = pytest.mark.sandbox_backends("bwrap", reason="tests bwrap's own launcher")


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines)


def _check_launcher(proc, limits: Limits) -> None:
    assert read_until(proc, lines=1).startswith(b'{"type": "ready"}')
    status = _status(proc.pid)
    assert int(status["PPid"]) == os.getpid()  # our child: wait4 and --die-with-parent see the bot
    if proc.sandbox_uid is not None:
        assert status["Uid"].split() == [str(proc.sandbox_uid)] * 4
    memberships = Path(f"/proc/{proc.pid}/cgroup").read_text()
    run_groups = proc._confinement._cgroups.dirs
    assert run_groups, "this machine has cgroups: the suite needs them"
    for folder in run_groups:
        assert proc.pid in {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}, folder
        assert folder.name in memberships
    limits_text = Path(f"/proc/{proc.pid}/limits").read_text()
    assert f"Max open files            {limits.open_files}" in limits_text
    assert "Max core file size        0" in limits_text


def test_the_launcher_is_cloned_into_its_groups_with_its_limits(launch):
    if cgroups.detect().v2_home is None or not launcher.clone3_available():
        pytest.skip("no cgroup v2 or no clone3 here")
    limits = Limits(open_files=40, wall_seconds=30)
    proc = launch("echo.py", limits=limits)
    _check_launcher(proc, limits)
    assert proc.pid != proc._popen.pid  # the forked child cloned the launcher and left


def test_without_clone3_the_child_joins_and_becomes_the_launcher(launch, monkeypatch):
    monkeypatch.setattr(launcher, "clone3_available", lambda: False)
    limits = Limits(open_files=48, wall_seconds=30)
    proc = launch("echo.py", limits=limits)
    _check_launcher(proc, limits)
    assert proc.pid == proc._popen.pid


@pytest.fixture
def worker_descriptors():
    """The worker holding more descriptors than a bot may (a busy worker's database, broker and log files): every
    number below 64 taken, so the forked child has no free one below that either."""
    held: list[int] = []
    while not held or held[-1] < 64:  # open() gives the lowest free number
        held.append(os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
    yield held
    for fd in held:
        os.close(fd)


def test_without_clone3_a_worker_with_more_descriptors_than_the_bot_may_open_still_starts_it(
    launch, monkeypatch, worker_descriptors
):
    monkeypatch.setattr(launcher, "clone3_available", lambda: False)
    limits = Limits(open_files=16, wall_seconds=30)
    assert limits.open_files < max(worker_descriptors)
    proc = launch("echo.py", limits=limits)
    _check_launcher(proc, limits)


class _Clone3Refused:
    """libc as a kernel older than 5.7 (or a seccomp profile that answers ENOSYS) shows it: no clone3."""

    def __init__(self, real):
        self._real = real

    def syscall(self, number, *args):
        return -1 if number == launcher.SYS_CLONE3 else self._real.syscall(number, *args)


def test_a_clone3_refused_at_run_time_joins_the_slow_way_whatever_the_worker_holds(
    launch, monkeypatch, worker_descriptors
):
    if cgroups.detect().v2_home is None:
        pytest.skip("no cgroup v2 here")
    monkeypatch.setattr(launcher.native, "launcher_binary", lambda: None)  # the Python set-up runs the syscall
    monkeypatch.setattr(launcher, "_libc", _Clone3Refused(launcher._libc))
    limits = Limits(open_files=16, wall_seconds=30)
    proc = launch("echo.py", limits=limits)
    _check_launcher(proc, limits)
    assert proc.pid == proc._popen.pid  # no launcher was cloned: the forked child became it
