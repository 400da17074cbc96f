"""The native launcher (sandbox/native/launch.c) and the Python set-up it replaces start the same sandbox:
born in its cgroups, limited, as the sandbox uid, with the bot's pipes on 0 and 1 only."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sandbox import Limits, native, start
from tests.sandbox.conftest import HOSTILE, assert_nothing_left, read_until


@pytest.fixture(params=["native", "python"])
def set_up_by(request, monkeypatch):
    if request.param == "native":
        if native.launcher_binary() is None:
            pytest.skip("no C compiler here: the Python set-up is used (tested by the other parameter)")
    else:
        monkeypatch.setattr(native, "launcher_binary", lambda: None)
    return request.param


@pytest.mark.parametrize("backend_name", ["bwrap", "unsafe"])
def test_both_set_ups_start_a_limited_bot_in_its_cgroups(tmp_path, set_up_by, backend_name):
    for name in ("echo.py", "closer.py"):
        (tmp_path / name).write_text((HOSTILE / name).read_text())
    limits = Limits(open_files=40, wall_seconds=30)
    proc = start(["python3", "echo.py"], tmp_path, limits, backend=backend_name, allow_unsafe=True)
    assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
    assert f"Max open files            {limits.open_files}" in Path(f"/proc/{proc.pid}/limits").read_text()
    for folder in proc._confinement._cgroups.dirs:
        assert proc.pid in {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}, folder
    if proc.sandbox_uid is not None:
        assert Path(f"/proc/{proc.pid}/status").read_text().count(f"\t{proc.sandbox_uid}") >= 4
    proc.stdin.write(b"ping\n")
    assert read_until(proc, lines=1) == b"ping\n"
    report = proc.finish(grace_seconds=5)
    assert report.outcome == "ok"
    assert_nothing_left(proc, report)
    proc.close()


def test_a_closed_stdout_is_seen_at_once_with_either_set_up(tmp_path, set_up_by):
    (tmp_path / "closer.py").write_text((HOSTILE / "closer.py").read_text())
    with start(["python3", "closer.py", "stdout"], tmp_path, Limits(wall_seconds=30)) as proc:
        assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
        proc.stdin.write(b"close now\n")
        assert read_until(proc, seconds=10) == b""
        assert proc.poll() is None


def test_the_native_launcher_is_built_where_a_compiler_exists():
    if not any(shutil.which(name) for name in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler here")
    binary = native.launcher_binary()
    assert binary is not None and os.access(binary, os.X_OK)
    assert not os.stat(binary).st_mode & 0o022


@pytest.mark.parametrize("backend_name", ["bwrap", "unsafe"])
def test_the_bot_inherits_no_descriptor_but_its_three_pipes(tmp_path, set_up_by, backend_name):
    spare = [os.open("/dev/null", os.O_RDONLY) for _ in range(12)]  # push the sandbox's own descriptors around
    for fd in spare[::3]:
        os.set_inheritable(fd, True)  # descriptors the worker left inheritable must not reach the bot either
    try:
        for fd in spare[1::2]:
            os.close(fd)
        script = "import os; print(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))"
        with start(["python3", "-c", script], tmp_path, Limits(wall_seconds=30), backend=backend_name,
                   allow_unsafe=True) as proc:  # fmt: skip
            assert read_until(proc, lines=1) == b"[0, 1, 2, 3]\n"  # 3: the listing's own
    finally:
        for fd in spare[::2]:
            os.close(fd)


def test_threads_asking_for_the_launcher_at_once_build_it_once_and_all_get_it(tmp_path, monkeypatch):
    import threading

    from sandbox import state

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here")
    monkeypatch.setenv("KOZYR_SANDBOX_STATE_DIR", str(tmp_path / "state"))
    state.state_dir.cache_clear()
    native._launcher_binary.cache_clear()
    try:
        barrier = threading.Barrier(4)
        answers: list[str | None] = []

        def ask():
            barrier.wait()
            answers.append(native.launcher_binary())

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert len(answers) == 4 and len(set(answers)) == 1 and answers[0] is not None, answers
        assert os.access(answers[0], os.X_OK)
        assert sorted(p.name for p in (tmp_path / "state" / "bin").iterdir()) == [Path(answers[0]).name]
    finally:
        state.state_dir.cache_clear()
        native._launcher_binary.cache_clear()
