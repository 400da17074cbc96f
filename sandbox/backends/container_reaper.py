"""Removing the sandbox containers a crashed worker left behind (the container backend's orphan reaper).

Containers are not started with `--rm` (docker.py says why), so a worker killed mid-match leaves its bots'
containers with the engine. Every container carries the label kozyr.sandbox=1, a deadline label and its
worker's identity (`owner_token()`: host, pid and that process's start time); `reap_orphans()` removes the
ones whose worker was a process of this host that no longer exists, and any whose deadline has passed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from .container_engine import Engine, Runner, required_engine

LABEL = "kozyr.sandbox"
DEADLINE_LABEL = f"{LABEL}.deadline"  # when the container's wall limit, plus the margin, has surely passed
OWNER_LABEL = f"{LABEL}.owner"  # host:pid:start time of the worker process that started the container
DEADLINE_MARGIN_SECONDS = 60
# A bot container that exited this long ago was never removed by its worker, which inspects and removes
# one within seconds of its exit: that worker is gone (on another host, or in a container that cannot see
# the process). Its bot had nothing left to run; only its record is left to clear.
EXITED_GRACE_SECONDS = 120


def owner_token(pid: int | None = None) -> str:
    """Who started a container: this host, a worker pid and that process's start time (pids are reused)."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}"


def _start_time(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name


def _owner_is_dead(token: str) -> bool:
    """True only for a worker of this host whose process no longer exists: another host's is not ours to judge."""
    parts = token.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or parts[0] != socket.gethostname():
        return False
    return owner_token(int(parts[1])) != token


def reap_orphans(runner: Runner = subprocess.run, engine: Engine | None = None, now: float | None = None) -> list[str]:
    """Remove the sandbox containers a crashed worker left behind. Returns their ids.

    Run it at worker start and periodically. A container is an orphan when the worker that started it (its
    owner label) was a process of this host that no longer exists, or when its deadline has passed (a
    worker on another host sharing the engine: its wall limit is DEADLINE_MARGIN_SECONDS shorter), or (Podman,
    which tells when a container exited) when it exited more than EXITED_GRACE_SECONDS ago."""
    engine = engine or required_engine()
    now = time.time() if now is None else now
    # Docker's ps template has .Label "name"; Podman's only the .Labels map.
    podman = engine.kind == "podman"
    if podman:
        deadline, owner = (f'index .Labels "{name}"' for name in (DEADLINE_LABEL, OWNER_LABEL))
        # '|' between the fields: Podman's .State is words ("Exited (0) 5 minutes ago"), a label may be empty
        template = "{{.ID}}|{{" + deadline + "}}|{{" + owner + "}}|{{.ExitedAt}}|{{.State}}"
    else:
        deadline, owner = (f'.Label "{name}"' for name in (DEADLINE_LABEL, OWNER_LABEL))
        template = "{{.ID}} {{" + deadline + "}} {{" + owner + "}}"
    listing = runner(
        engine.command("ps", "--all", "--no-trunc", "--filter", f"label={LABEL}=1", "--format", template),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    expired = []
    for line in listing.stdout.splitlines():
        parts = line.split("|") if podman else line.split()
        if len(parts) < 2:
            continue
        exited_long_ago = False
        if podman and len(parts) == 5:
            exited_at, state = parts[3].strip(), parts[4].strip().lower()
            exited_long_ago = (state.startswith("exited") and exited_at.isdigit()
                               and 0 < int(exited_at) < now - EXITED_GRACE_SECONDS)
            parts = [part.strip() for part in parts[:3] if part.strip()]
        past_deadline = parts[1].isdigit() and int(parts[1]) < now
        if past_deadline or exited_long_ago or (len(parts) == 3 and _owner_is_dead(parts[2])):
            expired.append(parts[0])
    if expired:
        runner(engine.command(*engine.remove_now(*expired)), capture_output=True, text=True, check=False)
    return expired
