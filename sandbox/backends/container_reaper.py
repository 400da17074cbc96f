"""Removing the sandbox containers a crashed worker left behind (the container backend's orphan reaper).

Containers are not started with `--rm` (docker.py says why), so a worker killed mid-match leaves its bots'
containers with the engine. Every container carries the label kozyr.sandbox=1, its site's id
(`kozyr.sandbox.site`, container_engine.site_id()), a deadline, its worker's identity (`owner_token()`: host,
pid and that process's start time) and, when the worker itself runs in a container, that container's id.
`reap_orphans()` removes only containers of its own site (several sites may share one engine), and of those
only the ones nobody will remove any more:

- past their deadline (the wall limit plus a margin: the bot is surely done);
- exited for more than EXITED_GRACE_SECONDS (a live worker removes its bot's container within seconds);
- created and never started for more than NEVER_STARTED_GRACE_SECONDS (a worker killed between the
  engine's `create` and `start`: its `run` would have started it within seconds);
- started by a process of this host that no longer exists;
- started by a worker whose container this engine no longer runs (stopped, or removed): every process of
  it is gone, whichever host or worker of the site asks.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from datetime import datetime
from functools import cache
from pathlib import Path

from .container_engine import Engine, Runner, required_engine, site_id

LABEL = "kozyr.sandbox"
DEADLINE_LABEL = f"{LABEL}.deadline"  # when the container's wall limit, plus the margin, has surely passed
OWNER_LABEL = f"{LABEL}.owner"  # host:pid:start time of the worker process that started the container
SITE_LABEL = f"{LABEL}.site"  # the site whose worker started it: only that site's workers reap it
WORKER_LABEL = f"{LABEL}.worker"  # the id of the container the worker runs in, "" for a worker on a host
DEADLINE_MARGIN_SECONDS = 60
# A bot container that exited this long ago was never removed by its worker, which inspects and removes
# one within seconds of its exit: that worker is gone (on another host, or in a container that cannot see
# the process). Its bot had nothing left to run; only its record is left to clear.
EXITED_GRACE_SECONDS = 120
# The engine's `run` starts a container within seconds of creating it (no image is ever pulled: --pull
# never), even on a loaded host: one created this long ago and never started lost its worker in between.
NEVER_STARTED_GRACE_SECONDS = 120
# The engines' StartedAt/FinishedAt of a container that never started/finished (Go's zero time).
NEVER_STARTED = "0001-01-01"
# A container's id in the paths the engine bind-mounts into it (/etc/hostname, /etc/hosts, /etc/resolv.conf):
# Docker's /var/lib/docker/containers/<id>/…, Podman's …/overlay-containers/<id>/userdata/….
_CONTAINER_PATH = re.compile(r"containers/([0-9a-f]{64})/")


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


def own_container(mountinfo: Path = Path("/proc/self/mountinfo")) -> str:
    """The id of the container this process runs in, as its engine knows it; "" when it runs on a host (or
    an engine that mounts nothing of its own there)."""
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        fields = line.split()
        if len(fields) > 4 and fields[4] in ("/etc/hostname", "/etc/hosts", "/etc/resolv.conf"):
            found = _CONTAINER_PATH.search(fields[3])
            if found:
                return found.group(1)
    return ""


@cache
def worker_container(engine: Engine, runner: Runner = subprocess.run) -> str:
    """The container this worker runs in, for the label: only when the engine that runs the bots runs it too
    (a worker in a container of another engine would otherwise look gone to every reaper)."""
    container = own_container()
    if not container:
        return ""
    done = runner(engine.command("inspect", "--type", "container", "--format", "{{.Id}}", container),
                  capture_output=True, text=True, check=False)  # fmt: skip
    return container if done.returncode == 0 and done.stdout.strip() == container else ""


def _owner_is_dead(token: str) -> bool:
    """True only for a worker of this host whose process no longer exists: another host's is not ours to judge."""
    parts = token.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or parts[0] != socket.gethostname():
        return False
    return owner_token(int(parts[1])) != token


def _unix(stamp: object) -> float | None:
    """An engine's RFC 3339 time (nanoseconds, `Z` or an offset) as Unix time; None for Go's zero time."""
    if not isinstance(stamp, str) or not stamp or stamp.startswith(NEVER_STARTED):
        return None
    found = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)", stamp.strip())
    if not found:
        return None
    zone = "+00:00" if found.group(2) == "Z" else found.group(2)
    return datetime.fromisoformat(found.group(1) + zone).timestamp()


def reap_orphans(runner: Runner = subprocess.run, engine: Engine | None = None, now: float | None = None,
                 site: str | None = None) -> list[str]:  # fmt: skip
    """Remove this site's sandbox containers that their workers left behind (the module's doc says which).
    Returns their ids. Run it at worker start and periodically, from any worker of the site."""
    engine = engine or required_engine()
    now = time.time() if now is None else now
    site = site_id() if site is None else site
    listing = runner(engine.command("ps", "--all", "--quiet", "--no-trunc", "--filter", f"label={LABEL}=1",
                                    "--filter", f"label={SITE_LABEL}={site}"),
                     capture_output=True, text=True, check=False)  # fmt: skip
    ids = listing.stdout.split()
    if not ids:
        return []
    containers = _inspect(runner, engine, ids)
    here = own_container()
    workers = {labels(container).get(WORKER_LABEL, "") for container in containers} - {"", here}
    running_workers = _running(runner, engine, sorted(workers)) if workers else set()
    running_workers.add(here)  # this worker's own container runs, whatever the engine says of it
    expired = [container["Id"] for container in containers
               if _orphaned(container, now, running_workers) and container.get("Id") in ids]  # fmt: skip
    # One at a time: Podman 4.3's `rm --force a b` removes neither once `a` is gone (its worker removed it
    # since the listing), and exits 0.
    for container in expired:
        runner(engine.command(*engine.remove_now(container)), capture_output=True, text=True, check=False)
    return expired


def labels(container: dict) -> dict[str, str]:
    return (container.get("Config") or {}).get("Labels") or {}


def _orphaned(container: dict, now: float, running_workers: set[str]) -> bool:
    marks, state = labels(container), container.get("State") or {}
    deadline = marks.get(DEADLINE_LABEL, "")
    if deadline.isdigit() and int(deadline) < now:
        return True
    started, finished = _unix(state.get("StartedAt")), _unix(state.get("FinishedAt"))
    running = state.get("Running") is True or state.get("Status") == "running"
    if not running and finished is not None and finished < now - EXITED_GRACE_SECONDS:
        return True
    created = _unix(container.get("Created"))
    if not running and started is None and created is not None and created < now - NEVER_STARTED_GRACE_SECONDS:
        return True
    if _owner_is_dead(marks.get(OWNER_LABEL, "")):
        return True
    worker = marks.get(WORKER_LABEL, "")
    return bool(worker) and worker not in running_workers


def _inspect(runner: Runner, engine: Engine, ids: list[str]) -> list[dict]:
    """The engine's record of each container still there (one removed meanwhile is left out: the engine
    says so on stderr and prints the others)."""
    done = runner(engine.command("inspect", "--type", "container", *ids), capture_output=True, text=True,
                  check=False)  # fmt: skip
    try:
        found = json.loads(done.stdout or "[]")
    except ValueError:
        return []
    return [container for container in found if isinstance(container, dict) and container.get("Id")]


def _running(runner: Runner, engine: Engine, workers: list[str]) -> set[str]:
    """Which of these worker containers the engine runs now. A worker container this engine does not know is
    not running here either: it was removed (`down`, a scale-down), with every process in it."""
    done = runner(engine.command("ps", "--quiet", "--no-trunc", "--filter", "status=running"), capture_output=True,
                  text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        return set(workers)  # the engine did not answer: judge nobody by it
    running = set(done.stdout.split())
    return {worker for worker in workers if worker in running}
