"""How many matches with an uploaded bot's seat a host plays at once: admission by its cores and its memory.

Such a match is played in a thread of the ``bots`` worker (the ``sandboxed`` queue, docs/matches.md "Queues and
workers"): the thread only waits on the bots' pipes, and each bot computes in a sandboxed process of its own. So
what bounds a host is not how long its bots think but what their processes need:

- **CPU:** ``BOTS_MATCHES_PER_CORE`` matches a core (2 by default). A match computes one seat at a time,
  and most of its seats' turns are short, so two a core keep the cores busy; when every bot thinks with its whole
  clock at once, each gets half a core and the referee forgives the time it waited for the CPU
  (sandbox/schedstat.py, docs/protocol.md "Time"), so no bot is timed out because its host was busy.
- **Memory:** three quarters of the host's memory, divided by what a match's bots may hold together (two seats
  at the sandbox's memory limit each), so the bots of every admitted match fit at their limits at once.

``python -m config.capacity`` prints the number; ``python -m config.capacity worker ARGS…`` starts
``celery -A config worker ARGS… --concurrency N`` with it (deploy/supervisord.conf's and the image's ``bots``
worker). ``BOTS_CONCURRENCY`` overrides it.
"""

from __future__ import annotations

import os
import sys

PER_CORE_DEFAULT = 2
SEATS_PER_MATCH = 2  # most presets; a four-seat match's bots are two more, within the quarter left over
BOT_MEMORY_MB = 256  # sandbox.limits.Limits.memory_mb's default, every uploaded bot's limit on the site
MEMORY_SHARE = 0.75  # the rest for the workers, the web server, the database and the page cache


def cores() -> int:
    """The CPUs this process may run on (a container's cpuset, a taskset), not the machine's."""
    return len(os.sched_getaffinity(0))


def memory_mb() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError("/proc/meminfo has no MemTotal line")


def sandboxed_slots(cpus: int, total_mb: int, per_core: int = PER_CORE_DEFAULT) -> int:
    by_cpu = cpus * per_core
    by_memory = int(total_mb * MEMORY_SHARE) // (SEATS_PER_MATCH * BOT_MEMORY_MB)
    return max(1, min(by_cpu, by_memory))


def _positive(name: str) -> int | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise SystemExit(f"{name}={text!r}: expected a whole number of at least 1")
    return int(text)


def configured_slots() -> int:
    """The host's admission: ``BOTS_CONCURRENCY`` when set, else from its cores and memory."""
    explicit = _positive("BOTS_CONCURRENCY")
    if explicit is not None:
        return explicit
    per_core = _positive("BOTS_MATCHES_PER_CORE") or PER_CORE_DEFAULT
    return sandboxed_slots(cores(), memory_mb(), per_core)


def main(argv: list[str]) -> None:
    slots = configured_slots()
    if not argv:
        sys.stdout.write(f"{slots}\n")
        return
    # The virtualenv's, beside this Python (`make run`); else the one on PATH (the image's system install).
    beside = os.path.join(os.path.dirname(sys.executable), "celery")
    celery = beside if os.access(beside, os.X_OK) else "celery"
    os.execvp(celery, [celery, "-A", "config", *argv, "--concurrency", str(slots)])


if __name__ == "__main__":
    main(sys.argv[1:])
