"""`make run`'s site as the tests start it: the embedded defaults (SQLite, the embedded Redis) with every process
under supervisord (deploy/supervisord.conf), in a folder and on a port of its own. Used by the site tests and by
bench/embedded_soak.py."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import psutil

from tests.support import marks
from tests.support.resources import free_port

__all__ = ["REPO", "Site", "embedded_env", "free_port", "shell", "status"]

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / ".venv" / "bin"
CONFIGURATION = REPO / "deploy" / "supervisord.conf"


def embedded_env(var: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KOZYR_", "DJANGO_")) and k not in ("DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")}
    # the house ladder without the search bots: matches of seconds, as every test's (config/test_settings.py)
    return {**env, "KOZYR_VAR_DIR": str(var), "KOZYR_LADDER_QUEUE_DEPTH": "2", "HOST": "127.0.0.1",
            "KOZYR_HOUSE_SEARCH_BOTS": "false",
            "PORT": str(port), "WORKER_CONCURRENCY": "1", "LOG_LEVEL": "INFO"}


def shell(env: dict[str, str], code: str) -> str:
    done = subprocess.run([sys.executable, str(REPO / "manage.py"), "shell", "--verbosity", "0", "-c", code],
                          env=env, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


class Site:
    """`make run`'s process manager with its own folder and port."""

    def __init__(self, var: Path, port: int, **extra: str):
        marks.require("workers", "the whole site")
        self.env = {**embedded_env(var, port), **extra}
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = var / "supervisord.out"
        (var / "run").mkdir(parents=True, exist_ok=True)
        (var / "log").mkdir(parents=True, exist_ok=True)
        self.log = open(self.log_path, "wb")  # noqa: SIM115  (written by supervisord until stop())
        self.proc = subprocess.Popen([str(BIN / "supervisord"), "--configuration", str(CONFIGURATION)],
                                     cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def ctl(self, *args: str) -> str:
        done = subprocess.run([str(BIN / "supervisorctl"), "--configuration", str(CONFIGURATION), *args],
                              env=self.env, capture_output=True, text=True, timeout=30, cwd=REPO)
        return done.stdout.strip()

    def pid(self, program: str) -> int:
        value = self.ctl("pid", program)
        return int(value) if value.isdigit() else 0

    def stop(self) -> None:
        processes = [self.proc.pid]
        with contextlib.suppress(psutil.NoSuchProcess):
            processes += [child.pid for child in psutil.Process(self.proc.pid).children(recursive=True)]
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()
        left = [pid for pid in processes if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
        assert left == [], f"processes left behind by the process manager: {left}"
