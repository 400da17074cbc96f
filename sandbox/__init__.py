"""Run untrusted bot programs isolated, measured and killable. Knows nothing of games.

    from sandbox import Limits, start
    proc = start(["python3", "bot.py"], Path("bots/alice"), Limits(memory_mb=256))
    proc.stdin.write(b'{"type": "hello"}\\n'); line = proc.stdout.readline()
    report = proc.finish()      # kills whatever is left, cleans up, says how it ended
    report.to_dict()

See docs/sandbox.md for the threat model and what each backend guarantees.
"""

from __future__ import annotations

from pathlib import Path

from . import runtimes
from .errors import SandboxError
from .guarantees import require_full_isolation, weakened_guarantees
from .leftovers import owned_folder
from .limits import Limits
from .process import SandboxProcess
from .report import OUTCOMES, SandboxReport

BACKENDS = ("bwrap", "docker", "unsafe")

__all__ = ["BACKENDS", "OUTCOMES", "Limits", "SandboxError", "SandboxProcess", "SandboxReport", "backend_available",
           "backends_available", "bot_runtimes", "owned_folder", "require_full_isolation", "start",
           "weakened_guarantees"]  # fmt: skip


def start(
    command: list[str],
    bot_dir: Path,
    limits: Limits | None = None,
    backend: str = "bwrap",
    allow_unsafe: bool = False,
    env: dict | None = None,
    *,
    use_cgroups: bool | None = None,
) -> SandboxProcess:
    """Start `command` inside `bot_dir` (seen as /bot, read-only) under `limits`.

    `env`: extra harmless environment variables. `use_cgroups`: None = use them when this machine allows,
    False = rlimits only (tests of the fallback), True = fail unless cgroups work.
    Raises SandboxError with an operator-readable message when the backend cannot start.
    """
    limits = Limits() if limits is None else limits
    if not isinstance(limits, Limits):
        raise SandboxError(f"limits must be a sandbox.Limits, got {type(limits).__name__}")
    if not command or not all(isinstance(part, str) and part and "\0" not in part for part in command):
        raise SandboxError(f"command must be a non-empty list of non-empty strings, got {command!r}")
    bot_dir = Path(bot_dir)
    if backend == "bwrap":
        from .backends.bwrap import start_bwrap

        return start_bwrap(command, bot_dir, limits, env, use_cgroups=use_cgroups)
    if backend == "docker":
        from .backends.docker import start_docker

        return start_docker(command, bot_dir, limits, env)
    if backend == "unsafe":
        from .backends.unsafe import start_unsafe

        return start_unsafe(command, bot_dir, limits, env, allow_unsafe=allow_unsafe, use_cgroups=use_cgroups)
    raise SandboxError(f"unknown sandbox backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def backend_available(name: str) -> str | None:
    """None when backend `name` works on this machine, else the reason it does not. Probes that backend only
    (bwrap: one trivial sandbox, once per process; docker: the engine)."""
    if name == "bwrap":
        from .backends.bwrap import preflight

        return preflight()
    if name == "docker":
        from .backends.container_engine import unavailable_reason

        return unavailable_reason()
    if name == "unsafe":
        return None
    raise SandboxError(f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}")


def backends_available() -> dict[str, str | None]:
    """Each backend mapped to None when it works on this machine, else the reason it does not."""
    return {name: backend_available(name) for name in BACKENDS}


def bot_runtimes() -> list[str]:
    """The interpreters every backend gives a bot (python3, node, perl): what an entry point may rely on.
    sandbox/runtimes.py says what each one promises."""
    return list(runtimes.RUNTIMES)
