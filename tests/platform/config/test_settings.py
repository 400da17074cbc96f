"""Settings come from the environment; a bad one stops start-up with one line naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SECRET = "kz-test-" + "".join(chr(97 + (i * 7) % 26) for i in range(60))  # long, varied, fixed


def manage(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("KOZYR_", "DJANGO_")) and k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DEBUG",
                                                                     "SECRET_KEY", "ALLOWED_HOSTS", "MEDIA_ROOT")}
    clean.update({"KOZYR_VAR_DIR": str(tmp_path / "var"), **env})
    return subprocess.run([sys.executable, str(REPO / "manage.py"), *args], cwd=tmp_path, env=clean,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("DEBUG", "maybe", "DEBUG='maybe': expected true or false"),
    ("KOZYR_LEASE_SECONDS", "soon", "KOZYR_LEASE_SECONDS='soon': expected an integer from 5 to 3600"),
    ("KOZYR_LEASE_SECONDS", "1", "KOZYR_LEASE_SECONDS='1': expected an integer from 5 to 3600"),
    ("SANDBOX_BACKEND", "chroot", "SANDBOX_BACKEND='chroot': expected one of bwrap, docker, unsafe"),
    ("DATABASE_URL", "mysql://root@localhost/kozyr", "DATABASE_URL='mysql://root@localhost/kozyr': expected"),
    ("CELERY_BROKER_URL", "kafka://x", "CELERY_BROKER_URL='kafka://x': expected"),
    ("KOZYR_LADER_QUEUE_DEPTH", "3", "KOZYR_LADER_QUEUE_DEPTH: unknown setting"),
    ("KOZYR_ENV", "staging", "KOZYR_ENV='staging': expected one of local, production"),
])
def test_it_stops_with_one_line_naming_a_bad_setting(tmp_path, name, value, expected):
    done = manage("check", tmp_path=tmp_path, **{name: value})
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("kozyr: bad setting: ") and expected in lines[0]


def test_it_requires_a_secret_key_and_hosts_in_production(tmp_path):
    done = manage("check", tmp_path=tmp_path, KOZYR_ENV="production", ALLOWED_HOSTS="kozyr.example.org")
    assert done.stderr.strip() == ("kozyr: bad setting: SECRET_KEY is required when KOZYR_ENV=production "
                                   "(50+ random characters)")
    done = manage("check", tmp_path=tmp_path, KOZYR_ENV="production", SECRET_KEY=SECRET)
    assert "ALLOWED_HOSTS is required" in done.stderr


def test_it_passes_the_deployment_checks_with_production_settings(tmp_path):
    done = manage("check", "--deploy", "--fail-level", "WARNING", tmp_path=tmp_path, KOZYR_ENV="production",
                  SECRET_KEY=SECRET, ALLOWED_HOSTS="kozyr.example.org",
                  DATABASE_URL="postgres://postgres@127.0.0.1:5432/kozyr")
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_it_defaults_to_sqlite_in_wal_mode_and_a_local_secret_kept_in_var(tmp_path):
    code = ("from django.db import connection; c = connection.cursor(); c.execute('PRAGMA journal_mode');"
            "print(c.fetchone()[0]); c.execute('PRAGMA busy_timeout'); print(c.fetchone()[0]);"
            "from django.conf import settings; print(settings.CELERY_BROKER_URL, settings.SANDBOX_BACKEND,"
            " settings.DEBUG)")
    done = manage("shell", "--verbosity", "0", "-c", code, tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    broker = f"redis+socket://{tmp_path / 'var' / 'run' / 'broker.sock'}"  # the embedded Redis of `make run`
    assert done.stdout.split() == ["wal", "20000", broker, "bwrap", "False"]
    assert (tmp_path / "var" / "kozyr.sqlite3").exists()
    secret = tmp_path / "var" / "secret_key"
    assert secret.stat().st_mode & 0o077 == 0
    first = secret.read_text()
    manage("check", tmp_path=tmp_path)
    assert secret.read_text() == first  # generated once, then kept


def test_it_says_when_the_folder_is_too_deep_for_the_embedded_brokers_socket(tmp_path):
    deep = tmp_path / ("v" * 120)
    done = manage("check", tmp_path=tmp_path, KOZYR_VAR_DIR=str(deep))
    assert done.returncode != 0
    assert done.stderr.strip().startswith(f"kozyr: bad setting: KOZYR_VAR_DIR={deep}: too long a path for the "
                                          "embedded broker's socket")
    done = manage("check", tmp_path=tmp_path, KOZYR_VAR_DIR=str(deep), CELERY_BROKER_URL="redis://127.0.0.1:6379/9")
    assert done.returncode == 0, done.stderr
