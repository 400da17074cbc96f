"""The embedded default that `make run` uses — SQLite in WAL mode and the filesystem broker, no server at
all — takes an upload through validation on a real worker, and the house bots play the ladder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.platform.workers import Worker

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def embedded_env(var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KOZYR_", "DJANGO_")) and k not in ("DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")}
    return {**env, "KOZYR_VAR_DIR": str(var), "KOZYR_LADDER_QUEUE_DEPTH": "2"}


def shell(env: dict[str, str], code: str) -> str:
    done = subprocess.run([sys.executable, str(REPO / "manage.py"), "shell", "--verbosity", "0", "-c", code],
                          env=env, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_it_validates_and_plays_on_sqlite_and_the_filesystem_broker(tmp_path):
    env = embedded_env(tmp_path / "var")
    setup = subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, capture_output=True,
                           text=True, timeout=180, cwd=REPO)
    assert setup.returncode == 0, setup.stderr
    assert "admin log-in: user 'admin'" in setup.stdout
    worker = Worker("embedded", env, tmp_path / "worker.log")
    try:
        worker.wait_ready()
        bot = (REPO / "examples" / "kozel" / "python" / "main.py").as_posix()
        shell(env, "from accounts.models import User; from bots.actions import do_create_bot, do_upload_version;"
                   "from bots.upload import check_upload; import pathlib;"
                   "u = User.objects.create_user('eve', password='a-long-password-1');"
                   "b = do_create_bot(u, game='kozel', name='eve-kozel');"
                   f"do_upload_version(b, check_upload('main.py', pathlib.Path('{bot}').read_bytes()))")
        status = "pending"
        deadline = time.monotonic() + 120
        while status == "pending" and time.monotonic() < deadline:
            time.sleep(1)
            status = shell(env, "from bots.models import BotVersion; v = BotVersion.objects.get(bot__name="
                                "'eve-kozel'); print(v.status, v.reason)")
        assert status.startswith("ready"), status + worker.output()[-2000:]
        # Only kozel bots on the ladder: the new bot's first ladder match is not queued behind long Burraco games.
        shell(env, "from bots.models import Bot; Bot.objects.exclude(game='kozel').update(active=False);"
                   "from matches.ladder import fill_ladder; print(fill_ladder())")
        finished = "0"
        deadline = time.monotonic() + 120
        while finished == "0" and time.monotonic() < deadline:
            time.sleep(1)
            finished = shell(env, "from matches.ladder import fill_ladder; fill_ladder();"  # what beat does
                                  "from matches.models import Match; print(Match.objects.filter(kind='ladder', "
                                  "status='finished', seats__version__bot__name='eve-kozel').distinct().count())")
        assert int(finished) > 0, worker.output()[-2000:]
        journal = shell(env, "from django.db import connection; c = connection.cursor(); "
                             "c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])")
        assert journal == "wal"
    finally:
        worker.stop()
