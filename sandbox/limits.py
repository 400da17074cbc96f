"""Resource limits for one sandboxed bot: a frozen, validated value object."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from .errors import SandboxError

# (low, high, unit) for every limit. The bounds are sanity bounds, not policy: they catch typos such as a
# memory limit given in bytes, and values no interpreter can start with.
_BOUNDS: dict[str, tuple[float, float, str]] = {
    "memory_mb": (16, 65536, "MiB of memory (RAM + swap) for all the bot's processes together"),
    "processes": (1, 4096, "processes and threads the bot may run at once"),
    "cpu_seconds": (0.01, 7 * 86400, "seconds of CPU time in total"),
    "wall_seconds": (0.01, 7 * 86400, "seconds of wall-clock time from start"),
    "open_files": (16, 65536, "open file descriptors per process"),
    "file_size_mb": (0, 65536, "MiB, the largest file a process may write"),
    "tmp_mb": (1, 4096, "MiB of private /tmp"),
    "cpus": (0.01, 1024, "CPU cores' worth of bandwidth at any instant"),
    "disk_mb_per_second": (1, 100_000, "MiB per second read from (or written to) each disk"),
    "disk_operations_per_second": (10, 1_000_000, "read (or write) operations per second on each disk"),
}
_INTEGERS = {"memory_mb", "processes", "open_files", "file_size_mb", "tmp_mb", "disk_mb_per_second",
             "disk_operations_per_second"}


@dataclass(frozen=True)
class Limits:
    """What one bot may use. Defaults suit a card-game bot written in Python or JavaScript."""

    memory_mb: int = 256
    processes: int = 32
    cpu_seconds: float = 60.0
    wall_seconds: float = 600.0
    open_files: int = 64
    file_size_mb: int = 16
    tmp_mb: int = 16
    cpus: float = 1.0
    # Disk I/O below the page cache (a bot's reads of uncached system files; it has no disk to write to
    # under bwrap): what one bot may take from each disk, so it cannot starve the others.
    disk_mb_per_second: int = 50
    disk_operations_per_second: int = 1000

    def __post_init__(self) -> None:
        for field in fields(self):
            _check(field.name, getattr(self, field.name))

    def to_dict(self) -> dict:
        return asdict(self)


def _check(name: str, value: object) -> None:
    low, high, unit = _BOUNDS[name]
    kind = "an integer" if name in _INTEGERS else "a number"
    wrong_type = isinstance(value, bool) or (name in _INTEGERS and not isinstance(value, int))
    if wrong_type or not isinstance(value, int | float) or not math.isfinite(value) or not low <= value <= high:
        raise SandboxError(f"Limits.{name} must be {kind} between {low:g} and {high:g} ({unit}), got {value!r}")
