"""The sandbox's pure parts: limits, verdicts, report shape, command lines, and the refusals."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from sandbox import OUTCOMES, Limits, SandboxError, start
from sandbox.backends.bwrap import build_command, device_folder, launch_argv, resolve_in_sandbox
from sandbox.environment import bot_environment
from sandbox.process import decode_shell_status
from sandbox.report import Ending, classify
from tests.sandbox.conftest import HOSTILE, assert_nothing_left, read_until
from tests.support.polling import wait_until


# -- Limits -------------------------------------------------------------------------------------------
def test_it_has_sane_defaults():
    limits = Limits()
    assert limits.memory_mb == 256 and limits.processes == 32 and limits.tmp_mb == 16
    assert limits.to_dict()["cpus"] == 1.0


@pytest.mark.parametrize(
    ("field", "value"),
    [("memory_mb", 8), ("memory_mb", 256 << 20), ("memory_mb", "256"), ("memory_mb", 256.0), ("processes", 0),
     ("processes", True), ("cpu_seconds", 0), ("cpu_seconds", float("nan")), ("wall_seconds", -1),
     ("open_files", 3), ("file_size_mb", -1), ("tmp_mb", 0), ("cpus", 0), ("cpus", None)],
)  # fmt: skip
def test_it_rejects_a_bad_limit_with_a_message_naming_it(field, value):
    with pytest.raises(SandboxError, match=rf"Limits\.{field} must be .* got {value!r}"):
        Limits(**{field: value})


def test_it_is_frozen():
    with pytest.raises(AttributeError):
        Limits().memory_mb = 1


# -- verdicts -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ending", "outcome"),
    [
        (Ending(exit_code=0), "ok"),
        (Ending(exit_code=None, signal=9, killed_at_finish=True), "ok"),
        (Ending(exit_code=3), "runtime_error"),
        (Ending(signal=signal.SIGSEGV, oom_kills=0), "signal"),
        (Ending(signal=9, oom_kills=1, memory_limit_mb=64), "out_of_memory"),
        (Ending(exit_code=1, oom_kills=None, peak_memory_mb=60, memory_limit_mb=64), "out_of_memory"),
        (Ending(exit_code=1, oom_kills=None, peak_memory_mb=20, memory_limit_mb=64), "runtime_error"),
        (Ending(signal=signal.SIGXCPU), "cpu_time"),
        (Ending(signal=9, cpu_seconds=2.0, cpu_limit=1.5, oom_kills=0), "cpu_time"),
        (Ending(signal=9, killed_for="cpu_time"), "cpu_time"),
        (Ending(signal=9, killed_for="wall_time", oom_kills=1), "wall_time"),
        (Ending(signal=9, killed_at_finish=True, output_truncated=True), "output_limit"),
        (Ending(setup_failed=True, exit_code=1), "sandbox_failure"),
        (Ending(exit_code=0, cpu_seconds=None), "ok"),
    ],
)
def test_it_blames_the_first_cause_that_applies(ending, outcome):
    assert classify(ending)[0] == outcome
    assert outcome in OUTCOMES


def test_it_reads_launcher_statuses_the_shell_way():
    assert decode_shell_status(0) == (0, None)
    assert decode_shell_status(3 << 8) == (3, None)
    assert decode_shell_status((128 + 9) << 8) == (None, 9)
    assert decode_shell_status(signal.SIGKILL) == (None, signal.SIGKILL)


def test_the_report_is_json_with_every_promised_field(tmp_path):
    (tmp_path / "echo.py").write_text((HOSTILE / "echo.py").read_text())
    proc = start(["python3", "echo.py"], tmp_path, Limits(wall_seconds=30))
    assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
    proc.stdin.write(b"hello\n")
    assert read_until(proc, lines=1) == b"hello\n"
    report = proc.finish()
    assert proc.finish() is report  # idempotent
    data = json.loads(json.dumps(report.to_dict()))
    for key in ("outcome", "exit_code", "signal", "cpu_seconds", "wall_seconds", "peak_memory_mb",
                "output_truncated", "limits", "guarantees_weakened", "backend", "backend_version",
                "startup_seconds"):  # fmt: skip
        assert key in data
    assert data["outcome"] == "ok" and data["exit_code"] == 0 and data["backend"] == "bwrap"
    assert data["backend_version"].startswith("bubblewrap")
    assert data["limits"]["memory_mb"] == {"value": 256, "mechanism": data["limits"]["memory_mb"]["mechanism"]}
    assert all("mechanism" in entry for entry in data["limits"].values())
    assert 0 < data["startup_seconds"] < data["wall_seconds"]
    assert proc.poll() == 0
    assert_nothing_left(proc, report)
    proc.close()


# -- refusals -----------------------------------------------------------------------------------------
def test_it_refuses_unsafe_unless_explicitly_allowed(tmp_path):
    with pytest.raises(SandboxError, match="allow_unsafe=True"):
        start(["python3", "-c", "print(1)"], tmp_path, backend="unsafe")


def test_it_refuses_unknown_backends_bad_commands_and_missing_folders(tmp_path):
    with pytest.raises(SandboxError, match="unknown sandbox backend 'lxc'"):
        start(["true"], tmp_path, backend="lxc")
    with pytest.raises(SandboxError, match="non-empty list"):
        start([], tmp_path)
    with pytest.raises(SandboxError, match=r"must be a sandbox\.Limits"):
        start(["true"], tmp_path, {"memory_mb": 1})
    with pytest.raises(SandboxError, match="does not exist"):
        start(["true"], tmp_path / "missing")
    with pytest.raises(SandboxError, match="cannot be run inside the sandbox"):
        start(["no-such-interpreter"], tmp_path)
    with pytest.raises(SandboxError, match="not a plain identifier"):
        start(["true"], tmp_path, env={"BAD NAME": "x"})


def test_it_builds_the_environment_from_nothing_but_the_callers_extras():
    env = bot_environment({"PYTHONUNBUFFERED": "1"})
    assert env == {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp",
                   "PYTHONUNBUFFERED": "1"}  # fmt: skip
    with pytest.raises(SandboxError, match="without NUL"):
        bot_environment({"X": "a\0b"})


def test_it_resolves_commands_as_the_sandbox_will(tmp_path):
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(tmp_path / "run.sh", 0o755)
    assert resolve_in_sandbox("python3", tmp_path).name.startswith("python3")
    assert resolve_in_sandbox("/bot/run.sh", tmp_path) == tmp_path / "run.sh"
    assert resolve_in_sandbox("./run.sh", tmp_path) == tmp_path / "run.sh"
    with pytest.raises(SandboxError):
        resolve_in_sandbox("/root/.pyenv/shims/python3", tmp_path)


def test_the_bwrap_command_line_has_every_layer(tmp_path):
    argv = build_command(["python3", "bot.py"], tmp_path, Limits(tmp_mb=8), seccomp_fd=7, passwd_fd=8, group_fd=9)
    text = " ".join(argv)
    for flag in ("--unshare-all --unshare-user --disable-userns", "--die-with-parent", "--new-session",
                 "--as-pid-1", "--seccomp 7", f"--size {8 << 20} --tmpfs /tmp", f"--ro-bind {tmp_path} /bot",
                 "--chdir /bot", "--remount-ro /", "--proc /proc", "/proc/meminfo", "/proc/sys/fs"):  # fmt: skip
        assert flag in text
    devices = device_folder()
    assert (f"--dev-bind {devices} /dev" if devices else "--dev-bind /dev/null /dev/null") in text
    assert "--share-net" not in argv and "--bind" not in argv and "--dev" not in argv
    assert "/dev/ptmx" not in text and "/dev/pts" not in text and "/dev/tty" not in text
    assert argv[-2:] == ["--seccomp", "7"]


def test_ps_shows_no_path_of_the_bots_files(tmp_path):
    argv = launch_argv("/usr/bin/bwrap", ["python3", "bot.py"])
    assert argv[:3] == ["/usr/bin/bwrap", "--args", "5"]
    assert argv[-2:] == ["python3", "bot.py"]
    assert not any("kozyr-sandbox" in part or "/run" in part for part in argv)


# -- docker: tests/sandbox/test_container_units.py -------------------------------------------------


# -- unsafe -------------------------------------------------------------------------------------------
def test_unsafe_still_kills_the_whole_tree_including_setsid_daemons_through_its_cgroup(tmp_path):
    (tmp_path / "daemon.py").write_text((HOSTILE / "daemon.py").read_text())
    proc = start([sys.executable, "daemon.py"], tmp_path, Limits(wall_seconds=30), backend="unsafe",
                 allow_unsafe=True, use_cgroups=True)  # fmt: skip
    assert b"ready" in read_until(proc, lines=1)
    report = proc.finish(grace_seconds=0)
    assert report.backend == "unsafe" and report.killed_at_finish
    assert any("no isolation" in text for text in report.guarantees_weakened)
    assert_nothing_left(proc, report)
    proc.close()


def test_unsafe_without_cgroups_kills_its_process_tree_and_says_daemons_may_escape(tmp_path):
    tree = "import os, time\nos.fork()\nos.fork()\nprint('ready', flush=True)\ntime.sleep(60)\n"
    proc = start([sys.executable, "-c", tree], tmp_path, Limits(wall_seconds=30), backend="unsafe",
                 allow_unsafe=True, use_cgroups=False)  # fmt: skip
    assert b"ready" in read_until(proc, lines=1)
    report = proc.finish(grace_seconds=0)
    assert any("leave the session are not tracked" in text for text in report.guarantees_weakened)
    assert_nothing_left(proc, report)
    proc.close()


def test_unsafe_reports_a_runtime_error(tmp_path):
    with start([sys.executable, "-c", "raise SystemExit(3)"], tmp_path, backend="unsafe", allow_unsafe=True) as proc:
        assert read_until(proc) == b""
    report = proc.finish()
    assert report.outcome == "runtime_error" and report.exit_code == 3


def test_unsafe_refuses_a_missing_program(tmp_path):
    with pytest.raises(SandboxError, match="could not start"):
        start([str(Path(tmp_path, "nothing"))], tmp_path, backend="unsafe", allow_unsafe=True)


def test_finish_still_kills_the_bot_when_descriptors_pass_1024(tmp_path):
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), max(hard, 2048)))
    spare = []
    try:
        while True:  # push the next descriptors (the bot's pipes, its pidfd) past select()'s limit
            fd = os.open("/dev/null", os.O_RDONLY)
            spare.append(fd)
            if fd > 1100:
                break
        (tmp_path / "sleepy.py").write_text("import time\ntime.sleep(60)\n")
        proc = start(["python3", "sleepy.py"], tmp_path, Limits(), backend="unsafe", allow_unsafe=True)
        report = proc.finish(grace_seconds=0.2)
        assert proc.poll() is not None and report.killed_at_finish
    finally:
        for fd in spare:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# -- scripts whose interpreter is missing -------------------------------------------------------------
@pytest.mark.parametrize("backend_name", ["bwrap", "unsafe"])
@pytest.mark.parametrize(
    ("first_line", "message"),
    [(b"#!/usr/bin/perl6-nowhere\n", r"interpreter '/usr/bin/perl6-nowhere' does not exist"),
     (b"#!/usr/bin/env raku-nowhere\n", r"interpreter 'raku-nowhere' does not exist"),
     (b"#!/usr/bin/env python3\r\n", r"interpreter 'python3\\r' does not exist.*CRLF"),
     (b"#!/usr/bin/python3\r\n", r"interpreter '/usr/bin/python3\\r' does not exist.*CRLF")],
)  # fmt: skip
def test_a_script_whose_interpreter_is_missing_is_a_launch_failure_naming_it(tmp_path, backend_name, first_line,
                                                                            message):  # fmt: skip
    (tmp_path / "main").write_bytes(first_line + b"print('hello')\n")
    os.chmod(tmp_path / "main", 0o755)
    with pytest.raises(SandboxError, match=rf"\./main: its '#!' {message}"):
        start(["./main"], tmp_path, Limits(wall_seconds=10), backend=backend_name, allow_unsafe=True)


@pytest.mark.parametrize("first_line", [b"#!/usr/bin/env python3\n", b"#!/usr/bin/python3 -u\n",
                                        b"#!/usr/bin/env -S python3 -u\n", b"print('hello')\n"])  # fmt: skip
def test_a_script_whose_interpreter_exists_starts(tmp_path, first_line):
    (tmp_path / "main").write_bytes(first_line + b"print('hello')\n" if first_line.startswith(b"#!") else
                                    b"#!/usr/bin/python3\n" + first_line)  # fmt: skip
    os.chmod(tmp_path / "main", 0o755)
    with start(["./main"], tmp_path, Limits(wall_seconds=10)) as proc:
        assert read_until(proc, lines=1) == b"hello\n"


def test_unsafe_is_born_in_its_cgroups_as_the_workers_child(tmp_path):
    from sandbox import cgroups, launcher

    if cgroups.detect().v2_home is None or not launcher.clone3_available():
        pytest.skip("no cgroup v2 or no clone3 here")
    (tmp_path / "echo.py").write_text((HOSTILE / "echo.py").read_text())
    with start(["python3", "echo.py"], tmp_path, Limits(wall_seconds=30), backend="unsafe", allow_unsafe=True,
               use_cgroups=True) as proc:  # fmt: skip
        assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
        assert proc.pid != proc._popen.pid  # cloned into its v2 group (CLONE_INTO_CGROUP), not migrated
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines())
        assert int(status["PPid"]) == os.getpid()
        for folder in proc._confinement._cgroups.dirs:
            assert proc.pid in {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}, folder


# -- uid leases ---------------------------------------------------------------------------------------
def test_a_uid_is_swept_only_when_a_previous_holder_may_have_left_something(tmp_path, monkeypatch):
    from sandbox import state, uids

    monkeypatch.setenv("KOZYR_SANDBOX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("KOZYR_SANDBOX_UIDS", "61000-61000")
    state.state_dir.cache_clear()
    swept: list[int] = []
    monkeypatch.setattr(uids, "kill_all_processes_of", lambda uid: swept.append(uid) or True)
    try:
        lease = uids.lease_uid()  # never leased: nothing to sweep
        assert (lease.uid, swept) == (61000, [])
        lease.release(clean=True)
        uids.lease_uid().release(clean=False)  # left clean by the last holder: nothing to sweep
        assert swept == []
        lease = uids.lease_uid()  # the last holder could not prove the uid empty
        assert swept == [61000]
        lease.release()
    finally:
        state.state_dir.cache_clear()


@pytest.mark.skipif(os.geteuid() != 0, reason="running a process as another uid needs a root worker")
def test_what_a_crashed_holder_left_running_as_its_uid_is_killed_before_the_uid_is_used_again(tmp_path, monkeypatch):
    import subprocess

    from sandbox import state, uids

    monkeypatch.setenv("KOZYR_SANDBOX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("KOZYR_SANDBOX_UIDS", "61001-61001")
    state.state_dir.cache_clear()
    try:
        uids.lease_uid().release(clean=False)  # the holder died mid-run: its lock says the uid is in use
        # What its bot left: a process of that uid in a session of its own, no child of anything of ours.
        left = subprocess.Popen(["/bin/sleep", "600"], user=61001, group=61001, extra_groups=[], cwd="/",
                                start_new_session=True)  # fmt: skip
        try:
            assert uids.processes_of(61001) == [left.pid]
            lease = uids.lease_uid()
            assert lease.uid == 61001 and uids.processes_of(61001) == []
            assert left.wait(timeout=10) == -signal.SIGKILL
            lease.release()
        finally:
            left.kill()
            left.wait()
    finally:
        state.state_dir.cache_clear()


def test_a_held_uid_is_passed_over_and_a_full_range_says_so(tmp_path, monkeypatch):
    from sandbox import state, uids
    from sandbox.errors import SandboxError

    monkeypatch.setenv("KOZYR_SANDBOX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("KOZYR_SANDBOX_UIDS", "61002-61003")
    state.state_dir.cache_clear()
    try:
        first, second = uids.lease_uid(), uids.lease_uid()
        assert {first.uid, second.uid} == {61002, 61003}
        with pytest.raises(SandboxError, match=r"all 2 sandbox uids \(61002-61003\) are in use"):
            uids.lease_uid()
        second.release()
        third = uids.lease_uid()
        assert third.uid == second.uid
        first.release()
        third.release()
    finally:
        state.state_dir.cache_clear()


@pytest.mark.parametrize(("setting", "why"), [
    ("60000", "must look like 60000-60999"),
    ("a-b", "must look like 60000-60999"),
    ("0-999", "must be an increasing range of unprivileged uids"),
    ("61000-60000", "must be an increasing range of unprivileged uids"),
])  # fmt: skip
def test_a_malformed_uid_range_is_refused_naming_the_setting(monkeypatch, setting, why):
    from sandbox import uids
    from sandbox.errors import SandboxError

    monkeypatch.setenv("KOZYR_SANDBOX_UIDS", setting)
    with pytest.raises(SandboxError, match=f"KOZYR_SANDBOX_UIDS {why}, got '{setting}'"):
        uids.uid_range()


# -- the shared watchdog ------------------------------------------------------------------------------
def test_one_watchdog_thread_watches_every_bot_and_survives_a_failing_check(capsys):
    import threading
    import time

    from sandbox.watchdog import Watchdog

    class Bot:
        def __init__(self, checks_until_done: int, broken: bool = False):
            self.checks, self.left, self.broken = 0, checks_until_done, broken

        def check_limits(self) -> bool:
            self.checks += 1
            if self.broken:
                raise OSError("cpu.stat vanished")
            self.left -= 1
            return self.left <= 0

    watchdog = Watchdog()
    ending, broken, forgotten = Bot(2), Bot(10**6, broken=True), Bot(10**6)
    for bot in (ending, broken, forgotten):
        watchdog.watch(bot)
    deadline = time.monotonic() + 5
    while (ending.checks < 2 or broken.checks < 3) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ending.checks == 2 and broken.checks >= 3  # the failing check did not stop the others' watch
    assert "cpu.stat vanished" in capsys.readouterr().err
    watchdog.forget(forgotten)
    checked, rounds = forgotten.checks, broken.checks
    wait_until(lambda: broken.checks >= rounds + 3, 5, "three more rounds of the watchdog")
    assert forgotten.checks == checked and ending.checks == 2
    assert watchdog.watching() == 1  # only the broken one is left
    assert sum(thread.name == "sandbox-watchdog" and thread.is_alive() for thread in threading.enumerate()) >= 1
    watchdog.forget(broken)


def test_a_private_watchdog_ends_its_thread_with_its_last_bot():
    import time

    from sandbox.watchdog import Watchdog

    class Ending:
        def check_limits(self) -> bool:
            return True

    watchdog = Watchdog(shared=False)
    watchdog.watch(Ending())
    thread = watchdog._thread
    thread.join(timeout=5)
    assert not thread.is_alive() and watchdog.watching() == 0
    watchdog.watch(Ending())  # a new bot gets a new thread
    deadline = time.monotonic() + 5
    while watchdog.watching() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watchdog.watching() == 0


# -- /dev as one bind -----------------------------------------------------------------------------------
@pytest.mark.skipif(os.geteuid() != 0, reason="device nodes need a root worker")
def test_the_device_folder_is_built_once_checked_and_never_taken_from_under_another_worker(tmp_path, monkeypatch):
    import time

    from sandbox import state
    from sandbox.backends import bwrap

    monkeypatch.setenv("KOZYR_SANDBOX_STATE_DIR", str(tmp_path / "state"))
    state.state_dir.cache_clear()
    try:
        folder = bwrap.device_folder()
        if folder is None and "nodev" in Path("/proc/self/mountinfo").read_text():
            pytest.skip("the temporary folder may be on a filesystem mounted nodev: no device nodes there")
        assert folder is not None and folder.parent == tmp_path / "state"
        assert sorted(os.listdir(folder)) == sorted([*bwrap.DEVICES, "fd", "stdin", "stdout", "stderr"])
        assert os.stat(folder).st_atime > time.time() + 50 * 365 * 24 * 3600  # listing it never moves it
        assert bwrap.device_folder() == folder  # found, not rebuilt
        os.chmod(folder / "null", 0o777)  # tampered (or another version's): not ours to repair while in use
        assert bwrap.device_folder() is None
        assert (folder / "null").exists() and [path.name for path in folder.parent.glob(".dev.*")] == []
    finally:
        state.state_dir.cache_clear()
