"""Which container engine the container backend (`backend="docker"`) runs bots on, found once per setting.

The engine is chosen by KOZYR_CONTAINER_ENGINE: `docker`, `podman`, or `auto` (default: Docker when its
engine answers, else Podman). Both get the same command line (docker.py); Podman also gets the OCI runtime
(KOZYR_CONTAINER_RUNTIME, default `runc` when installed: `crun` refuses hybrid cgroup machines). A storage
driver can be forced with KOZYR_CONTAINER_STORAGE_DRIVER (Podman only; the image must be built with the
same). The bot image is KOZYR_SANDBOX_DOCKER_IMAGE (default kozyr-bot-runtime:latest).

Several sites may share one engine: KOZYR_SITE_ID names this one (the same on every worker host of the site),
so the reaper (container_reaper.py) removes only its own site's bot containers. Unset, the site is the
workers sharing this sandbox state folder (`state-<state id>`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from ..errors import SandboxError
from ..identity import state_id

DEFAULT_IMAGE = "kozyr-bot-runtime:latest"
ENGINE_SETTING = "KOZYR_CONTAINER_ENGINE"
RUNTIME_SETTING = "KOZYR_CONTAINER_RUNTIME"
STORAGE_SETTING = "KOZYR_CONTAINER_STORAGE_DRIVER"
SITE_SETTING = "KOZYR_SITE_ID"
SITE_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")  # a label value every engine's filter takes as is
ENGINES = ("docker", "podman")
Runner = Callable[..., subprocess.CompletedProcess]  # subprocess.run, or a test's stand-in for the engine CLI


@dataclass(frozen=True)
class Engine:
    """A container engine CLI: which kind it is, and the global flags every call to it carries."""

    kind: str = "docker"  # "docker" or "podman" (a `docker` that is really podman counts as podman)
    cli: str = "docker"
    version: str = ""
    runtime: str | None = None  # podman --runtime
    storage_driver: str | None = None  # podman --storage-driver

    def command(self, *arguments: str) -> list[str]:
        driver = ["--storage-driver", self.storage_driver] if self.storage_driver else []
        return [self.cli, *driver, *arguments]

    def remove_now(self, *containers: str) -> list[str]:
        """`rm --force` with SIGKILL at once: Podman would first send SIGTERM and wait 10 s (a bot is pid 1,
        which ignores SIGTERM)."""
        return ["rm", "--force", *(["--time", "0"] if self.kind == "podman" else []), *containers]

    def describe(self) -> str:
        runtime = f" ({self.runtime})" if self.runtime else ""
        return f"{self.kind} {self.version}{runtime}".strip()


def image() -> str:
    return os.environ.get("KOZYR_SANDBOX_DOCKER_IMAGE", DEFAULT_IMAGE)


def site_id() -> str:
    """This site's id, which labels its bot containers (KOZYR_SITE_ID, else one per sandbox state folder)."""
    site = os.environ.get(SITE_SETTING, "").strip()
    if not site:
        return f"state-{state_id()}"
    if not SITE_SHAPE.fullmatch(site):
        raise SandboxError(f"{SITE_SETTING} must be 1-63 letters, digits, '_', '.' or '-' (starting with a letter "
                           f"or digit), got {site!r}")
    return site


def engine_setting() -> str:
    setting = os.environ.get(ENGINE_SETTING, "auto").strip().lower() or "auto"
    if setting not in (*ENGINES, "auto"):
        raise SandboxError(f"{ENGINE_SETTING} must be docker, podman or auto, got {setting!r}")
    return setting


def find_engine() -> tuple[Engine | None, str | None]:
    """The engine the settings select, or None and the reason none works here."""
    setting = engine_setting()
    return _find_engine(setting, os.environ.get(RUNTIME_SETTING) or None, os.environ.get(STORAGE_SETTING) or None)


@cache
def _find_engine(setting: str, runtime: str | None, storage_driver: str | None) -> tuple[Engine | None, str | None]:
    reasons = []
    for name in ENGINES if setting == "auto" else (setting,):
        cli = shutil.which(name)
        if cli is None:
            reasons.append(f"the {name} CLI is not installed")
            continue
        kind = "podman" if _answers(cli, "--version").lower().startswith("podman") else name
        if kind == "podman":
            version = _answers(cli, "version", "--format", "{{.Client.Version}}")
            chosen_runtime = runtime or ("runc" if shutil.which("runc") else None)
            found = Engine(kind, cli, version, chosen_runtime, storage_driver)
        else:
            version = _answers(cli, "version", "--format", "{{.Server.Version}}")
            found = Engine(kind, cli, version)
        if version:
            return found, None
        reasons.append(f"{name} is installed but no {kind} engine answers")
    return None, "; ".join(reasons)


def _answers(cli: str, *arguments: str) -> str:
    try:
        done = subprocess.run([cli, *arguments], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def unavailable_reason() -> str | None:
    """None when the container backend can start bots here, else why not (for backends_available())."""
    try:
        site_id()
        return find_engine()[1]
    except SandboxError as error:
        return str(error)


def required_engine() -> Engine:
    """The engine the settings select, or a SandboxError saying why none works here."""
    found, reason = find_engine()
    if found is None:
        raise SandboxError(f"backend 'docker' needs a container engine (docker or podman): {reason}")
    return found
