"""The bot's environment: a fixed minimal set plus the caller's harmless extras, nothing from the worker."""

from __future__ import annotations

import re

from .errors import SandboxError

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def bot_environment(extra: dict | None, *, home: str = "/tmp") -> dict[str, str]:
    env = {"PATH": SANDBOX_PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
    for name, value in (extra or {}).items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise SandboxError(f"environment variable name {name!r} is not a plain identifier")
        if not isinstance(value, str) or "\0" in value:
            raise SandboxError(f"environment variable {name} must be a string without NUL bytes, got {value!r}")
        env[name] = value
    return env
