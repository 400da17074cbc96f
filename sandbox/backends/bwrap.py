"""The `bwrap` backend: bubblewrap namespaces + a distinct uid + cgroups (or rlimits) + seccomp.

Layers, outermost first (docs/sandbox.md says what each one stops):
1. a uid of its own (leased from a range, root workers only), so per-user limits and kill permissions
   separate bots from each other and from the worker;
2. cgroups for memory, tasks, CPU and disk I/O (falling back to rlimits, stated in the report);
3. bubblewrap: new user/pid/net/ipc/uts/cgroup/mount namespaces, no nested user namespaces, a read-only
   root made of /usr and a few files, the bot's files read-only at /bot, a size-limited private /tmp, the
   machine-wide counters of /proc covered, no pty; started with an empty environment so even its own pid 1
   holds nothing of the worker's, and with the bot's pipes out of reach of its outer process;
4. a seccomp filter (sandbox/seccomp_filter.py) refusing kernel interfaces no bot needs and the shared kernel
   objects two bots could talk through.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
import termios
import time
from functools import cache
from pathlib import Path

from .. import cgroups, janitor, runtimes, seccomp_filter
from ..environment import SANDBOX_PATH, bot_environment
from ..errors import SandboxError
from ..launcher import Plan, spawn
from ..limits import Limits
from ..proc_masks import PROC_MASKED_DIRS, PROC_MASKED_FILES
from ..process import Confinement, SandboxProcess, decode_shell_status
from ..rlimits import rlimits_for
from ..scripts import check_interpreter
from ..state import state_dir
from ..uids import UidLease, can_switch_uid, kill_all_processes_of, lease_uid, processes_of
from .bwrap_staging import Staging

BOT_MOUNT = "/bot"
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
# /etc stays almost empty: the loader cache (faster start, copied in: a file costs bwrap less to write than
# to bind), the time zone (a symlink into /usr where the host has one), Debian's alternatives links (some
# interpreters are reached through them; one bind, as 400 symlinks cost more) and the bot's own passwd and
# group. No resolv.conf, hosts, passwd of the host.
LOADER_CACHE = "/etc/ld.so.cache"
TIME_ZONE = "/etc/localtime"
ALTERNATIVES = "/etc/alternatives"
HOSTNAME = "sandbox"
# Only these devices, bound from the host: no /dev/tty, no /dev/pts or /dev/ptmx (the number of ptys is a
# machine-wide counter one bot could move and another read), no /dev/shm.
DEVICES = ("null", "zero", "full", "random", "urandom")
DEVICE_LINKS = (("/proc/self/fd", "/dev/fd"), ("/proc/self/fd/0", "/dev/stdin"), ("/proc/self/fd/1", "/dev/stdout"),
                ("/proc/self/fd/2", "/dev/stderr"))  # fmt: skip
# The descriptors bwrap is started with (moved there between fork and exec, see launcher.Plan): the bot's
# stdin and stdout are not bwrap's own 0 and 1 (/dev/null), so bwrap's outer process, which closes every
# descriptor above 2, holds no end of them, and a bot that closes its stdout or stdin is seen at once.
BOT_STDIN_FD, BOT_STDOUT_FD, ARGS_FD, SECCOMP_FD, PASSWD_FD, GROUP_FD, LOADER_CACHE_FD = 3, 4, 5, 6, 7, 8, 9
# The first program in the sandbox: moves those two descriptors onto 0 and 1, then becomes the bot (pid 1).
SHIM = ("/usr/bin/sh", "-c", f'exec 0<&{BOT_STDIN_FD} 1>&{BOT_STDOUT_FD} {BOT_STDIN_FD}<&- {BOT_STDOUT_FD}>&- && '
        'exec "$@"', "sh")  # fmt: skip


@cache
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@cache
def bwrap_version() -> str:
    binary = bwrap_path()
    if binary is None:
        return ""
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, env={}, check=False)
    return done.stdout.strip() or done.stderr.strip()


def system_mounts(root: Path = Path("/")) -> list[str]:
    """Mount the host's system folders read-only, recreating merged-/usr symlinks as symlinks."""
    args: list[str] = []
    for name in SYSTEM_DIRS:
        host = root / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    return args


@cache
def etc_entries() -> tuple[str, ...]:
    """The time zone and the alternatives links (the loader cache, passwd and group are files, see
    build_command)."""
    zone = os.readlink(TIME_ZONE) if os.path.islink(TIME_ZONE) else ""
    if zone.startswith("/") and zone.split("/")[1] in SYSTEM_DIRS:
        args = ["--symlink", zone, TIME_ZONE]
    else:
        args = ["--ro-bind-try", TIME_ZONE, TIME_ZONE]
    args += ["--ro-bind-try", ALTERNATIVES, ALTERNATIVES]
    for folder in runtimes.ETC_FOLDERS:  # a runtime's own configuration (the JDK's conf links into /etc)
        args += ["--ro-bind-try", folder, folder]
    return tuple(args)


def read_only_file(fd: int, path: str) -> list[str]:
    """bwrap copies the descriptor's data into a new file (no mount; / is remounted read-only after)."""
    return ["--perms", "0444", "--file", str(fd), path]


@cache
def proc_masks() -> tuple[str, ...]:
    """bwrap arguments covering the machine-wide /proc entries that exist on this kernel."""
    empty_file, empty_dir = mask_sources()
    args: list[str] = []
    for name in PROC_MASKED_FILES:
        if os.path.isfile(f"/proc/{name}"):
            args += ["--ro-bind", str(empty_file), f"/proc/{name}"]
    for name in PROC_MASKED_DIRS:
        if os.path.isdir(f"/proc/{name}"):
            args += ["--ro-bind", str(empty_dir), f"/proc/{name}"]
    return tuple(args)


def mask_sources() -> tuple[Path, Path]:
    """An empty file and an empty folder in the state folder, readable by every sandbox uid."""
    folder = state_dir() / "masks"
    folder.mkdir(mode=0o755, exist_ok=True)
    empty_file, empty_dir = folder / "empty", folder / "empty-dir"
    if not empty_file.is_file():
        empty_file.touch(mode=0o444)
    empty_dir.mkdir(mode=0o555, exist_ok=True)
    return empty_file, empty_dir


@cache
def device_mounts() -> tuple[str, ...]:
    """/dev as one bind of a prepared folder (device_folder) where this machine allows it, else one bind per
    device: each bind costs bubblewrap a mount and a read of the mount table, and two sandboxes starting at
    once wait for each other's mounts."""
    folder = device_folder()
    if folder is not None:
        return ("--dev-bind", str(folder), "/dev")
    args: list[str] = []
    for name in DEVICES:
        args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for target, link in DEVICE_LINKS:
        args += ["--symlink", target, link]
    return tuple(args)


def device_folder() -> Path | None:
    """`<state>/dev-<layout>`: root's, mode 0755, holding only the DEVICES (as nodes made with mknod, the
    same numbers as the host's) and the DEVICE_LINKS. None when this process cannot make device nodes (not
    root) or the state folder's filesystem refuses to open them (mounted nodev, as a tmpfs /run often is).

    The bot cannot change anything in it: not root, no capability, and the seccomp filter refuses utime*.
    The nodes' inodes are shared between sandboxes as the host's /dev/null is when bound directly; the
    folder's access time is set in the future, so that listing /dev never updates it (relatime) and it
    carries no bit from one sandbox to another.

    Workers starting together may race to build it: each builds its own and renames it into place, and a
    loser uses the winner's. A folder that exists but fails the check is never removed (another worker may
    be using it): this process then binds each device instead."""
    if os.geteuid() != 0:
        return None
    layout = hashlib.sha256(repr((DEVICES, DEVICE_LINKS)).encode()).hexdigest()[:8]
    folder = state_dir() / f"dev-{layout}"
    if _is_device_folder(folder):
        return folder
    building = Path(tempfile.mkdtemp(prefix=".dev.", dir=state_dir()))
    try:
        for name in DEVICES:
            host = os.stat(f"/dev/{name}")
            os.mknod(building / name, 0o666 | stat.S_IFCHR, host.st_rdev)
            os.chmod(building / name, 0o666)  # mknod's mode passes through the umask
        for target, link in DEVICE_LINKS:
            os.symlink(target, building / os.path.basename(link))
        os.chmod(building, 0o755)
        info = os.stat(building)
        os.utime(building, ns=(info.st_mtime_ns + FUTURE_NS, info.st_mtime_ns))
        os.rename(building, folder)  # fails when a folder is already there
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
    return folder if _is_device_folder(folder) else None


# A hundred years: the device folder's access time stays after its change times, so relatime never moves it.
FUTURE_NS = 100 * 365 * 24 * 3600 * 10**9


def _is_device_folder(folder: Path) -> bool:
    """Exactly the expected entries, root's and unwritable by others, and /dev/null there really opens."""
    try:
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o7777 != 0o755:
            return False
        expected = set(DEVICES) | {os.path.basename(link) for _, link in DEVICE_LINKS}
        if set(os.listdir(folder)) != expected:
            return False
        for name in DEVICES:
            node, host = os.lstat(folder / name), os.stat(f"/dev/{name}")
            if not stat.S_ISCHR(node.st_mode) or node.st_rdev != host.st_rdev or node.st_uid != 0 or \
                    node.st_mode & 0o7777 != 0o666:  # fmt: skip
                return False
        for target, link in DEVICE_LINKS:
            if os.readlink(folder / os.path.basename(link)) != target:
                return False
        os.close(os.open(folder / "null", os.O_WRONLY | os.O_CLOEXEC))  # EACCES on a nodev filesystem
    except OSError:
        return False
    return True


def build_command(command: list[str], staged_bot: Path, limits: Limits, *, seccomp_fd: int = SECCOMP_FD,
                  passwd_fd: int = PASSWD_FD, group_fd: int = GROUP_FD,
                  loader_cache_fd: int | None = LOADER_CACHE_FD) -> list[str]:  # fmt: skip
    """bubblewrap's options for one run (pure: tests read it). They reach bwrap through --args, not its
    command line, so `ps` shows no path of the bot's files (see launch_argv)."""
    return [
        "--unshare-all", "--unshare-user", "--disable-userns", "--hostname", HOSTNAME,
        "--die-with-parent", "--new-session",
        # The bot itself is pid 1 of its namespace, a direct child of the launcher: the launcher's wait
        # status and rusage are the bot's (CPU and peak memory without cgroups), and when the bot ends the
        # kernel kills everything else in the namespace.
        "--as-pid-1",
        *system_mounts(),
        *(read_only_file(loader_cache_fd, LOADER_CACHE) if loader_cache_fd is not None else ()),
        *etc_entries(),
        *read_only_file(passwd_fd, "/etc/passwd"),
        *read_only_file(group_fd, "/etc/group"),
        "--proc", "/proc",
        *proc_masks(),
        *device_mounts(),
        "--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp",
        "--ro-bind", str(staged_bot), BOT_MOUNT,
        "--chdir", BOT_MOUNT,
        # Last: nothing else may be created in / (a tmpfs without a size limit).
        "--remount-ro", "/",
        "--seccomp", str(seccomp_fd),
    ]  # fmt: skip


def launch_argv(bwrap: str, command: list[str]) -> list[str]:
    """What `ps` shows: bwrap, where its options come from, and the bot's own command (no host path)."""
    return [bwrap, "--args", str(ARGS_FD), "--", *SHIM, *command]


def resolve_in_sandbox(program: str, staged_bot: Path) -> Path:
    """The host file the sandbox will execute for `program`, or a SandboxError saying it is missing."""
    if program.startswith(BOT_MOUNT + "/"):
        candidates = [staged_bot / program[len(BOT_MOUNT) + 1 :]]
    elif program.startswith("/"):
        top = program.split("/")[1]
        candidates = [Path(program)] if top in SYSTEM_DIRS else []
    elif "/" in program:
        candidates = [staged_bot / program]
    else:
        candidates = [Path(folder, program) for folder in SANDBOX_PATH.split(":")]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            check_interpreter(candidate, program, lambda path: _runnable_inside(path, staged_bot), SANDBOX_PATH)
            return candidate
    raise SandboxError(
        f"command {program!r} cannot be run inside the sandbox: it must be an executable under /usr (or "
        f"{BOT_MOUNT}), or a name found in {SANDBOX_PATH}"
    )


def _runnable_inside(path: str, staged_bot: Path) -> bool:
    """Whether an absolute path names an executable file inside the sandbox."""
    if path.startswith(BOT_MOUNT + "/"):
        host = staged_bot / path[len(BOT_MOUNT) + 1 :]
    elif path.startswith("/") and path.split("/")[1] in SYSTEM_DIRS:
        host = Path(path)
    else:
        return False
    return host.is_file() and os.access(host, os.X_OK)


class BwrapConfinement(Confinement):
    backend = "bwrap"

    def __init__(self, limits: Limits, use_cgroups: bool | None):
        super().__init__()
        self.backend_version = bwrap_version()
        self._lease: UidLease | None = None
        self._cgroups: cgroups.Run | None = None
        self._staging: Staging | None = None
        self._seccomp_fd: int | None = None
        self._limits = limits
        self._use_cgroups = use_cgroups

    def prepare(self, bot_dir: Path) -> None:
        if can_switch_uid():
            lease = self._lease = lease_uid()
            self.sandbox_uid = lease.uid
        self._staging = Staging(bot_dir, self.sandbox_uid)
        support = cgroups.detect() if self._use_cgroups is not False else cgroups.Support()
        if self._use_cgroups and not support.usable:
            raise SandboxError("cgroups were required but this process cannot create any")
        if support.usable:
            name = os.path.basename(self._staging.root)  # <owner>.<random>: see sandbox/leftovers.py
            self._cgroups = cgroups.Run(support, name, self._limits)
        self._describe_limits()

    @property
    def staged_bot(self) -> Path:
        if self._staging is None:
            raise SandboxError("the bot's files are not staged yet: prepare() comes first")
        return self._staging.bot

    def launch_plan(self, fds: dict[int, int]) -> Plan:
        mechanisms = self._cgroups.mechanisms if self._cgroups else {}
        rlimits = rlimits_for(
            self._limits,
            memory="memory_mb" not in mechanisms,
            processes=self._lease is not None,
        )
        if self._cgroups is None:
            return Plan(None, [], rlimits, self.sandbox_uid, fds)
        return Plan(self._cgroups.v2_dir, self._cgroups.v1_dirs, rlimits, self.sandbox_uid, fds)

    def open_seccomp(self) -> int:
        self._seccomp_fd = seccomp_filter.program_fd()
        return self._seccomp_fd

    def _describe_limits(self) -> None:
        mechanisms = self._cgroups.mechanisms if self._cgroups else {}
        weakened = self.guarantees_weakened
        limits = self._limits
        memory = mechanisms.get("memory_mb")
        if memory is None:
            memory = "rlimit RLIMIT_DATA (per process)"
            weakened.append(
                "memory is limited per process (RLIMIT_DATA), not for the bot as a whole; /tmp is not counted; "
                "out-of-memory is inferred from a failure near the limit"
            )
        tasks = [mechanisms["processes"]] if "processes" in mechanisms else []
        if self._lease is not None:
            tasks.append("rlimit RLIMIT_NPROC (own uid)")
        else:
            weakened.append("no uid of its own: the bot runs as the worker's uid (needs a root worker)")
            if not tasks:
                weakened.append("the number of processes is not limited")
        accounting = mechanisms.get("cpu_accounting")
        if accounting is None:
            cpu = "rlimit RLIMIT_CPU (per process)"
            weakened.append("CPU time is limited per process (RLIMIT_CPU), not summed over the bot's processes")
        else:
            cpu = f"{accounting} accounting + watchdog; RLIMIT_CPU backstop"
        if "cpus" not in mechanisms:
            weakened.append("CPU bandwidth is not capped: the bot may use every core at once")
        if self._cgroups is None:
            weakened.append("no cgroup: the bot's processes are found by uid or through bwrap's pid namespace")
        disk = mechanisms.get("disk_io")
        if disk is None:
            weakened.append("disk I/O is not limited (no blkio or io cgroup): reading uncached system files can "
                            "slow the disk for every bot")  # fmt: skip
        else:
            disk += " (reads of uncached files; a bwrap bot has no disk to write to)"
        self.limits_applied = {
            "memory_mb": {"value": limits.memory_mb, "mechanism": memory},
            "processes": {"value": limits.processes, "mechanism": " + ".join(tasks) or "none"},
            "cpu_seconds": {"value": limits.cpu_seconds, "mechanism": cpu},
            "wall_seconds": {"value": limits.wall_seconds, "mechanism": "watchdog"},
            "open_files": {"value": limits.open_files, "mechanism": "rlimit RLIMIT_NOFILE"},
            "file_size_mb": {"value": limits.file_size_mb, "mechanism": "rlimit RLIMIT_FSIZE"},
            "tmp_mb": {"value": limits.tmp_mb, "mechanism": "tmpfs size"},
            "cpus": {"value": limits.cpus, "mechanism": mechanisms.get("cpus", "none")},
            "disk_mb_per_second": {"value": limits.disk_mb_per_second, "mechanism": disk or "none"},
            "disk_operations_per_second": {"value": limits.disk_operations_per_second, "mechanism": disk or "none"},
        }

    # -- Confinement ----------------------------------------------------------------------------------
    def decode_status(self, status: int) -> tuple[int | None, int | None]:
        return decode_shell_status(status)

    def live_cpu_seconds(self) -> float | None:
        return self._cgroups.cpu_seconds() if self._cgroups else None

    def kill_all(self, main_pid: int) -> None:
        # Nothing inside can leave its cgroup (cgroupfs is not mounted in the sandbox), so when a cgroup
        # tracks the bot it is the complete list; the uid sweep is for machines without one.
        if self._cgroups is not None:
            self._cgroups.kill()
        elif self._lease is not None:
            kill_all_processes_of(self._lease.uid)
        else:
            # bwrap's pid 1 and everything in its pid namespace die with the launcher (--die-with-parent).
            with contextlib.suppress(ProcessLookupError):
                os.kill(main_pid, 9)

    def survivors(self) -> list[int]:
        if self._cgroups is not None:
            return sorted(self._cgroups.pids())
        return processes_of(self._lease.uid) if self._lease is not None else []

    def setup_failed(self) -> bool:
        if self._seccomp_fd is None:
            return True
        unread = array.array("i", [0])
        fcntl.ioctl(self._seccomp_fd, termios.FIONREAD, unread)
        return unread[0] > 0

    def cleanup(self) -> None:
        if self._seccomp_fd is not None:
            os.close(self._seccomp_fd)
            self._seccomp_fd = None
        # Every process is dead: the uid is free at once, the folders go on the janitor's thread.
        if self._lease is not None:
            self._lease.release()
        if self._cgroups is not None:
            janitor.later(self._cgroups.remove)
        if self._staging is not None:
            janitor.later(self._staging.remove)


def start_bwrap(command: list[str], bot_dir: Path, limits: Limits, env: dict | None = None,
                use_cgroups: bool | None = None) -> SandboxProcess:  # fmt: skip
    binary = bwrap_path()
    if binary is None:
        raise SandboxError(
            "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap, or `make system-deps`) "
            "or choose backend='docker'"
        )
    started = time.monotonic()
    environment = bot_environment(env)
    confinement = BwrapConfinement(limits, use_cgroups)
    child_fds: list[int] = []
    plan: Plan | None = None
    streams: list = []
    try:
        confinement.prepare(bot_dir)
        resolve_in_sandbox(command[0], confinement.staged_bot)
        uid = confinement.sandbox_uid if confinement.sandbox_uid is not None else os.getuid()
        gid = uid if confinement.sandbox_uid is not None else os.getgid()
        stdin_read, stdin_write = os.pipe()
        child_fds.append(stdin_read)
        streams.append(open(stdin_write, "wb", buffering=0))  # noqa: SIM115 - handed to SandboxProcess
        stdout_read, stdout_write = os.pipe()
        child_fds.append(stdout_write)
        streams.append(open(stdout_read, "rb", buffering=0))  # noqa: SIM115 - handed to SandboxProcess
        fds = {BOT_STDIN_FD: stdin_read, BOT_STDOUT_FD: stdout_write}
        fds[PASSWD_FD] = _data_fd(f"bot:x:{uid}:{gid}:bot:/tmp:/usr/sbin/nologin\n")
        child_fds.append(fds[PASSWD_FD])
        fds[GROUP_FD] = _data_fd(f"bot:x:{gid}:\n")
        child_fds.append(fds[GROUP_FD])
        fds[SECCOMP_FD] = confinement.open_seccomp()
        loader_cache = _open_loader_cache()
        if loader_cache is not None:
            fds[LOADER_CACHE_FD] = loader_cache
            child_fds.append(loader_cache)
        options = build_command(command, confinement.staged_bot, limits,
                                loader_cache_fd=LOADER_CACHE_FD if loader_cache is not None else None)  # fmt: skip
        fds[ARGS_FD] = _data_fd("\0".join(options) + "\0")
        child_fds.append(fds[ARGS_FD])
        plan = confinement.launch_plan(fds)
        popen = spawn(plan, launch_argv(binary, command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                      env=environment, cwd="/")  # fmt: skip
        launcher = plan.hand_over(popen.pid)
    except subprocess.SubprocessError as error:
        if plan is not None:  # set just before Popen, the only raiser of SubprocessError
            plan.reap_reported()
        _close_all(streams)
        confinement.cleanup()
        raise SandboxError(f"could not start bubblewrap as the sandbox uid: {error}") from error
    except BaseException:
        if plan is not None:
            plan.reap_reported()
        _close_all(streams)
        confinement.cleanup()
        raise
    finally:
        for fd in child_fds:
            os.close(fd)
        if plan is not None:
            plan.close()
    stdin, stdout = streams
    return SandboxProcess(popen, confinement, limits, started, time.monotonic() - started, pid=launcher,
                          stdin=stdin, stdout=stdout)  # fmt: skip


def _close_all(streams: list) -> None:
    for stream in streams:
        stream.close()


def _open_loader_cache() -> int | None:
    try:
        return os.open(LOADER_CACHE, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None


def _data_fd(text: str) -> int:
    read_end, write_end = os.pipe()
    os.write(write_end, text.encode())
    os.close(write_end)
    return read_end


@cache
def preflight() -> str | None:
    """None when bwrap can start a trivial program here with every layer on, else why not."""
    if bwrap_path() is None:
        return "bubblewrap (bwrap) is not installed"
    with tempfile.TemporaryDirectory() as empty:
        try:
            process = start_bwrap(["/usr/bin/true"] if Path("/usr/bin/true").exists() else ["true"], Path(empty),
                                  Limits(wall_seconds=20))  # fmt: skip
        except SandboxError as error:
            return str(error)
        report = process.finish(grace_seconds=10)
        error_text = process.stderr.read().decode(errors="replace").strip() if process.stderr else ""
        process.close()
    if report.outcome != "ok":
        return f"bubblewrap cannot start a sandbox here ({report.detail}): {error_text}"
    return None
