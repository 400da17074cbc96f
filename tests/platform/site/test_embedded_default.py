"""The embedded default, as `make run` starts it: SQLite in WAL mode and the embedded Redis, every process
under supervisord (deploy/supervisord.conf). An upload goes through validation on a real worker, the house
bots play the ladder, and a worker SIGKILLed under the process manager comes back while the site keeps
answering."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.polling import wait_until
from tests.support.supervised_site import REPO, Site, embedded_env, free_port, shell, status

pytestmark = [pytest.mark.slow, pytest.mark.site]


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
        wait_until(lambda: status(f"{site.url}/healthz") == 200, 90, "the web server " + site.output()[-2000:])
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

        state = wait_until(validated, 120, "the validation " + site.output()[-2000:], every=1)
        assert state.startswith("ready"), state + site.output()[-2000:]
        wait_until(lambda: finished_ladder_matches(env, "eve-kozel") > 0, 120,
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
        wait_until(lambda: site.pid("bots") not in (0, killed), 60, "the worker to be started again")
        assert "exited: bots (terminated by SIGKILL; not expected)" in site.output()
        before = finished_ladder_matches(env, "eve-kozel")
        wait_until(lambda: finished_ladder_matches(env, "eve-kozel") > before, 180,
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
