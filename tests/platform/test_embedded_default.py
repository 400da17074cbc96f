"""The embedded default, as `make run` starts it: SQLite in WAL mode and the embedded Redis, every process
under supervisord (deploy/supervisord.conf). An upload goes through validation on a real worker, the house
bots play the ladder, and a worker SIGKILLed under the process manager comes back while the site keeps
answering."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests.platform.workers import wait_for

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / ".venv" / "bin"
CONFIGURATION = REPO / "deploy" / "supervisord.conf"
pytestmark = [pytest.mark.slow, pytest.mark.site]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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


def finished_ladder_matches(env: dict[str, str], bot: str) -> int:
    return int(shell(env, "from ladder.matchmaking import fill_ladder; fill_ladder();"  # what beat does, at once
                          "from matches.models import Match; print(Match.objects.filter(kind='ladder', "
                          f"status='finished', seats__version__bot__name='{bot}').distinct().count())"))


def test_it_validates_plays_and_survives_a_killed_worker_under_the_process_manager():
    var = Path(tempfile.mkdtemp(prefix="kz-embedded-")) / "var"  # short: the broker's socket lives in it
    port = free_port()
    env = embedded_env(var, port)
    setup = subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, capture_output=True,
                           text=True, timeout=180, cwd=REPO)
    assert setup.returncode == 0, setup.stderr
    assert "admin log-in: user 'admin'" in setup.stdout
    # Only kozel bots on the ladder: the new bot's ladder matches are not queued behind long Burraco games.
    shell(env, "from bots.models import Bot; Bot.objects.exclude(game='kozel').update(active=False)")
    site = Site(var, port)
    try:
        wait_for(lambda: status(f"{site.url}/healthz") == 200, 90, "the web server " + site.output()[-2000:])
        assert (var / "run" / "broker.sock").is_socket()
        assert shell(env, "from django.conf import settings; print(settings.CELERY_BROKER_URL)") \
            == f"redis+socket://{var / 'run' / 'broker.sock'}"

        bot = (REPO / "examples" / "kozel" / "python" / "main.py").as_posix()
        shell(env, "from accounts.models import User; from bots.actions import do_create_bot;"
                   " from matches.validation import do_upload_version;"
                   "from bots.upload import check_upload; import pathlib;"
                   "u = User.objects.create_user('eve', password='a-long-password-1');"
                   "b = do_create_bot(u, game='kozel', name='eve-kozel');"
                   f"do_upload_version(b, check_upload('main.py', pathlib.Path('{bot}').read_bytes()))")

        def validated() -> str:
            state = shell(env, "from bots.models import BotVersion; v = BotVersion.objects.get(bot__name="
                               "'eve-kozel'); print(v.status, v.reason)")
            return state if not state.startswith("pending") else ""

        state = wait_for(validated, 120, "the validation " + site.output()[-2000:], every=1)
        assert state.startswith("ready"), state + site.output()[-2000:]
        wait_for(lambda: finished_ladder_matches(env, "eve-kozel") > 0, 120,
                 "a ladder match of the new bot " + site.output()[-2000:], every=1)
        journal = shell(env, "from django.db import connection; c = connection.cursor(); "
                             "c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])")
        assert journal == "wal"

        # A worker SIGKILLed (an OOM kill, a crash) while the site is in use: the one that plays the uploaded
        # bot's matches (the sandboxed queue's, in threads), so its match must come back and be played again.
        killed = site.pid("bots")
        assert killed
        os.kill(killed, signal.SIGKILL)
        answers = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # the web server answers all along
            answers.append(status(f"{site.url}/"))
            time.sleep(0.2)
        assert set(answers) == {200}, answers
        wait_for(lambda: site.pid("bots") not in (0, killed), 60, "the worker to be started again")
        assert "exited: bots (terminated by SIGKILL; not expected)" in site.output()
        before = finished_ladder_matches(env, "eve-kozel")
        wait_for(lambda: finished_ladder_matches(env, "eve-kozel") > before, 180,
                 "a ladder match played after the restart " + site.output()[-2000:], every=1)
        assert status(f"{site.url}/") == 200
        running = site.ctl("status")
        assert all(" RUNNING " in line for line in running.splitlines()), running
        # Nothing died that the test did not kill: the embedded broker never failed a worker.
        exits = [line for line in site.output().splitlines() if " exited: " in line]
        assert len(exits) == 1 and "exited: bots (terminated by SIGKILL" in exits[0], exits
        assert "Unrecoverable error" not in site.output()
    finally:
        site.stop()
        shutil.rmtree(var.parent, ignore_errors=True)
