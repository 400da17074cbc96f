"""The container backend's pure parts: engine choice, command lines, reaper and finish() with a stand-in
engine. Whether the flags really isolate is test_adversarial.py's job, run against a real engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import Limits, SandboxError, leftovers, start
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
                                      engine=engine, owner="host:1:2")  # fmt: skip


def test_the_docker_command_line_is_exactly_the_isolated_one(tmp_path):
    assert command_line(DOCKER, tmp_path) == [
        "docker", "run", "--name", "kozyr-bot-x", "--pull", "never",
        "--label", "kozyr.sandbox=1", "--label", "kozyr.sandbox.deadline=1700000000",
        "--label", "kozyr.sandbox.owner=host:1:2",
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


def test_the_reaper_removes_containers_past_their_deadline_or_of_a_dead_worker_of_this_host():
    alive, elsewhere = container_reaper.owner_token(), "another-host:1:1"
    dead = f"{container_reaper.socket.gethostname()}:{os.getpid()}:0"  # this pid, but not this start time
    runner = FakeRunner({"ps": f"aaa 100 {alive}\nbbb 300 {alive}\nccc notanumber {elsewhere}\nddd\n"
                               f"eee 300 {dead}\nfff 300 {elsewhere}\nggg 300 <no value>\n"})
    assert container_reaper.reap_orphans(runner, engine=DOCKER, now=200) == ["aaa", "eee"]
    assert runner.calls[0][:4] == ["docker", "ps", "--all", "--no-trunc"]
    assert "label=kozyr.sandbox=1" in runner.calls[0]
    assert runner.calls[0][-1] == '{{.ID}} {{.Label "kozyr.sandbox.deadline"}} {{.Label "kozyr.sandbox.owner"}}'
    assert runner.calls[1] == ["docker", "rm", "--force", "aaa", "eee"]
    quiet = FakeRunner({"ps": ""})
    assert container_reaper.reap_orphans(quiet, engine=DOCKER, now=200) == []
    assert len(quiet.calls) == 1


def test_the_reaper_reads_podmans_labels_through_its_own_template():
    runner = FakeRunner({"--storage-driver": "aaa|100|host:1:2|-62135596800|Up 3 seconds ago\n"})
    assert container_reaper.reap_orphans(runner, engine=PODMAN, now=200) == ["aaa"]
    assert runner.calls[0][-1] == ('{{.ID}}|{{index .Labels "kozyr.sandbox.deadline"}}|'
                                   '{{index .Labels "kozyr.sandbox.owner"}}|{{.ExitedAt}}|{{.State}}')
    assert runner.calls[1] == ["/usr/bin/podman", "--storage-driver", "overlay", "rm", "--force", "--time", "0", "aaa"]


def test_podman_bot_containers_exited_long_ago_are_reaped_whoever_started_them():
    # A worker removes its bot's container within seconds of its exit; one left for minutes lost its worker
    # (on another host, or a container that cannot see that process), whatever its deadline says.
    far = 10**10
    listing = (f"old|{far}|otherhost:7:99|{1000 - container_reaper.EXITED_GRACE_SECONDS - 1}|Exited (0) 3 minutes ago\n"
               f"recent|{far}|otherhost:7:99|{1000 - 5}|Exited (1) 5 seconds ago\n"
               f"running|{far}|otherhost:7:99|-62135596800|Up 3 minutes ago\n"
               f"created|{far}||-62135596800|Created\n")
    runner = FakeRunner({"--storage-driver": listing})
    assert container_reaper.reap_orphans(runner, engine=PODMAN, now=1000) == ["old"]


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
