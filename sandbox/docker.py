"""The `docker` backend, for docker-compose deployments: one throw-away container per bot.

The container has no network (`--network none`, so it is never on a compose network), a read-only root,
a small private /tmp, an unprivileged uid, no capabilities, no-new-privileges, Docker's default seccomp
profile, and memory/pids/CPU limits enforced by the engine's cgroups. The bot's files are bind-mounted
read-only at /bot: `bot_dir` must be a path the Docker *engine* can see (with the worker itself in a
container, mount the bot storage at the same path in both).

Containers are not started with `--rm`: finish() first asks the engine whether the kernel OOM-killed the
bot (the only reliable out-of-memory signal), then removes the container. Every container carries the
label kozyr.sandbox=1 and a deadline label; `reap_orphans()` removes the ones a crashed worker left behind
once their deadline has passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path

from .environment import bot_environment
from .errors import SandboxError
from .limits import Limits
from .process import Confinement, Measures, SandboxProcess, decode_shell_status

LABEL = "kozyr.sandbox"
DEFAULT_IMAGE = "kozyr-bot-runtime:latest"
DEFAULT_UID = 65534  # nobody: no file on the image belongs to it
DEADLINE_MARGIN_SECONDS = 60
Runner = Callable[..., subprocess.CompletedProcess]


def image() -> str:
    return os.environ.get("KOZYR_SANDBOX_DOCKER_IMAGE", DEFAULT_IMAGE)


def docker_path() -> str | None:
    return shutil.which("docker")


def run_command(command: list[str], bot_dir: Path, limits: Limits, *, name: str, deadline: int,
                env: dict[str, str], image_name: str, uid: int = DEFAULT_UID,
                docker: str = "docker") -> list[str]:  # fmt: skip
    """The `docker run` command line for one bot (pure: tests read it)."""
    megabytes = f"{limits.memory_mb}m"
    environment = [arg for key, value in env.items() for arg in ("--env", f"{key}={value}")]
    return [
        docker, "run", "--interactive", "--init",
        "--name", name,
        "--label", f"{LABEL}=1",
        "--label", f"{LABEL}.deadline={deadline}",
        "--network", "none",
        "--ipc", "none",
        "--read-only",
        "--tmpfs", f"/tmp:rw,nosuid,nodev,size={limits.tmp_mb}m",
        "--user", f"{uid}:{uid}",
        "--cap-drop", "ALL",
        "--security-opt", "no-new-privileges",
        "--pids-limit", str(limits.processes + 1),  # + docker-init
        "--memory", megabytes,
        "--memory-swap", megabytes,
        "--cpus", f"{limits.cpus:g}",
        "--ulimit", f"nofile={limits.open_files}:{limits.open_files}",
        "--ulimit", f"fsize={limits.file_size_mb << 20}:{limits.file_size_mb << 20}",
        "--ulimit", "core=0:0",
        "--log-driver", "none",
        "--mount", f"type=bind,source={Path(bot_dir).resolve()},target=/bot,readonly",
        "--workdir", "/bot",
        *environment,
        image_name,
        *command,
    ]  # fmt: skip


def reap_orphans(runner: Runner = subprocess.run, docker: str = "docker", now: float | None = None) -> list[str]:
    """Remove sandbox containers whose deadline has passed (left by a crashed worker). Returns their ids."""
    now = time.time() if now is None else now
    listing = runner(
        [docker, "ps", "--all", "--quiet", "--no-trunc", "--filter", f"label={LABEL}=1",
         "--format", f'{{{{.ID}}}} {{{{.Label "{LABEL}.deadline"}}}}'],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    expired = []
    for line in listing.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and int(parts[1]) < now:
            expired.append(parts[0])
    if expired:
        runner([docker, "rm", "--force", *expired], capture_output=True, text=True, check=False)
    return expired


@cache
def engine_version(docker: str = "docker") -> str:
    if docker_path() is None:
        return ""
    try:
        done = subprocess.run([docker, "version", "--format", "{{.Server.Version}}"], capture_output=True,
                              text=True, timeout=10, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


class DockerConfinement(Confinement):
    backend = "docker"

    def __init__(self, name: str, limits: Limits, runner: Runner, docker: str):
        super().__init__()
        self.name = name
        self._runner = runner
        self._docker = docker
        self.backend_version = engine_version(docker)
        self.guarantees_weakened = [
            "CPU time is not measured or capped in total under docker (only --cpus bandwidth and the wall limit)",
        ]
        self.limits_applied = {
            "memory_mb": {"value": limits.memory_mb, "mechanism": "docker --memory (cgroup)"},
            "processes": {"value": limits.processes, "mechanism": "docker --pids-limit (cgroup)"},
            "cpu_seconds": {"value": limits.cpu_seconds, "mechanism": "none"},
            "wall_seconds": {"value": limits.wall_seconds, "mechanism": "watchdog"},
            "open_files": {"value": limits.open_files, "mechanism": "docker --ulimit nofile"},
            "file_size_mb": {"value": limits.file_size_mb, "mechanism": "docker --ulimit fsize"},
            "tmp_mb": {"value": limits.tmp_mb, "mechanism": "docker --tmpfs size"},
            "cpus": {"value": limits.cpus, "mechanism": "docker --cpus (cgroup)"},
        }
        self._state: dict | None = None

    def decode_status(self, status: int) -> tuple[int | None, int | None]:
        return decode_shell_status(status)

    def kill_all(self, main_pid: int) -> None:
        self._inspect()
        self._runner([self._docker, "rm", "--force", self.name], capture_output=True, text=True, check=False)

    def survivors(self) -> list[int]:
        listing = self._runner([self._docker, "ps", "--all", "--quiet", "--filter", f"name=^{self.name}$"],
                               capture_output=True, text=True, check=False)  # fmt: skip
        return [1] if listing.stdout.strip() else []

    def _inspect(self) -> None:
        if self._state is not None:
            return
        done = self._runner([self._docker, "inspect", "--format", "{{json .State}}", self.name],
                            capture_output=True, text=True, check=False)  # fmt: skip
        try:
            self._state = json.loads(done.stdout) if done.returncode == 0 else {}
        except ValueError:
            self._state = {}

    def measure(self, rusage) -> Measures:
        self._inspect()
        oom = self._state.get("OOMKilled") if self._state else None
        return Measures(cpu_seconds=None, peak_memory_mb=None, oom_kills=None if oom is None else int(bool(oom)))


def start_docker(command: list[str], bot_dir: Path, limits: Limits, env: dict | None = None,
                 runner: Runner = subprocess.run, popen: Callable[..., subprocess.Popen] = subprocess.Popen,
                 docker: str | None = None) -> SandboxProcess:  # fmt: skip
    docker = docker or docker_path()
    if docker is None:
        raise SandboxError("backend 'docker' needs the docker CLI and a reachable engine; none found here")
    if not Path(bot_dir).is_dir():
        raise SandboxError(f"bot directory {bot_dir} does not exist or is not a directory")
    started = time.monotonic()
    name = f"kozyr-bot-{uuid.uuid4().hex[:16]}"
    deadline = int(time.time() + limits.wall_seconds + DEADLINE_MARGIN_SECONDS)
    argv = run_command(command, bot_dir, limits, name=name, deadline=deadline, env=bot_environment(env),
                       image_name=image(), docker=docker)  # fmt: skip
    # The CLI (not the bot) gets the worker's Docker settings; the bot gets only --env values.
    cli_env = {key: value for key, value in os.environ.items() if key.startswith("DOCKER_") or key in ("PATH", "HOME")}
    confinement = DockerConfinement(name, limits, runner, docker)
    try:
        process = popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                        env=cli_env, start_new_session=True)  # fmt: skip
    except OSError as error:
        raise SandboxError(f"could not run docker: {error}") from error
    return SandboxProcess(process, confinement, limits, started, time.monotonic() - started)
