"""How a sandboxed run ended: the verdict the worker stores, and the rules that decide it."""

from __future__ import annotations

import signal as signals
from dataclasses import asdict, dataclass, field

OK = "ok"
RUNTIME_ERROR = "runtime_error"
SIGNAL = "signal"
OUT_OF_MEMORY = "out_of_memory"
CPU_TIME = "cpu_time"
WALL_TIME = "wall_time"
OUTPUT_LIMIT = "output_limit"
SANDBOX_FAILURE = "sandbox_failure"
OUTCOMES = (OK, RUNTIME_ERROR, SIGNAL, OUT_OF_MEMORY, CPU_TIME, WALL_TIME, OUTPUT_LIMIT, SANDBOX_FAILURE)

# Under the rlimit fallback the kernel does not say "out of memory": an allocation just fails (MemoryError in
# Python, an abort in Node). A failed run whose peak resident memory reached this share of the limit is
# therefore counted as out of memory; RLIMIT_DATA counts private writable mappings, so a program that hit it
# has touched most of them.
RLIMIT_OOM_SHARE = 0.75


@dataclass(frozen=True)
class Ending:
    """The facts gathered when a run is over; `classify` turns them into an outcome."""

    setup_failed: bool = False
    killed_for: str | None = None  # CPU_TIME or WALL_TIME when the watchdog stopped the bot
    killed_at_finish: bool = False  # still running after finish()'s grace period
    exit_code: int | None = None
    signal: int | None = None
    oom_kills: int | None = None  # from the cgroup; None when no cgroup watched memory
    cpu_seconds: float | None = 0.0
    cpu_limit: float = 0.0
    peak_memory_mb: float | None = None
    memory_limit_mb: int = 0
    output_truncated: bool = False


def classify(end: Ending) -> tuple[str, str]:
    """Return (outcome, human detail). The first matching rule wins; the order says which cause is blamed."""
    if end.setup_failed:
        return SANDBOX_FAILURE, "the sandbox did not finish setting up; the bot never ran"
    if end.killed_for == WALL_TIME:
        return WALL_TIME, "stopped: wall-clock limit reached"
    if end.killed_for == CPU_TIME or end.signal in (signals.SIGXCPU,):
        return CPU_TIME, f"stopped: CPU limit of {end.cpu_limit:g} s reached"
    if end.oom_kills:
        return OUT_OF_MEMORY, f"memory limit of {end.memory_limit_mb} MiB reached (kernel OOM kill)"
    failed = (end.signal is not None and not end.killed_at_finish) or bool(end.exit_code)
    used_cpu = end.cpu_seconds is not None and end.cpu_seconds >= end.cpu_limit
    if end.signal == signals.SIGKILL and not end.killed_at_finish and used_cpu:
        return CPU_TIME, f"killed by the kernel at the CPU limit of {end.cpu_limit:g} s"
    if (
        failed
        and end.oom_kills is None
        and end.peak_memory_mb is not None
        and end.peak_memory_mb >= RLIMIT_OOM_SHARE * end.memory_limit_mb
    ):
        peak, limit = end.peak_memory_mb, end.memory_limit_mb
        return OUT_OF_MEMORY, f"failed with peak memory {peak:.0f} MiB near the {limit} MiB limit"
    if end.output_truncated:
        return OUTPUT_LIMIT, "the caller cut the bot's output at its limit"
    if end.signal is not None and not end.killed_at_finish:
        return SIGNAL, f"killed by signal {_signal_name(end.signal)}"
    if end.exit_code:
        return RUNTIME_ERROR, f"exited with status {end.exit_code}"
    if end.killed_at_finish:
        return OK, "still running after stdin closed; stopped at finish"
    return OK, "exited normally"


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)


@dataclass
class SandboxReport:
    outcome: str
    detail: str
    exit_code: int | None
    signal: int | None
    cpu_seconds: float | None
    wall_seconds: float
    peak_memory_mb: float | None
    output_truncated: bool
    killed_at_finish: bool
    limits: dict
    guarantees_weakened: list[str] = field(default_factory=list)
    backend: str = ""
    backend_version: str = ""
    startup_seconds: float = 0.0
    sandbox_uid: int | None = None

    def to_dict(self) -> dict:
        data = asdict(self)
        if self.cpu_seconds is not None:
            data["cpu_seconds"] = round(self.cpu_seconds, 4)
        data["wall_seconds"] = round(self.wall_seconds, 4)
        data["startup_seconds"] = round(self.startup_seconds, 4)
        if self.peak_memory_mb is not None:
            data["peak_memory_mb"] = round(self.peak_memory_mb, 2)
        return data
