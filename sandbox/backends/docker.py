"""The container backend (`backend="docker"`): one throw-away container per bot, run by Docker or Podman.

The container has no network (`--network none`, so it is never on a compose network), a read-only root,
a small private /tmp, an unprivileged uid, no capabilities, no-new-privileges, bwrap's seccomp policy
(container_seccomp.py, instead of the engine's looser default profile), and memory/pids/CPU limits
enforced by the engine's cgroups. The bot is the container's pid 1, as under bwrap: when it exits the
kernel kills everything else in its pid namespace. The bot's files are
bind-mounted read-only at /bot: `bot_dir` must be a path the *engine* can see (with the worker itself in a
container, mount the bot storage at the same path in both).

Which engine runs the containers (Docker or Podman, and Podman's OCI runtime) is container_engine.py's
business. Both get the same command line, with the bot's pipes as FIFOs (container_fifos.py); Podman also
gets no extra tmpfs of its own on /run and /var/tmp, none of its default environment variables, and bwrap's
/proc masks (Docker has no option for them).

Containers are not started with `--rm`: finish() first asks the engine whether the kernel OOM-killed the
bot (the only reliable out-of-memory signal), then removes the container. Every container carries the
labels (its site, its worker) with which container_reaper.py removes the ones a crashed worker left behind.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path

from ..cgroups import block_devices
from ..environment import bot_environment
from ..errors import SandboxError
from ..leftovers import owner
from ..limits import Limits
from ..proc_masks import PROC_MASKED_DIRS, PROC_MASKED_FILES
from ..process import Confinement, Measures, SandboxProcess, decode_shell_status
from ..state import state_dir
from ..uids import UidLease, can_switch_uid, kill_all_processes_of, lease_uid, processes_of
from . import container_reaper as reaper
from . import container_seccomp
from .container_engine import Engine, Runner, image, required_engine, site_id
from .container_fifos import MOUNT, HandedFifos

DEFAULT_UID = 65534  # nobody: no file on the image belongs to it; used when the worker cannot lease uids
DOCKER = Engine()  # run_command's engine when none is named: the Docker CLI


# The bot's stdin and stdout are FIFOs only the worker and the bot open (container_fifos.py), in a folder
# mounted read-only at MOUNT; this shim (Perl: it is in the image and starts in ~2 ms) opens them as its
# stdin and stdout, waits on `sync` until the worker has dropped what it held only until then, and execs the
# bot. No relay through the CLI (and Podman's conmon) on every line (3.5x bwrap's round trip), and, unlike
# `--interactive` or handing descriptors in (`--preserve-fds`, which conmon keeps a copy of), a bot closing
# its stdout or stdin is seen at once. Both engines: the engine must run on the worker's host anyway, since
# it bind-mounts the bot's files from the worker's folder by their path there.
PIPE_SHIM = ["perl", "-e", "use Fcntl; "
             f'sysopen(STDIN, "{MOUNT}/in", O_RDONLY) && sysopen(STDOUT, "{MOUNT}/out", O_WRONLY) && '
             f'sysopen(my $sync, "{MOUNT}/sync", O_RDONLY) or die "kozyr pipes: $!\\n"; '
             '1 while sysread($sync, my $byte, 64); close $sync; '
             'exec { $ARGV[0] } @ARGV or die "cannot run $ARGV[0]: $!\\n"']  # fmt: skip

# bwrap's /proc masks (machine-wide counters another bot can move: a covert channel between bots), which
# Podman applies with `--security-opt mask=` (an empty file or folder over each). Docker has no such option.
PROC_MASKS = tuple(sorted(["/dev/pts", *(f"/proc/{name}" for name in PROC_MASKED_FILES),
                           *(f"/proc/{name}" for name in PROC_MASKED_DIRS)]))  # fmt: skip

# RLIMIT_NPROC counts every process and thread of uid 65534 on the engine's host, so it cannot hold one bot
# (the pids cgroup does): it is set only because Podman's default is above what a container may set on
# some hosts (here conmon's hard limit is 32768). 4096 leaves room for 128 bots at the default 32 tasks.
NPROC_SHARED = 4096


def run_command(command: list[str], bot_dir: Path, limits: Limits, *, name: str, deadline: int,
                env: dict[str, str], image_name: str, uid: int = DEFAULT_UID, engine: Engine = DOCKER,
                nproc: int = NPROC_SHARED, seccomp_profile: str = "seccomp.json", owner: str = "",
                site: str = "local", worker: str = "", disks: tuple[str, ...] = (),
                fifos: Path = Path("fifos")) -> list[str]:  # fmt: skip
    """The `run` command line for one bot (pure: tests read it). `fifos`: the folder of the bot's pipes
    (container_fifos.py); `site`, `owner` and `worker`: the labels the reaper judges it by
    (container_reaper.py)."""
    megabytes = f"{limits.memory_mb}m"
    cpu_soft = math.ceil(limits.cpu_seconds) + 1  # a per-process backstop; the watchdog stops the bot first
    environment = [arg for key, value in env.items() for arg in ("--env", f"{key}={value}")]
    rates = {"bps": f"{limits.disk_mb_per_second}mb", "iops": limits.disk_operations_per_second}
    disk_limits = [arg for disk in disks for way in ("read", "write") for unit, rate in rates.items()
                   for arg in (f"--device-{way}-{unit}", f"{disk}:{rate}")]  # fmt: skip
    podman_only = []
    if engine.kind == "podman":
        runtime = ["--runtime", engine.runtime] if engine.runtime else []
        podman_only = [*runtime, "--read-only-tmpfs=false", "--unsetenv-all", "--no-hosts",
                       "--security-opt", f"mask={':'.join(PROC_MASKS)}"]
    return [
        *engine.command("run"),
        "--name", name,
        "--pull", "never",  # a worker never contacts a registry; the image is there or the start fails
        "--label", f"{reaper.LABEL}=1",
        "--label", f"{reaper.DEADLINE_LABEL}={deadline}",
        "--label", f"{reaper.OWNER_LABEL}={owner}",
        "--label", f"{reaper.SITE_LABEL}={site}",
        "--label", f"{reaper.WORKER_LABEL}={worker}",
        *podman_only,
        "--mount", f"type=bind,source={fifos},target={MOUNT},readonly",
        "--network", "none",
        "--ipc", "none",
        "--read-only",
        "--tmpfs", f"/tmp:rw,nosuid,nodev,size={limits.tmp_mb}m",
        "--user", f"{uid}:{uid}",
        "--cap-drop", "ALL",
        "--security-opt", "no-new-privileges",
        "--security-opt", f"seccomp={seccomp_profile}",
        "--pids-limit", str(limits.processes),
        "--memory", megabytes,
        "--memory-swap", megabytes,
        "--cpus", f"{limits.cpus:g}",
        *disk_limits,
        "--ulimit", f"nofile={limits.open_files}:{limits.open_files}",
        "--ulimit", f"nproc={nproc}:{nproc}",
        "--ulimit", f"fsize={limits.file_size_mb << 20}:{limits.file_size_mb << 20}",
        "--ulimit", f"cpu={cpu_soft}:{cpu_soft + 1}",
        "--ulimit", "core=0:0",
        "--ulimit", "memlock=0:0",
        "--log-driver", "none",
        "--mount", f"type=bind,source={Path(bot_dir).resolve()},target=/bot,readonly",
        "--workdir", "/bot",
        *environment,
        image_name,
        *PIPE_SHIM,
        *command,
    ]  # fmt: skip


@cache
def disks() -> tuple[str, ...]:
    """/dev paths of the whole disks behind this host's mounted filesystems (the ones bwrap throttles), for
    the engine's --device-*-bps/iops; empty when the worker sees none (it then says the limit is off)."""
    found = []
    for device in block_devices():
        try:
            uevent = Path("/sys/dev/block", device, "uevent").read_text()
        except OSError:
            continue
        names = [line.partition("=")[2] for line in uevent.splitlines() if line.startswith("DEVNAME=")]
        if names and os.path.exists(f"/dev/{names[0]}"):
            found.append(f"/dev/{names[0]}")
    return tuple(found)


LOCATE_ATTEMPTS = 40  # watchdog ticks (~2 s) spent waiting for the container to run before giving up


class ContainerCgroup:
    """CPU time and peak memory of a running container, read from its cgroup when the worker can see the
    engine's cgroup tree (same host, same pid namespace); sampled by the watchdog, kept after the exit."""

    def __init__(self, root: Path = Path("/sys/fs/cgroup")):
        self.root = root
        self.cpu_seconds: float | None = None
        self.peak_memory_mb: float | None = None
        self.oom_kills: int | None = None
        self._files: dict[str, Path] | None = None

    def locate(self, pid: int, container_id: str) -> bool:
        """Find the cgroup files of `pid`, which must be in a cgroup named after the container: by the time
        it is read, an exited bot's pid may belong to another process."""
        try:
            memberships = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return False
        files: dict[str, Path] = {}
        for line in memberships:
            _, controllers, path = line.split(":", 2)
            names = controllers.split(",")
            relative = path.lstrip("/")
            if container_id not in relative:
                continue
            if "cpuacct" in names:
                files["cpu_v1"] = self.root / "cpuacct" / relative / "cpuacct.usage"
            if "memory" in names:
                files["memory_v1"] = self.root / "memory" / relative / "memory.max_usage_in_bytes"
                files["oom_v1"] = self.root / "memory" / relative / "memory.oom_control"
            if controllers == "":
                for mount in (self.root, self.root / "unified"):
                    if (mount / relative / "cpu.stat").exists():
                        files["cpu_v2"] = mount / relative / "cpu.stat"
                        files["memory_v2"] = mount / relative / "memory.peak"
                        files["oom_v2"] = mount / relative / "memory.events"
                        break
        self._files = {key: value for key, value in files.items() if value.exists()}
        return bool(self._files)

    def sample(self) -> None:
        if not self._files:
            return
        cpu = _read_int(self._files.get("cpu_v1"))
        if cpu is not None:
            self.cpu_seconds = cpu / 1e9
        else:
            usage = _keyed(self._files.get("cpu_v2"), "usage_usec")
            if usage is not None:
                self.cpu_seconds = usage / 1e6
        peak = _read_int(self._files.get("memory_v1"))
        peak = _read_int(self._files.get("memory_v2")) if peak is None else peak
        if peak is not None:
            self.peak_memory_mb = peak / (1 << 20)
        kills = _keyed(self._files.get("oom_v1"), "oom_kill")
        kills = _keyed(self._files.get("oom_v2"), "oom_kill") if kills is None else kills
        if kills is not None:
            self.oom_kills = kills


def _read_int(path: Path | None) -> int | None:
    if path is None:
        return None
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _keyed(path: Path | None, key: str) -> int | None:
    if path is None:
        return None
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        return None
    return None


class DockerConfinement(Confinement):
    backend = "docker"
    slow_checks = True  # finding the container's cgroup asks the engine's CLI (tens of ms a call)

    def __init__(self, name: str, limits: Limits, runner: Runner, engine: Engine, lease: UidLease | None = None,
                 disk_limited: bool = False, workdir: Path | None = None):  # fmt: skip
        super().__init__()
        self.name = name
        self._workdir = workdir  # the CLI's working folder, where conmon reports an OOM kill (_engine_cwd)
        self.fifos: HandedFifos | None = None  # the bot's stdin and stdout (container_fifos.py)
        self._lease = lease
        self.sandbox_uid = lease.uid if lease is not None else None
        self._runner = runner
        self._engine = engine
        self.backend_version = engine.describe()
        self.limits_applied = {
            "memory_mb": {"value": limits.memory_mb, "mechanism": f"{engine.kind} --memory (cgroup)"},
            "processes": {"value": limits.processes, "mechanism": f"{engine.kind} --pids-limit (cgroup)"},
            "cpu_seconds": {"value": limits.cpu_seconds, "mechanism": "watchdog (container cgroup) + rlimit"},
            "wall_seconds": {"value": limits.wall_seconds, "mechanism": "watchdog"},
            "open_files": {"value": limits.open_files, "mechanism": f"{engine.kind} --ulimit nofile"},
            "file_size_mb": {"value": limits.file_size_mb, "mechanism": f"{engine.kind} --ulimit fsize"},
            "tmp_mb": {"value": limits.tmp_mb, "mechanism": f"{engine.kind} --tmpfs size"},
            "cpus": {"value": limits.cpus, "mechanism": f"{engine.kind} --cpus (cgroup)"},
        }
        disk = f"{engine.kind} --device-read/write-bps/iops (cgroup)" if disk_limited else "none"
        self.limits_applied["disk_mb_per_second"] = {"value": limits.disk_mb_per_second, "mechanism": disk}
        self.limits_applied["disk_operations_per_second"] = {"value": limits.disk_operations_per_second,
                                                             "mechanism": disk}  # fmt: skip
        if not disk_limited:
            self.guarantees_weakened.append("disk I/O is not limited: the worker sees no disk to name to the engine")
        self._state: dict | None = None
        self._cgroup = ContainerCgroup()
        self._located = False
        self._locate_attempts = 0

    def decode_status(self, status: int) -> tuple[int | None, int | None]:
        return decode_shell_status(status)

    def live_cpu_seconds(self) -> float | None:
        if not self._located and self._locate_attempts < LOCATE_ATTEMPTS:
            self._locate_attempts += 1
            done = self._runner(self._engine.command("inspect", "--format", "{{.State.Pid}} {{.Id}}", self.name),
                                capture_output=True, text=True, check=False)  # fmt: skip
            pid, _, container_id = done.stdout.strip().partition(" ")
            if done.returncode == 0 and pid.isdigit() and int(pid) > 0 and len(container_id) >= 12:
                self._located = self._cgroup.locate(int(pid), container_id)
                if not self._located:  # running, but its cgroup is not visible from here: it will not become so
                    self._locate_attempts = LOCATE_ATTEMPTS
        if self._located:
            self._cgroup.sample()
        return self._cgroup.cpu_seconds

    def kill_all(self, main_pid: int) -> None:
        self.release_fifos()  # the bot is being killed: nothing will open them any more
        if self._located:
            self._cgroup.sample()  # the bot may have just ended: its cgroup may still be there
        self._inspect()
        # The `run` CLI relays the bot's output; blocked on a full stdout pipe nobody reads, it blocks the
        # engine's monitor too, and the container then cannot be removed. So it goes first, but only while
        # it is our unreaped child (its pid cannot have been reused then).
        try:
            if os.waitid(os.P_PID, main_pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
                os.kill(main_pid, signal.SIGKILL)
        except (ChildProcessError, ProcessLookupError):
            pass
        self._runner(self._engine.command(*self._engine.remove_now(self.name)), capture_output=True, text=True,
                     check=False)  # fmt: skip
        # A container removed while the runtime is still starting it can leave its `runc init` behind, already
        # running as the bot's uid but in no container the engine lists any more. The uid is this run's alone:
        # whatever runs as it is the bot's, and it dies here, before the uid can go to the next bot.
        if self._lease is not None:
            kill_all_processes_of(self._lease.uid)

    def survivors(self) -> list[int]:
        listing = self._runner(self._engine.command("ps", "--all", "--quiet", "--filter", f"name=^{self.name}$"),
                               capture_output=True, text=True, check=False)  # fmt: skip
        left = processes_of(self._lease.uid) if self._lease is not None else []
        return left or ([1] if listing.stdout.strip() else [])

    def _inspect(self) -> None:
        if self._state is not None:
            return
        done = self._runner(self._engine.command("inspect", "--format", "{{json .State}}", self.name),
                            capture_output=True, text=True, check=False)  # fmt: skip
        try:
            self._state = json.loads(done.stdout) if done.returncode == 0 else {}
        except ValueError:
            self._state = {}

    def setup_failed(self) -> bool:
        """Did the engine fail to start the bot (`run` exit 125: a refused option, a missing image, a broken
        runtime)? Decided by what the bot cannot forge: an exit status it can (a bot may exit 125 itself).
        Under Podman the shim hands the pipes over only once the container runs, so no hand-over means the
        bot never ran. Otherwise the engine's record decides: no container (never created), or one that
        never started."""
        if self.fifos is not None and self.fifos.handed_over.is_set():
            return False
        if self.fifos is not None:
            return True
        self._inspect()
        started = (self._state or {}).get("StartedAt") or ""
        return not started or started.startswith(reaper.NEVER_STARTED)

    def release_fifos(self, close_ends: bool = False) -> None:
        """Stop waiting for the shim; `close_ends` also closes the worker's ends (a start that failed)."""
        if self.fifos is not None:
            self.fifos.release()
            if close_ends:
                for fd in (self.fifos.stdin_fd, self.fifos.stdout_fd):
                    with contextlib.suppress(OSError):
                        os.close(fd)

    def ended(self) -> None:
        # `run` exited: the container is gone, or never ran (no image, a refused option). A shim that never
        # opened the FIFOs must not leave the worker reading a stdout that never ends.
        self.release_fifos()

    def cleanup(self) -> None:
        self.release_fifos()
        if self._lease is not None:
            self._lease.release(clean=True)
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)

    def measure(self, rusage) -> Measures:
        self._inspect()
        engine_says = self._state.get("OOMKilled") if self._state else None
        conmon_says = self._workdir is not None and (self._workdir / "oom").exists()
        if engine_says or conmon_says or (self._cgroup.oom_kills or 0) > 0:
            oom = 1
        elif self._engine.kind == "docker" and engine_says is not None:
            oom = 0
        else:
            oom = None  # Podman (conmon) misses OOM kills on cgroup v1: the peak memory decides (report.py)
        if self._cgroup.cpu_seconds is None:
            self.guarantees_weakened.append(
                "CPU time is not measured or capped in total: the container's cgroup is not visible to the worker "
                "(only --cpus bandwidth, a per-process RLIMIT_CPU and the wall limit apply)")  # fmt: skip
        return Measures(cpu_seconds=self._cgroup.cpu_seconds, peak_memory_mb=self._cgroup.peak_memory_mb,
                        oom_kills=oom)  # fmt: skip


def start_docker(command: list[str], bot_dir: Path, limits: Limits, env: dict | None = None,
                 runner: Runner = subprocess.run, popen: Callable[..., subprocess.Popen] = subprocess.Popen,
                 engine: Engine | None = None) -> SandboxProcess:  # fmt: skip
    engine = engine or required_engine()
    if not Path(bot_dir).is_dir():
        raise SandboxError(f"bot directory {bot_dir} does not exist or is not a directory")
    started = time.monotonic()
    site = site_id()  # a malformed KOZYR_SITE_ID is said before anything is taken
    name = f"kozyr-bot-{uuid.uuid4().hex[:16]}"
    deadline = int(time.time() + limits.wall_seconds + reaper.DEADLINE_MARGIN_SECONDS)
    workdir = _engine_cwd(name)
    # A root worker gives each container a uid of its own, leased like bwrap's (per-user kernel counters
    # and limits are then the bot's alone); otherwise every bot is `nobody`.
    try:
        lease = lease_uid() if can_switch_uid() else None
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    argv = run_command(command, bot_dir, limits, name=name, deadline=deadline, env=bot_environment(env),
                       image_name=image(), engine=engine, seccomp_profile=container_seccomp.profile_path(),
                       owner=reaper.owner_token(), site=site, worker=reaper.worker_container(engine, runner),
                       uid=lease.uid if lease is not None else DEFAULT_UID,
                       disks=disks(), fifos=workdir / "pipes")  # fmt: skip
    # The CLI (not the bot) gets the worker's engine settings; the bot gets only --env values.
    cli_env = {key: value for key, value in os.environ.items()
               if key.startswith(("DOCKER_", "CONTAINERS_"))
               or key in ("PATH", "HOME", "XDG_RUNTIME_DIR", "CONTAINER_HOST", "CONTAINER_CONNECTION")}  # fmt: skip
    confinement = DockerConfinement(name, limits, runner, engine, lease, disk_limited=bool(disks()), workdir=workdir)
    try:
        confinement.fifos = HandedFifos(workdir / "pipes", lease.uid if lease is not None else None)
        process = popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        bufsize=0, env=cli_env, start_new_session=True, cwd=str(workdir))  # fmt: skip
        process.stdin = os.fdopen(confinement.fifos.stdin_fd, "wb", buffering=0)
        process.stdout = os.fdopen(confinement.fifos.stdout_fd, "rb", buffering=0)
    except OSError as error:
        confinement.release_fifos(close_ends=True)
        confinement.cleanup()
        raise SandboxError(f"could not run {engine.kind}: {error}") from error
    return SandboxProcess(process, confinement, limits, started, time.monotonic() - started)


def _engine_cwd(name: str) -> Path:
    """Where the engine's CLI runs for one container: `engine/<owner>.<name>`. Podman's conmon leaves an
    `oom` file in its working folder after an out-of-memory kill: in a folder of its own, that file says which
    container it was (on cgroup v1 Podman's own OOMKilled flag misses it, and a bot killed within its first
    watchdog tick leaves no cgroup to read), and it never lands in the worker's folder. Removed at cleanup,
    or by the leftovers sweep when the worker died (sandbox/leftovers.py)."""
    engine = state_dir() / "engine"
    engine.mkdir(mode=0o700, exist_ok=True)
    folder = engine / f"{owner()}.{name}"
    folder.mkdir(mode=0o700)
    return folder
