"""The real web server for the tests: deploy/supervisord.conf's own `web` command line (gunicorn, the
uvicorn worker config.web_worker.WebWorker, --preload, two processes), started as a separate process on the
test's PostgreSQL database and a Redis database of its own."""

from __future__ import annotations

import configparser
import os
import re
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import redis

from tests.support import marks
from tests.support.polling import wait_until
from tests.support.resources import database_url, free_port, redis_url

REPO = Path(__file__).resolve().parents[2]
SUPERVISORD_CONF = REPO / "deploy" / "supervisord.conf"
# The log-in limits' counters live in the cache, which is the broker's Redis: every web process shares them.
REDIS_URL = redis_url("web")


def supervised_web_command(var: Path, port: int) -> list[str]:
    """[program:web]'s command, with supervisord's expansions filled in as it would fill them."""
    parser = configparser.RawConfigParser()
    parser.read(SUPERVISORD_CONF)
    command = parser.get("program:web", "command")
    values = {"here": str(SUPERVISORD_CONF.parent), "ENV_HOST": "127.0.0.1", "ENV_PORT": str(port),
              "ENV_KOZYR_VAR_DIR": str(var)}
    return re.sub(r"%\((\w+)\)s", lambda found: values[found.group(1)], command).split()


class WebServer:
    """The site's web server on 127.0.0.1:<port>; ``env`` adds settings (KOZYR_*) to a clean environment, and
    ``options`` gunicorn options after supervisord's (the later of two wins)."""

    def __init__(self, tmp_path: Path, *options: str, **env: str):
        marks.require("workers", "a web server")
        self.var = tmp_path / "var"
        (self.var / "log").mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        clean = {k: v for k, v in os.environ.items()
                 if not k.startswith(("KOZYR_", "DJANGO_", "PROMETHEUS_", "FORWARDED_"))
                 and k not in ("DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")}
        clean.update({"KOZYR_VAR_DIR": str(self.var), "DATABASE_URL": database_url(), "CELERY_BROKER_URL": REDIS_URL,
                      **env})
        redis.Redis.from_url(REDIS_URL).flushdb()  # no log-in counters left from another run
        self.log_path = tmp_path / "web.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115  (the server writes to it until stop())
        self.proc = subprocess.Popen([*supervised_web_command(self.var, self.port), *options], cwd=REPO / "platform",
                                     env=clean, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(self._answers, 90, lambda: f"the web server on port {self.port}: {self.output()[-3000:]}")

    def _answers(self) -> bool:
        assert self.proc.poll() is None, f"the web server exited: {self.output()[-3000:]}"
        try:
            with urllib.request.urlopen(f"{self.base}/api/v1/games/", timeout=10) as answer:
                return answer.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.log.close()
