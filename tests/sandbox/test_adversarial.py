"""Hostile bots against the sandbox: each test asserts what the worker observes (the report, and that
nothing of the bot is left running). A test fails when isolation is weaker than docs/sandbox.md states."""

from __future__ import annotations

import errno
import os
import select
import socket
import subprocess
import time

import psutil
import pytest

from sandbox import Limits
from tests.sandbox.conftest import finish, read_until, run_to_end
from tests.support.polling import holds_for, wait_until

SECRET = "kozyr-secret-6f1d0c"


def tasks_of(uid: int) -> int:
    return sum(p.info["num_threads"] for p in psutil.process_iter(["uids", "num_threads"])
               if p.info["uids"] and p.info["uids"].real == uid)  # fmt: skip


def stderr_of(proc):
    """A function returning everything the bot wrote to stderr so far (read without blocking)."""
    said = bytearray()

    def read() -> bytes:
        while select.select([proc.stderr], [], [], 0)[0] and (chunk := os.read(proc.stderr.fileno(), 65536)):
            said.extend(chunk)
        return bytes(said)

    return read


def test_it_stops_a_fork_bomb_at_the_process_limit_and_leaves_nothing(launch):
    proc = launch("fork_bomb.py", limits=Limits(processes=16, wall_seconds=20))
    assert b"ready" in read_until(proc, lines=1)
    stderr = stderr_of(proc)
    wait_until(lambda: b"fork refused" in stderr(), 20, "the fork bomb to be refused forks (its process limit)")
    if proc.sandbox_uid is not None:
        assert tasks_of(proc.sandbox_uid) <= 16 + 1  # the bot's tasks + bwrap's launcher
    assert proc.poll() is None
    run = finish(proc, grace=0)
    assert run.report.outcome == "ok" and run.report.killed_at_finish


def test_it_stops_a_thread_bomb_at_the_process_limit(launch):
    proc = launch("thread_bomb.py", limits=Limits(processes=24, wall_seconds=20))
    result = run_to_end_json(proc, lines=1)
    assert result["error"] is not None
    assert result["started"] < 24
    run = finish(proc, grace=0)
    assert run.report.outcome == "ok"


def run_to_end_json(proc, lines=1) -> dict:
    import json

    data = read_until(proc, lines=lines, seconds=20)
    assert data, "the bot said nothing"
    return json.loads(data.decode().splitlines()[0])


def test_it_kills_a_memory_hog_and_reports_out_of_memory(launch):
    proc = launch("memory_hog.py", limits=Limits(memory_mb=64, wall_seconds=20))
    run = run_to_end(proc)
    assert run.report.outcome == "out_of_memory", str(run.report.to_dict())
    if run.report.peak_memory_mb is not None:
        assert run.report.peak_memory_mb <= 64 + 1


@pytest.mark.sandbox_backends("bwrap", reason="the rlimit fallback (use_cgroups=False) is bwrap's; a container's "
                               "memory is always limited by the engine's cgroup")  # fmt: skip
def test_it_reports_out_of_memory_under_the_rlimit_fallback_too(launch):
    proc = launch("memory_hog.py", limits=Limits(memory_mb=64, wall_seconds=20), use_cgroups=False)
    run = run_to_end(proc)
    assert run.report.outcome == "out_of_memory", str(run.report.to_dict())
    assert run.report.limits["memory_mb"]["mechanism"].startswith("rlimit")
    assert any("memory is limited per process" in text for text in run.report.guarantees_weakened)


def test_it_stops_a_cpu_spinner_while_a_neighbour_still_answers_promptly(launch):
    spinner = launch("cpu_spin.py", limits=Limits(cpu_seconds=1.5, wall_seconds=20))
    assert b"ready" in read_until(spinner, lines=1)
    neighbour = launch("echo.py")
    assert b"ready" in read_until(neighbour, lines=1)
    slowest = 0.0
    for index in range(20):
        began = time.monotonic()
        neighbour.stdin.write(b'{"n": %d}\n' % index)
        assert read_until(neighbour, lines=1, seconds=5) == b'{"n": %d}\n' % index
        slowest = max(slowest, time.monotonic() - began)
        time.sleep(0.02)
    assert slowest < 0.25
    run = finish(spinner, grace=10)
    assert run.report.outcome == "cpu_time", run.report.to_dict()
    assert 1.5 <= run.report.cpu_seconds < 3.0
    assert finish(neighbour).report.outcome == "ok"


def test_it_kills_a_bot_that_never_answers_at_the_wall_limit(launch):
    proc = launch("silent.py", limits=Limits(wall_seconds=1.0))
    began = time.monotonic()
    assert read_until(proc, seconds=10) == b""  # EOF: killed
    assert time.monotonic() - began < 5
    run = finish(proc)
    assert run.report.outcome == "wall_time"
    assert 1.0 <= run.report.wall_seconds < 3.0


def test_it_gives_no_way_out_to_the_network(launch):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        proc = launch("network.py", str(port))
        run = run_to_end(proc)
    result = run.json()
    attempts = result["results"]
    assert all(item["result"] != "succeeded" for item in attempts.values()), attempts
    # No IP socket can even be made (they would move machine-wide counters: test_covert_channels), and the
    # namespace has no interface but its own loopback in any case.
    for name in ("postgres", "redis", "host_listener", "outside", "outside_v6", "udp", "netlink", "packet", "vsock"):
        assert attempts[name]["result"] == f"OSError:{errno.EAFNOSUPPORT}", attempts[name]
    assert attempts["outside"]["seconds"] < 0.5
    assert attempts["dns"]["seconds"] < 2
    assert result["interfaces"] == ["lo"]


def test_it_hides_the_workers_environment_and_files(launch, backend, monkeypatch, tmp_path):
    monkeypatch.setenv("KOZYR_TEST_SECRET", SECRET)
    secret_file = tmp_path / "outside" / "secret.txt"
    secret_file.parent.mkdir()
    secret_file.write_text(SECRET)
    os.chmod(tmp_path, 0o755)
    os.chmod(secret_file.parent, 0o755)
    os.chmod(secret_file, 0o644)  # readable by anyone on the host: only the mount namespace hides it
    proc = launch("snoop.py", str(secret_file), str(secret_file.parent), os.getcwd())
    run = run_to_end(proc)
    assert SECRET not in run.stdout.decode()
    result = run.json()
    assert set(result["environ"]) <= {"PATH", "HOME", "LANG", "TMPDIR", "PYTHONUNBUFFERED", "PWD", "HOSTNAME",
                                      "LC_CTYPE"}  # fmt: skip
    assert result["reads"][str(secret_file)] == f"error {errno.ENOENT}"
    assert result["reads"]["/etc/shadow"] == f"error {errno.ENOENT}"
    for host_path in ("/root", "/home", "/work", "/var", "/run"):
        own_run = ([".containerenv", "kozyr-pipes"], ["kozyr-pipes"])
        if backend == "docker" and host_path == "/run" and result["reads"][host_path] in own_run:
            continue  # the bot's own FIFOs (and Podman's empty marker file), in a /run of the container's own
        assert result["reads"][host_path] == f"error {errno.ENOENT}", host_path
    assert "KOZYR_TEST_SECRET" not in result["proc_1_environ"]
    if backend == "bwrap":
        assert result["root"] == sorted(["bin", "bot", "dev", "etc", "lib", "lib64", "proc", "sbin", "tmp", "usr"])
        assert result["uid"] == proc.sandbox_uid
    else:  # the bot runtime image (sandbox/image/rootfs.py) plus the engine's /sys, /run (the bot's pipes) and
        # Docker's empty marker file
        assert set(result["root"]) - {"run", ".dockerenv"} == {"bin", "bot", "dev", "etc", "lib", "lib64", "proc",
                                                               "sbin", "sys", "tmp", "usr"}  # fmt: skip
        assert result["uid"] == (65534 if proc.sandbox_uid is None else proc.sandbox_uid)


def test_it_keeps_bots_apart(launch, tmp_path):
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    (other_dir / "strategy.txt").write_text(SECRET)
    (other_dir / "echo.py").write_text((launch.__globals__["HOSTILE"] / "echo.py").read_text())
    other = launch("echo.py", folder=other_dir)
    assert b"ready" in read_until(other, lines=1)  # running, its files in place
    staged_copies = [str(path) for path in __import__("glob").glob("/run/kozyr-sandbox/runs/*/bot/strategy.txt")]
    snoop = launch("snoop.py", str(other_dir / "strategy.txt"), *staged_copies, f"/proc/{other.pid}/environ")
    run = run_to_end(snoop)
    assert SECRET not in run.stdout.decode()
    result = run.json()
    assert result["pids"] == [1]  # only its own pid namespace, where the bot is pid 1
    assert other.poll() is None
    assert finish(other, grace=0).report.outcome == "ok"


def test_each_bot_runs_as_a_uid_of_its_own(launch):
    first, second = launch("silent.py"), launch("silent.py")
    assert None not in (first.sandbox_uid, second.sandbox_uid)
    assert first.sandbox_uid != second.sandbox_uid


def test_it_refuses_writes_to_the_bots_code_and_to_system_paths(launch, bot_dir):
    before = (bot_dir / "writer.py").read_bytes()
    run = run_to_end(launch("writer.py"))
    result = run.json()
    refused = {key: value for key, value in result.items() if key != "/tmp/ok"}
    assert all(value.startswith("error") for value in refused.values()), result
    assert result["/tmp/ok"] == "written"
    assert (bot_dir / "writer.py").read_bytes() == before
    assert not (bot_dir / "new.py").exists()
    assert not os.path.exists("/usr/bin/kozyr")


def test_it_stops_filling_tmp_at_its_size(launch):
    run = run_to_end(launch("tmp_fill.py", limits=Limits(tmp_mb=8, file_size_mb=4, memory_mb=128)))
    result = run.json()
    assert result["errno"] == errno.ENOSPC
    assert result["written_mb"] <= 8
    assert run.report.outcome == "ok"


def test_it_stays_killable_under_an_endless_line(launch):
    proc = launch("flood.py", "endless-line")
    received = read_until(proc, limit=1 << 20, seconds=10)
    assert len(received) == 1 << 20 and b"\n" not in received
    proc.mark_output_truncated()
    run = finish(proc, received, grace=0)
    assert run.report.outcome == "output_limit"
    assert run.report.to_dict()["output_truncated"] is True


def test_it_stays_killable_under_a_stdout_flood(launch):
    proc = launch("flood.py", "lines")
    received = read_until(proc, limit=1 << 20, seconds=10)
    assert len(received) == 1 << 20
    proc.mark_output_truncated()
    assert finish(proc, received, grace=0.2).report.outcome == "output_limit"


def test_it_kills_a_double_forked_setsid_daemon(launch, backend):
    proc = launch("daemon.py")
    assert b"ready" in read_until(proc, lines=1)
    if proc.sandbox_uid is not None:
        expected = 3 if backend == "bwrap" else 2  # (bwrap's launcher,) bot, daemon
        uid = proc.sandbox_uid
        wait_until(lambda: tasks_of(uid) >= expected, 10, f"{expected} tasks of the bot's uid (the daemon forked)")
    finish(proc, grace=0)  # asserts EOF on stdout: the daemon held it open, so it is dead


def test_it_lets_no_bot_signal_the_worker_or_its_other_children(launch):
    bystander = subprocess.Popen(["sleep", "30"])
    neighbour = launch("silent.py")
    try:
        run = run_to_end(launch("signals.py"))
        # Its kill() calls returned before it exited: a SIGKILL that got through takes effect within moments.
        holds_for(lambda: bystander.poll() is None and neighbour.poll() is None, 0.2,
                  "the bystander and the neighbour bot alive after the bot signalled everything")  # fmt: skip
        assert run.report.outcome in ("ok", "signal")
    finally:
        bystander.kill()
        bystander.wait()


def test_it_refuses_ptrace_unshare_mount_and_other_kernel_interfaces(launch):
    result = run_to_end(launch("syscalls.py")).json()
    assert result.pop("clone3") == errno.ENOSYS
    assert all(value == errno.EPERM for value in result.values()), result


def test_it_never_follows_symlinks_a_bot_planted(launch, backend, tmp_path):
    target_dir = tmp_path / "precious"
    target_dir.mkdir()
    (target_dir / "keep.txt").write_text("keep")
    target_file = tmp_path / "precious.txt"
    target_file.write_text("keep")
    proc = launch("symlinks.py", str(target_dir), str(target_file), "/run/kozyr-sandbox")
    result = run_to_end(proc).json()
    assert result["/tmp/escape-0"] == "planted"
    assert result["/bot/escape-0"].startswith("error")
    assert (target_dir / "keep.txt").read_text() == "keep"
    assert target_file.read_text() == "keep"
    if backend == "bwrap":
        assert os.path.isdir("/run/kozyr-sandbox/uids")


def test_its_etc_holds_only_the_bots_own_account_and_none_of_it_can_be_changed(launch, backend, bot_dir):
    if backend != "bwrap":
        pytest.skip("bwrap builds its /etc itself; the container's comes from the bot image (test_container_image)")
    (bot_dir / "etc.py").write_text(
        "import json, os, time\n"
        "found = {'passwd': open('/etc/passwd').read(), 'group': open('/etc/group').read(),\n"
        "         'cache': len(open('/etc/ld.so.cache', 'rb').read()), 'zone': time.tzname, 'writes': {}}\n"
        "for path in ('/etc/passwd', '/etc/group', '/etc/ld.so.cache', '/etc/new'):\n"
        "    try:\n"
        "        open(path, 'a').close(); found['writes'][path] = 'written'\n"
        "    except OSError as error:\n"
        "        found['writes'][path] = error.errno\n"
        "    try:\n"
        "        os.chmod(path, 0o666); found['writes'][path + ' chmod'] = 'changed'\n"
        "    except OSError as error:\n"
        "        found['writes'][path + ' chmod'] = error.errno\n"
        "print(json.dumps(found))\n"
    )
    result = run_to_end(launch("etc.py")).json()
    lines = result["passwd"].splitlines()
    assert len(lines) == 1 and lines[0].startswith("bot:x:")
    assert result["group"].startswith("bot:x:") and len(result["group"].splitlines()) == 1
    assert result["cache"] == os.path.getsize("/etc/ld.so.cache")
    assert all(outcome in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT)
               for outcome in result["writes"].values()), result["writes"]  # fmt: skip
