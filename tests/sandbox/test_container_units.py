"""The container backend's pure parts: engine choice, command lines, reaper and finish() with a stand-in
engine. Whether the flags really isolate is test_adversarial.py's job, run against a real engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from sandbox import Limits, SandboxError, identity, leftovers, start
from sandbox.backends import container_engine, container_reaper
from sandbox.backends import docker as docker_backend
from sandbox.backends.container_engine import Engine
from sandbox.runtimes import RUNTIMES
from sandbox.state import state_dir

DOCKER = Engine("docker", "docker", "27.0")
PODMAN = Engine("podman", "/usr/bin/podman", "4.3.1", runtime="runc", storage_driver="overlay")


def command_line(engine: Engine, tmp_path) -> list[str]:
    limits = Limits(memory_mb=128, processes=16, tmp_mb=8, cpus=0.5, open_files=32, file_size_mb=2, cpu_seconds=9.5)
    return docker_backend.run_command(["python3", "bot.py"], tmp_path, limits, name="kozyr-bot-x",
                                      deadline=1700000000, env={"PATH": "/usr/bin"}, image_name="img:1",
                                      engine=engine, owner="host:1:2", site="site-a", worker="c0ffee")  # fmt: skip


def test_the_docker_command_line_is_exactly_the_isolated_one(tmp_path):
    assert command_line(DOCKER, tmp_path) == [
        "docker", "run", "--name", "kozyr-bot-x", "--pull", "never",
        "--label", "kozyr.sandbox=1", "--label", "kozyr.sandbox.deadline=1700000000",
        "--label", "kozyr.sandbox.owner=host:1:2", "--label", "kozyr.sandbox.site=site-a",
        "--label", "kozyr.sandbox.worker=c0ffee",
        "--mount", "type=bind,source=fifos,target=/run/kozyr-pipes,readonly",
        "--network", "none", "--ipc", "none", "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,size=8m",
        "--user", "65534:65534", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--security-opt", "seccomp=seccomp.json",
        "--pids-limit", "16", "--memory", "128m", "--memory-swap", "128m", "--cpus", "0.5",
        "--ulimit", "nofile=32:32", "--ulimit", "nproc=4096:4096", "--ulimit", f"fsize={2 << 20}:{2 << 20}",
        "--ulimit", "cpu=11:12", "--ulimit", "core=0:0", "--ulimit", "memlock=0:0",
        "--log-driver", "none", "--mount", f"type=bind,source={tmp_path.resolve()},target=/bot,readonly",
        "--workdir", "/bot", "--env", "PATH=/usr/bin", "img:1", *docker_backend.PIPE_SHIM, "python3", "bot.py",
    ]  # fmt: skip


def test_podman_gets_the_same_flags_plus_its_runtime_and_masks(tmp_path):
    docker, podman = command_line(DOCKER, tmp_path), command_line(PODMAN, tmp_path)
    assert podman[:4] == ["/usr/bin/podman", "--storage-driver", "overlay", "run"]
    masks = f"mask={':'.join(docker_backend.PROC_MASKS)}"
    extras = ["--runtime", "runc", "--read-only-tmpfs=false", "--unsetenv-all", "--no-hosts", "--security-opt", masks]
    at = podman.index("--runtime")
    assert podman[at : at + len(extras)] == extras
    assert podman[4:at] + podman[at + len(extras) :] == docker[2:]
    assert {"/proc/meminfo", "/proc/pressure", "/dev/pts"} <= set(docker_backend.PROC_MASKS)
    # the FIFOs become the bot's stdin and stdout through the shim, from the image's own runtimes; the bot is
    # pid 1 after exec
    assert podman[-len(docker_backend.PIPE_SHIM) - 2:] == [*docker_backend.PIPE_SHIM, "python3", "bot.py"]
    assert docker_backend.PIPE_SHIM[0] in RUNTIMES
    assert "--init" not in podman and "--rm" not in podman  # finish() inspects, then removes


ZERO = "0001-01-01T00:00:00Z"  # Go's zero time: what the engines record for "never"


def record(ident: str, *, deadline: int = 10**10, owner: str = "otherhost:7:99", worker: str = "",
           created: str = "2026-12-06T10:00:00.5Z", started: str = ZERO, finished: str = ZERO,
           running: bool = False) -> dict:  # fmt: skip
    """A container as `inspect` shows it (the fields both engines share)."""
    labels = {"kozyr.sandbox": "1", "kozyr.sandbox.site": "site-a", "kozyr.sandbox.deadline": str(deadline),
              "kozyr.sandbox.owner": owner, "kozyr.sandbox.worker": worker}
    return {"Id": ident, "Created": created, "Config": {"Labels": labels},
            "State": {"Status": "running" if running else ("exited" if finished != ZERO else "created"),
                      "Running": running, "StartedAt": started, "FinishedAt": finished}}  # fmt: skip


def reaper_engine(containers: list[dict], running: tuple[str, ...] = ()):
    """The engine's CLI as the reaper calls it: `ps` of the site's containers, `inspect` of them, `ps` of the
    running ones (worker containers); records every call."""
    calls: list[list[str]] = []

    def runner(argv, **kwargs):
        calls.append(argv)
        if "inspect" in argv:
            wanted = argv[argv.index("container") + 1:]
            out = json.dumps([c for c in containers if c["Id"] in wanted])
        elif "rm" in argv:
            out = ""
        elif "status=running" in argv:
            out = "".join(f"{ident}\n" for ident in running)
        else:
            out = "".join(f"{c['Id']}\n" for c in containers)
        return subprocess.CompletedProcess(argv, 0, stdout=out, stderr="")

    runner.calls = calls  # type: ignore[attr-defined]
    return runner


NOW = 1765015200.0  # 2025-12-06T10:00:00Z


def test_the_reaper_lists_only_its_own_sites_containers():
    runner = reaper_engine([])
    assert container_reaper.reap_orphans(runner, engine=DOCKER, now=NOW, site="site-a") == []
    assert runner.calls == [["docker", "ps", "--all", "--quiet", "--no-trunc", "--filter", "label=kozyr.sandbox=1",
                             "--filter", "label=kozyr.sandbox.site=site-a"]]  # fmt: skip


def test_the_reaper_removes_containers_past_their_deadline_or_of_a_dead_worker_of_this_host():
    alive = container_reaper.owner_token()
    dead = f"{container_reaper.socket.gethostname()}:{os.getpid()}:0"  # this pid, but not this start time
    running = {"started": "2025-12-06T09:59:00Z", "running": True, "created": "2025-12-06T09:59:00Z"}
    containers = [record("aaa", deadline=int(NOW) - 1, owner=alive, **running),
                  record("bbb", owner=alive, **running), record("ccc", deadline=0, owner="another-host:1:1", **running),
                  record("ddd", owner=dead, **running), record("eee", owner="another-host:1:1", **running),
                  record("fff", owner="<no value>", **running)]  # fmt: skip
    runner = reaper_engine(containers)
    assert container_reaper.reap_orphans(runner, engine=DOCKER, now=NOW, site="site-a") == ["aaa", "ccc", "ddd"]
    assert runner.calls[1] == ["docker", "inspect", "--type", "container", "aaa", "bbb", "ccc", "ddd", "eee", "fff"]
    # one call each: Podman 4.3 removes none of a list once one of them is gone
    assert runner.calls[-3:] == [["docker", "rm", "--force", ident] for ident in ("aaa", "ccc", "ddd")]
    podman = reaper_engine(containers[:1])
    assert container_reaper.reap_orphans(podman, engine=PODMAN, now=NOW, site="site-a") == ["aaa"]
    assert podman.calls[-1] == ["/usr/bin/podman", "--storage-driver", "overlay", "rm", "--force", "--time", "0", "aaa"]


def test_containers_exited_or_never_started_long_ago_are_reaped_whoever_started_them():
    # A worker removes its bot's container within seconds of its exit, and its `run` starts one within seconds
    # of creating it: one left for minutes lost its worker (on another host, or killed between create and
    # start), whatever its deadline says.
    def at(seconds_ago: float) -> str:
        return datetime.fromtimestamp(NOW - seconds_ago, UTC).strftime("%Y-%m-%dT%H:%M:%S.123456789Z")

    exited, never = container_reaper.EXITED_GRACE_SECONDS, container_reaper.NEVER_STARTED_GRACE_SECONDS
    containers = [record("old", started=at(900), finished=at(exited + 1)),
                  record("recent", started=at(900), finished=at(5)),
                  record("running", started=at(900), running=True, created=at(900)),
                  record("stuck", created=at(never + 1)),  # Created, never started: its worker died in between
                  record("starting", created=at(never - 5)),  # a live worker's `run`, about to start it
                  record("podman-offset", created=datetime.fromtimestamp(NOW - never - 60, UTC)
                         .astimezone(timezone(timedelta(hours=-5))).isoformat())]  # fmt: skip
    for engine in (DOCKER, PODMAN):
        runner = reaper_engine(containers)
        reaped = container_reaper.reap_orphans(runner, engine=engine, now=NOW, site="site-a")
        assert reaped == ["old", "stuck", "podman-offset"]


def test_a_worker_containers_bots_are_reaped_once_the_engine_no_longer_runs_it():
    # Every process of a stopped or removed worker container is gone: any live worker of the site reaps what
    # it left, though its host name is not this one's and its bots still run.
    bots = [record("of-live", worker="a" * 64, running=True, started="2025-12-06T09:59:00Z"),
            record("of-stopped", worker="b" * 64, running=True, started="2025-12-06T09:59:00Z"),
            record("of-removed", worker="c" * 64, running=True, started="2025-12-06T09:59:00Z"),
            record("of-a-host", worker="", running=True, started="2025-12-06T09:59:00Z")]  # fmt: skip
    runner = reaper_engine(bots, running=("a" * 64, "of-live", "of-stopped", "of-removed", "of-a-host"))
    assert container_reaper.reap_orphans(runner, engine=DOCKER, now=NOW, site="site-a") == ["of-stopped",
                                                                                             "of-removed"]


def test_a_worker_knows_its_own_container_from_what_the_engine_mounts(tmp_path):
    docker, podman = "d" * 64, "e" * 64
    lines = {
        "docker": f"612 600 253:0 /var/lib/docker/containers/{docker}/hostname /etc/hostname rw - ext4 /dev/vda rw",
        "podman": f"700 690 0:25 /containers/storage/overlay-containers/{podman}/userdata/hosts /etc/hosts rw - "
                  "tmpfs tmpfs rw",
        "host": "22 27 0:21 / /proc rw,relatime - proc proc rw",
    }  # fmt: skip
    for kind, line in lines.items():
        (tmp_path / kind).write_text(f"22 27 0:21 / /proc rw - proc proc rw\n{line}\n")
    assert container_reaper.own_container(tmp_path / "docker") == docker
    assert container_reaper.own_container(tmp_path / "podman") == podman
    assert container_reaper.own_container(tmp_path / "host") == ""
    assert container_reaper.own_container(tmp_path / "missing") == ""


def test_a_malformed_site_id_is_refused_by_name(monkeypatch):
    for bad in ("two words", "-leading", "x" * 64, "a,b", "site=1"):
        monkeypatch.setenv("KOZYR_SITE_ID", bad)
        with pytest.raises(SandboxError, match="KOZYR_SITE_ID must be"):
            container_engine.site_id()
        assert "KOZYR_SITE_ID" in container_engine.unavailable_reason()
    monkeypatch.setenv("KOZYR_SITE_ID", "kozyr-prod.eu_1")
    assert container_engine.site_id() == "kozyr-prod.eu_1"
    monkeypatch.delenv("KOZYR_SITE_ID")
    assert container_engine.site_id() == f"state-{identity.state_id()}"  # the workers of this state folder


class FakeRunner:
    """The engine's CLI for everything but `run`: each subcommand prints its canned output; `failing`
    subcommands exit 125 with the engine's error instead."""

    def __init__(self, outputs: dict[str, str], failing: tuple[str, ...] = ()):
        self.calls: list[list[str]] = []
        self.outputs, self.failing = outputs, failing

    def __call__(self, argv, **kwargs):
        self.calls.append(argv)
        if argv[1] in self.failing:
            return subprocess.CompletedProcess(argv, 125, stdout="", stderr="Error: no such container")
        return subprocess.CompletedProcess(argv, 0, stdout=self.outputs.get(argv[1], ""), stderr="")


STARTED = {"StartedAt": "2026-12-02T16:00:00.123456789Z"}  # what the engines record once a container ran


def as_the_shim(argv: list[str], code: str) -> list[str]:
    """A local process standing in for the container: it takes the bot's pipes as docker.PIPE_SHIM does (the
    FIFOs in the folder `run` mounts at /run/kozyr-pipes), then runs ``code`` as the bot."""
    mount = next(arg for arg in argv if arg.endswith(f"target={docker_backend.MOUNT},readonly"))
    folder = mount.split("source=", 1)[1].split(",", 1)[0]
    # Non-blocking opens: a test may finish the run (closing the worker's ends) before this process starts.
    hand_over = (f"import os; f = {folder!r}; i = os.open(f + '/in', os.O_RDONLY | os.O_NONBLOCK); "
                 "o = os.open(f + '/out', os.O_WRONLY); s = os.open(f + '/sync', os.O_RDONLY | os.O_NONBLOCK); "
                 "os.set_blocking(s, True)\nwhile os.read(s, 64): pass\nos.close(s)\n")
    return [sys.executable, "-c", hand_over + code]


def fake_run(exit_code: int, *, container_started: bool = True):
    """A stand-in for `docker run` whose bot exits with ``exit_code`` at once, or (``container_started`` false)
    an engine that fails with it before any container ran."""

    def popen(argv, **kwargs):
        kwargs.pop("env")
        bot = f"raise SystemExit({exit_code})"
        return subprocess.Popen(as_the_shim(argv, bot) if container_started else [sys.executable, "-c", bot], **kwargs)

    return popen


@pytest.mark.parametrize(("state", "failing"), [
    ({}, ("inspect",)),  # `run` refused before creating anything: the engine knows no such container
    ({"StartedAt": "0001-01-01T00:00:00Z", "ExitCode": 0, "Error": "seccomp profile: no such file"}, ()),
], ids=["never-created", "created-never-started"])
def test_an_engine_that_cannot_start_the_container_is_a_sandbox_failure_not_the_bots(tmp_path, state, failing):
    runner = FakeRunner({"inspect": json.dumps(state)}, failing=failing)
    proc = docker_backend.start_docker(["python3", "bot.py"], tmp_path, Limits(), runner=runner,
                                       popen=fake_run(125, container_started=False),
                                       engine=DOCKER)
    report = proc.finish(grace_seconds=5)
    assert report.outcome == "sandbox_failure", report.to_dict()
    assert "the bot never ran" in report.detail
    proc.close()


def test_a_bot_that_exits_125_itself_is_its_own_failure(tmp_path):
    # 125 is also what `run` says when the engine fails: the status alone must never excuse a bot.
    runner = FakeRunner({"inspect": json.dumps({**STARTED, "ExitCode": 125, "OOMKilled": False})})
    proc = docker_backend.start_docker(["python3", "bot.py"], tmp_path, Limits(), runner=runner,
                                       popen=fake_run(125), engine=DOCKER)
    assert proc._confinement.fifos.handed_over.wait(10)  # the bot ran
    report = proc.finish(grace_seconds=5)
    assert (report.outcome, report.detail) == ("runtime_error", "exited with status 125"), report.to_dict()
    proc.close()


def test_a_container_run_is_inspected_then_removed(tmp_path):
    runner = FakeRunner({"inspect": json.dumps({**STARTED, "OOMKilled": True, "ExitCode": 137})})
    launched = []

    def fake_popen(argv, **kwargs):  # the "container": a local process standing in for `docker run`
        launched.append(argv)
        kwargs.pop("env")
        return subprocess.Popen(as_the_shim(argv, "os.kill(os.getpid(), 9)"), **kwargs)

    proc = docker_backend.start_docker(["python3", "bot.py"], tmp_path, Limits(), runner=runner, popen=fake_popen,
                                       engine=DOCKER)  # fmt: skip
    assert proc._confinement.fifos.handed_over.wait(10)  # the bot ran
    report = proc.finish(grace_seconds=5)
    assert launched[0][:2] == ["docker", "run"]
    name = launched[0][launched[0].index("--name") + 1]
    assert ["docker", "inspect", "--format", "{{json .State}}", name] in runner.calls
    assert ["docker", "rm", "--force", name] in runner.calls
    assert report.outcome == "out_of_memory" and report.backend == "docker" and report.backend_version == "docker 27.0"
    assert report.cpu_seconds is None  # the stand-in has no container cgroup: said so, never guessed
    assert any("CPU time is not measured" in text for text in report.guarantees_weakened)
    proc.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="leasing a sandbox uid and running a process as it needs root")
def test_a_process_of_the_bots_uid_the_engine_no_longer_lists_dies_before_the_uid_is_given_back(tmp_path):
    # A container removed while runc is still starting it can leave its `runc init` running as the bot's uid,
    # in no container the engine lists. The engine here lists nothing at all; the leftover must still die,
    # and the uid must not be handed back as clean while it runs.
    runner = FakeRunner({"inspect": json.dumps({**STARTED, "ExitCode": 0})})
    proc = docker_backend.start_docker(["python3", "bot.py"], tmp_path, Limits(), runner=runner,
                                       popen=fake_run(0), engine=DOCKER)
    uid = proc.sandbox_uid
    assert uid is not None
    leftover = subprocess.Popen(["sleep", "600"], user=uid, group=uid, extra_groups=[])
    try:
        report = proc.finish(grace_seconds=5)
        assert leftover.wait(timeout=5) == -9  # SIGKILLed by finish(), not left to the next bot of this uid
        assert not any("survived" in text for text in report.guarantees_weakened), report.guarantees_weakened
        assert (state_dir() / "uids" / f"{uid}.lock").read_bytes() == b"clean"
    finally:
        leftover.kill()
        leftover.wait()
        proc.close()


def test_the_container_backend_refuses_to_start_without_an_engine(tmp_path, monkeypatch):
    monkeypatch.setattr(container_engine, "find_engine", lambda: (None, "the podman CLI is not installed"))
    with pytest.raises(SandboxError, match=r"needs a container engine .*podman CLI is not installed"):
        start(["python3", "bot.py"], tmp_path, backend="docker")


def test_a_bad_engine_setting_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(container_engine.ENGINE_SETTING, "lxc")
    with pytest.raises(SandboxError, match="KOZYR_CONTAINER_ENGINE must be docker, podman or auto, got 'lxc'"):
        container_engine.find_engine()
    assert "KOZYR_CONTAINER_ENGINE" in container_engine.unavailable_reason()


def test_engine_detection_names_what_is_missing(monkeypatch):
    monkeypatch.setattr(container_engine.shutil, "which", lambda name: None)
    container_engine._find_engine.cache_clear()
    try:
        found, reason = container_engine._find_engine("auto", None, None)
        assert found is None
        assert reason == "the docker CLI is not installed; the podman CLI is not installed"
    finally:
        container_engine._find_engine.cache_clear()


def test_a_docker_cli_that_is_really_podman_is_driven_as_podman(monkeypatch):
    answers = {"--version": "podman version 4.3.1", "version": "4.3.1"}
    monkeypatch.setattr(container_engine.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(container_engine, "_answers", lambda cli, *arguments: answers[arguments[0]])
    container_engine._find_engine.cache_clear()
    try:
        found, reason = container_engine._find_engine("docker", None, None)
        assert reason is None
        assert found == Engine("podman", "/usr/bin/docker", "4.3.1", runtime="runc")
    finally:
        container_engine._find_engine.cache_clear()


def test_the_container_cgroup_reader_follows_the_bot_into_v1_and_v2_trees(tmp_path, monkeypatch):
    cpuacct = tmp_path / "cpuacct" / "libpod_parent" / "libpod-x"
    memory = tmp_path / "memory" / "libpod_parent" / "libpod-x"
    for folder in (cpuacct, memory):
        folder.mkdir(parents=True)
    (cpuacct / "cpuacct.usage").write_text("2500000000\n")
    (memory / "memory.max_usage_in_bytes").write_text(f"{48 << 20}\n")
    proc_cgroup = tmp_path / "proc-cgroup"
    proc_cgroup.write_text("4:cpu,cpuacct:/libpod_parent/libpod-x\n3:memory:/libpod_parent/libpod-x\n0::/\n")
    real_path = docker_backend.Path
    monkeypatch.setattr(docker_backend, "Path",
                        lambda text: proc_cgroup if text == "/proc/77/cgroup" else real_path(text))  # fmt: skip
    reader = docker_backend.ContainerCgroup(root=tmp_path)
    assert not reader.locate(77, "other")  # a reused pid: not the container's cgroup
    assert reader.locate(77, "libpod-x")
    reader.sample()
    assert reader.cpu_seconds == 2.5 and reader.peak_memory_mb == 48
    assert not docker_backend.ContainerCgroup(root=tmp_path).locate(10**9, "x")  # no such process


def test_an_oom_kill_only_conmon_saw_is_reported_and_the_clis_folder_goes_with_the_run(tmp_path):
    # Podman on cgroup v1: OOMKilled stays false and the bot died before any cgroup could be read; conmon
    # leaves `oom` in the CLI's working folder, one folder per container.
    runner = FakeRunner({"inspect": json.dumps({**STARTED, "OOMKilled": False, "ExitCode": 137})})
    folders = []

    def fake_popen(argv, **kwargs):
        folders.append(Path(kwargs["cwd"]))
        (folders[0] / "oom").touch()  # what conmon does after the kernel's OOM kill
        kwargs.pop("env")
        return subprocess.Popen(as_the_shim(argv, "os.kill(os.getpid(), 9)"), **kwargs)

    proc = docker_backend.start_docker(["python3", "bot.py"], tmp_path, Limits(), runner=runner, popen=fake_popen,
                                       engine=DOCKER)  # fmt: skip
    assert proc._confinement.fifos.handed_over.wait(10)  # the bot ran
    report = proc.finish(grace_seconds=5)
    assert report.outcome == "out_of_memory", report.to_dict()
    assert folders[0].parent == state_dir() / "engine" and folders[0].name.endswith(proc._confinement.name)
    assert not folders[0].exists()
    proc.close()


def test_the_sweep_removes_the_container_cli_folders_of_a_dead_worker():
    engine = state_dir() / "engine"
    engine.mkdir(mode=0o700, exist_ok=True)
    abandoned = engine / "999999999-deadbeef.kozyr-bot-x"
    abandoned.mkdir()
    (abandoned / "oom").touch()
    ours = engine / f"{leftovers.owner()}.kozyr-bot-y"
    ours.mkdir()
    try:
        removed = leftovers.sweep()
        assert str(abandoned) in removed and not abandoned.exists() and ours.exists()
    finally:
        ours.rmdir()


def test_an_invisible_container_cgroup_is_looked_for_once_it_runs_then_never_again(tmp_path):
    answers = ["", "0 " + "c" * 64, "4242 " + "c" * 64]  # not created yet, created, running
    calls = []

    def runner(argv, **kwargs):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, stdout=answers[min(len(calls), 3) - 1], stderr="")

    confinement = docker_backend.DockerConfinement("kozyr-bot-x", Limits(), runner, DOCKER)
    confinement._cgroup = docker_backend.ContainerCgroup(root=tmp_path)  # a cgroup tree without this container
    for _ in range(50):
        assert confinement.live_cpu_seconds() is None
    assert len(calls) == 3  # until it runs, then no more
