"""Control groups for one run: limits (memory, tasks, CPU bandwidth), accounting, and killing the whole group.

Machines differ: pure cgroup v2, hybrid (v1 controllers plus a v2 mount without controllers), or no writable
cgroups at all (unprivileged, some containers). `detect()` looks once at what this process can use; `Run`
creates one cgroup per hierarchy under the worker's own cgroup (in a `kozyr-sandbox` folder, never touching
the worker's cgroup settings) and records which mechanism enforces each limit.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .limits import Limits

FOLDER = "kozyr-sandbox"
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "blkio")
CFS_PERIOD_US = 100_000


@dataclass(frozen=True)
class Support:
    """Where this process may create cgroups: its own v2 cgroup and its own v1 cgroup per controller."""

    v2_home: Path | None = None
    v1_homes: dict[str, Path] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return self.v2_home is not None or bool(self.v1_homes)


@cache
def detect() -> Support:
    """Find the cgroup hierarchies mounted here in which this process can create a child group."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        memberships = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return Support()
    own_v1: dict[str, str] = {}
    own_v2 = None
    for line in memberships:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            own_v2 = path
        for name in controllers.split(","):
            own_v1[name] = path
    v2_home = None
    v1_homes: dict[str, Path] = {}
    for line in mounts:
        before, after = line.split(" - ", 1)
        fstype, _source, options = after.split(" ", 2)
        root, mountpoint = before.split(" ")[3:5]
        if fstype == "cgroup2" and own_v2 is not None and v2_home is None:
            v2_home = _writable_home(mountpoint, root, own_v2)
        elif fstype == "cgroup":
            for name in V1_CONTROLLERS:
                if name in options.split(",") and name in own_v1 and name not in v1_homes:
                    home = _writable_home(mountpoint, root, own_v1[name])
                    if home is not None:
                        v1_homes[name] = home
    return Support(v2_home=v2_home, v1_homes=v1_homes)


def _writable_home(mountpoint: str, root: str, own: str) -> Path | None:
    relative = own[len(root) :] if root != "/" and own.startswith(root) else own
    folder = Path(mountpoint, relative.lstrip("/"), FOLDER)
    try:
        folder.mkdir(mode=0o755, exist_ok=True)
        probe = folder / f"probe-{os.getpid()}"
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return None
    return folder


class Run:
    """The cgroups of one sandboxed run (one per usable hierarchy)."""

    def __init__(self, support: Support, name: str, limits: Limits):
        self.dirs: list[Path] = []
        self.mechanisms: dict[str, str] = {}
        self._v2: Path | None = None
        self._v1: dict[str, Path] = {}
        try:
            self._create(support, name, limits)
        except BaseException:
            self.remove()
            raise

    def _create(self, support: Support, name: str, limits: Limits) -> None:
        if support.v2_home is not None:
            self._v2 = self._mkdir(support.v2_home / name)
            enabled = _enable_v2_controllers(support.v2_home)
            if "memory" in enabled and _write(self._v2, "memory.max", limits.memory_mb << 20):
                _write(self._v2, "memory.swap.max", 0)
                _write(self._v2, "memory.oom.group", 1)
                self.mechanisms["memory_mb"] = "cgroup v2"
            if "pids" in enabled and _write(self._v2, "pids.max", limits.processes + _OVERHEAD_TASKS):
                self.mechanisms["processes"] = "cgroup v2"
            if "cpu" in enabled and _write(self._v2, "cpu.max", f"{_quota_us(limits)} {CFS_PERIOD_US}"):
                self.mechanisms["cpus"] = "cgroup v2"
            self.mechanisms["cpu_accounting"] = "cgroup v2"
            if "io" in enabled and _write_each(self._v2, "io.max", [
                f"{device} rbps={_bps(limits)} wbps={_bps(limits)} riops={limits.disk_operations_per_second} "
                f"wiops={limits.disk_operations_per_second}" for device in block_devices()
            ]):  # fmt: skip
                self.mechanisms["disk_io"] = "cgroup v2 io.max"
        for controller, home in support.v1_homes.items():
            if controller == "memory" and "memory_mb" not in self.mechanisms:
                group = self._mkdir(home / name)
                if _write(group, "memory.limit_in_bytes", limits.memory_mb << 20):
                    _write(group, "memory.memsw.limit_in_bytes", limits.memory_mb << 20)
                    self._v1["memory"] = group
                    self.mechanisms["memory_mb"] = "cgroup v1"
            elif controller == "pids" and "processes" not in self.mechanisms:
                group = self._mkdir(home / name)
                if _write(group, "pids.max", limits.processes + _OVERHEAD_TASKS):
                    self._v1["pids"] = group
                    self.mechanisms["processes"] = "cgroup v1"
            elif controller == "cpu" and "cpus" not in self.mechanisms:
                group = self._mkdir(home / name)
                if _write(group, "cpu.cfs_period_us", CFS_PERIOD_US) and _write(
                    group, "cpu.cfs_quota_us", _quota_us(limits)
                ):
                    self._v1["cpu"] = group
                    self.mechanisms["cpus"] = "cgroup v1"
            elif controller == "blkio" and "disk_io" not in self.mechanisms:
                group = self._mkdir(home / name)
                bandwidth = [f"{device} {_bps(limits)}" for device in block_devices()]
                operations = [f"{device} {limits.disk_operations_per_second}" for device in block_devices()]
                if all([_write_each(group, "blkio.throttle.read_bps_device", bandwidth),
                        _write_each(group, "blkio.throttle.write_bps_device", bandwidth),
                        _write_each(group, "blkio.throttle.read_iops_device", operations),
                        _write_each(group, "blkio.throttle.write_iops_device", operations)]):  # fmt: skip
                    self._v1["blkio"] = group
                    self.mechanisms["disk_io"] = "cgroup v1 blkio throttle"
            elif controller == "cpuacct" and "cpu_accounting" not in self.mechanisms:
                self._v1["cpuacct"] = self._mkdir(home / name)
                self.mechanisms["cpu_accounting"] = "cgroup v1"

    def _mkdir(self, path: Path) -> Path:
        path.mkdir(mode=0o755)
        self.dirs.append(path)
        return path

    @property
    def procs_files(self) -> list[bytes]:
        """The files a new process writes its pid into to join every group (used between fork and exec)."""
        return [os.fsencode(path / "cgroup.procs") for path in self.dirs]

    @property
    def v2_dir(self) -> str | None:
        return str(self._v2) if self._v2 is not None else None

    @property
    def v1_dirs(self) -> list[str]:
        """Every v1 group of the run (the v2 one is joined at birth, see launcher.py)."""
        return [str(path) for path in self.dirs if path != self._v2]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for path in self.dirs:
            with contextlib.suppress(OSError):
                found.update(int(pid) for pid in (path / "cgroup.procs").read_text().split())
        return found

    def cpu_seconds(self) -> float | None:
        if self._v2 is not None:
            with contextlib.suppress(OSError, ValueError):
                for line in (self._v2 / "cpu.stat").read_text().splitlines():
                    key, value = line.split()
                    if key == "usage_usec":
                        return int(value) / 1e6
        if "cpuacct" in self._v1:
            with contextlib.suppress(OSError, ValueError):
                return int((self._v1["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        return None

    def peak_memory_mb(self) -> float | None:
        candidates = []
        if self._v2 is not None and self.mechanisms.get("memory_mb") == "cgroup v2":
            candidates.append(self._v2 / "memory.peak")
        if "memory" in self._v1:
            candidates.append(self._v1["memory"] / "memory.max_usage_in_bytes")
        for path in candidates:
            with contextlib.suppress(OSError, ValueError):
                return int(path.read_text()) / (1 << 20)
        return None

    def oom_kills(self) -> int | None:
        if self._v2 is not None and self.mechanisms.get("memory_mb") == "cgroup v2":
            return _keyed(self._v2 / "memory.events", "oom_kill")
        if "memory" in self._v1:
            return _keyed(self._v1["memory"] / "memory.oom_control", "oom_kill")
        return None

    def kill(self) -> None:
        """SIGKILL every process in the group, including ones that forked while we looked."""
        if self._v2 is not None and _write(self._v2, "cgroup.kill", 1):
            return
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)

    def remove(self) -> None:
        """Delete the groups once empty. rmdir on cgroupfs never follows links and never touches bot files."""
        for path in reversed(self.dirs):
            for attempt in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as error:
                    if error.errno != errno.EBUSY or attempt == 99:
                        raise
                    time.sleep(0.01)
        self.dirs.clear()


# bwrap's launcher is in the group too.
_OVERHEAD_TASKS = 1


def _quota_us(limits: Limits) -> int:
    return max(1000, round(limits.cpus * CFS_PERIOD_US))


def _enable_v2_controllers(folder: Path) -> set[str]:
    """Enable memory/pids/cpu for the children of our folder when the worker's cgroup delegates them to us."""
    try:
        available = set((folder / "cgroup.controllers").read_text().split())
        wanted = available & {"memory", "pids", "cpu", "io"}
        enabled = set((folder / "cgroup.subtree_control").read_text().split())
        for name in wanted - enabled:
            if _write(folder, "cgroup.subtree_control", f"+{name}"):
                enabled.add(name)
        return enabled & wanted
    except OSError:
        return set()


@cache
def block_devices() -> tuple[str, ...]:
    """MAJ:MIN of every whole disk behind a mounted filesystem (a partition is throttled through its disk;
    loop devices of unmounted images, zram swap and the like are left alone: one rule per disk per start)."""
    found: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            device = line.split()[2]
            if device.split(":")[0] == "0":
                continue  # tmpfs, proc, overlay...: no block device
            with contextlib.suppress(OSError):
                block = Path("/sys/dev/block", device).resolve()
                disk = block.parent if (block / "partition").exists() else block
                found.add((disk / "dev").read_text().strip())
    return tuple(sorted(found))


def _bps(limits: Limits) -> int:
    return limits.disk_mb_per_second << 20


def _write_each(folder: Path, name: str, lines: list[str]) -> bool:
    """One rule per write (the kernel parses one per call); True when at least one disk took it."""
    return sum(_write(folder, name, line) for line in lines) > 0


def _write(folder: Path, name: str, value: object) -> bool:
    try:
        fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.write(fd, str(value).encode())
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _keyed(path: Path, key: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == key:
                return int(parts[1])
    return None
