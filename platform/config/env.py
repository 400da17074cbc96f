"""Reading settings from the environment, strictly.

Every setting has a safe local default. A malformed value, or a ``KOZYR_*`` variable nobody reads (a
typo), stops start-up with one line naming the setting and what it expects, instead of a traceback or a
silently ignored value. Parsing of URLs is django-environ's; the strictness is ours.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from urllib.parse import urlsplit

import environ

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off", "")


class SettingError(Exception):
    """A setting that cannot be used; the message is the one line shown to the operator."""


class Environment:
    """Reads typed values from ``os.environ`` and remembers which names were read."""

    def __init__(self, environ_: dict[str, str] | None = None):
        self.values = os.environ if environ_ is None else environ_
        self.read: set[str] = set()

    def raw(self, name: str) -> str | None:
        self.read.add(name)
        return self.values.get(name)

    def str(self, name: str, default: str) -> str:
        value = self.raw(name)
        return default if value is None else value

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.str(name, default).strip()
        if value not in choices:
            raise SettingError(f"{name}={value!r}: expected one of {', '.join(choices)}")
        return value

    def bool(self, name: str, default: bool) -> bool:
        value = self.raw(name)
        if value is None:
            return default
        low = value.strip().lower()
        if low in TRUE:
            return True
        if low in FALSE:
            return False
        raise SettingError(f"{name}={value!r}: expected true or false")

    def int(self, name: str, default: int, low: int, high: int) -> int:
        value = self.raw(name)
        if value is None:
            return default
        try:
            number = int(value.strip())
        except ValueError:
            raise SettingError(f"{name}={value!r}: expected an integer from {low} to {high}") from None
        if not low <= number <= high:
            raise SettingError(f"{name}={value!r}: expected an integer from {low} to {high}")
        return number

    def list(self, name: str, default: list[str]) -> list[str]:
        value = self.raw(name)
        if value is None:
            return default
        return [item.strip() for item in value.split(",") if item.strip()]

    def database(self, name: str, default: str) -> dict:
        url = self.str(name, default).strip()
        scheme = urlsplit(url).scheme
        if scheme not in ("sqlite", "postgres", "postgresql", "pgsql"):
            raise SettingError(f"{name}={url!r}: expected sqlite:///PATH or postgres://USER@HOST:PORT/NAME")
        config = environ.Env.db_url_config(url)
        if not config.get("NAME"):
            raise SettingError(f"{name}={url!r}: the URL names no database (or file)")
        return config

    def broker(self, name: str, default: str) -> str:
        url = self.str(name, default).strip()
        scheme = urlsplit(url).scheme
        if scheme not in ("redis", "rediss", "redis+socket", "amqp", "pyamqp", "memory"):
            raise SettingError(f"{name}={url!r}: expected redis://HOST:PORT/DB, redis+socket:///PATH or amqp://…")
        return url

    def email(self, name: str, default: str) -> dict:
        """Django's EMAIL_* settings from one URL (django-environ's email_url_config): smtp+tls://USER:PASSWORD@HOST:587,
        smtps://… (implicit TLS), filemail:///PATH, consolemail://."""
        url = self.str(name, default).strip()
        scheme = urlsplit(url).scheme
        if scheme not in environ.Env.EMAIL_SCHEMES:
            raise SettingError(f"{name}={url!r}: expected smtp+tls://USER:PASSWORD@HOST:587, smtps://…:465, "
                               f"smtp://HOST:25, filemail:///PATH or consolemail://")
        config = environ.Env.email_url_config(url)
        if scheme.startswith("smtp") and not config.get("EMAIL_HOST"):
            raise SettingError(f"{name}={url!r}: the URL names no mail server")
        if scheme == "filemail":  # django-environ drops the path's leading "/": a folder relative to the cwd
            config["EMAIL_FILE_PATH"] = urlsplit(url).path
            if not config["EMAIL_FILE_PATH"].startswith("/"):
                raise SettingError(f"{name}={url!r}: expected filemail:///ABSOLUTE/PATH (a folder, one file a message)")
        return {k: v for k, v in config.items() if v not in (None, "")}

    def unknown(self, prefix: str = "KOZYR_") -> list[str]:
        return sorted(k for k in self.values if k.startswith(prefix) and k not in self.read)


def local_secret_key(var_dir: Path) -> str:
    """A key generated once per local install and kept in var/, so sessions survive restarts."""
    path = var_dir / "secret_key"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


def stop(error: SettingError) -> None:
    """End start-up with the one line (manage.py, gunicorn and celery all exit with it)."""
    sys.exit(f"kozyr: bad setting: {error}")
