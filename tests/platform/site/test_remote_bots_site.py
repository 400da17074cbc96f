"""A remote bot on the embedded default, as `make run` starts it (SQLite, the embedded Redis, gunicorn with
uvicorn's worker under supervisord): the real `arena connect` validates its version over the site's own port,
plays the ladder, and a ladder match whose worker is SIGKILLed while the remote bot plays it is replayed on
the restarted worker and counted once (docs/matches.md, "Remote bots")."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.platform.bots.test_remote_bots import slow_bot
from tests.platform.site.test_live_tables_site import kill_tree
from tests.support.polling import wait_until
from tests.support.supervised_site import REPO, Site, embedded_env, free_port, shell, status

# A killed match found before the worker restarts may need a second try (below): more than the usual five minutes.
pytestmark = [pytest.mark.slow, pytest.mark.site, pytest.mark.timeout(600)]


def query(env: dict[str, str], code: str) -> str:
    return shell(env, "from matches.models import Match, Seat; from bots.models import BotVersion;" + code)


def test_a_remote_bot_plays_the_embedded_site_and_a_killed_worker_replays_its_match(tmp_path):
    var = Path(tempfile.mkdtemp(prefix="kz-remote-")) / "var"
    port = free_port()
    extra = {"KOZYR_LADDER_QUEUE_DEPTH": "1", "KOZYR_LEASE_SECONDS": "5", "KOZYR_REMOTE_GRACE_SECONDS": "30"}
    env = {**embedded_env(var, port), **extra}
    setup = subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, capture_output=True,
                           text=True, timeout=180, cwd=REPO)
    assert setup.returncode == 0, setup.stderr
    # One house bot on the ladder beside the remote bot, so every set seats both and its matches keep coming: with
    # every bura house bot, whose matches cost the workers milliseconds, the fair share (docs/matches.md) rightly
    # holds back a bot whose matches cost seconds of thinking for minutes.
    shell(env, "from bots.models import Bot; Bot.objects.exclude(name='random-bura').update(active=False)")
    token = shell(env, "from accounts.models import User; from bots.actions import do_create_bot;"
                       "from bots.remote import do_make_remote_version;"
                       "u = User.objects.create_user('rita', password='a-long-password-1');"
                       "b = do_create_bot(u, game='bura', name='rita-remote', presets=['bura']);"
                       "print(do_make_remote_version(b)[1])")
    site = Site(var, port, **extra)
    connect = None
    try:
        wait_until(lambda: status(f"{site.url}/healthz") == 200, 90, "the web server " + site.output()[-2000:])
        log = open(tmp_path / "connect.log", "wb")  # noqa: SIM115
        connect = subprocess.Popen([str(REPO / ".venv" / "bin" / "arena"), "connect", "--site", site.url, "--bot",
                                    "rita-remote", "--token", token, "--max-matches", "2", "--",
                                    *slow_bot(tmp_path, 0.3)], stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}, start_new_session=True)

        def version_status() -> str:
            return query(env, "print(BotVersion.objects.get(bot__name='rita-remote').status)")

        wait_until(lambda: version_status() != "pending", 180,
                   "validation " + (tmp_path / "connect.log").read_text(errors="replace")[-2000:], every=2)
        assert version_status() == "ready"

        tried: list[int] = []

        def running_remote_match() -> int:
            found = query(env, "m = Match.objects.filter(kind='ladder', status='running', attempts=1, "
                               f"seats__version__bot__name='rita-remote').exclude(pk__in={tried!r}).first();"
                               "print(m.pk if m else 0)")
            return int(found)

        def replayed() -> str:
            return query(env, f"m = Match.objects.get(pk={match_id}); print(m.status, m.attempts, repr(m.failure))")

        # Kill the worker (the open queue's) while it plays a match of the remote bot. A match can end in the second
        # between being found running and the kill (the compiled engines play a deal in milliseconds): then it was
        # not killed, and the next one is tried once the worker is back. A match still running after the kill was
        # killed, since only its (dead) worker could have finished it.
        for _ in range(5):
            match_id = wait_until(running_remote_match, 180, lambda: (
                "a ladder match of the remote bot: its matches "
                + query(env, "print(list(Match.objects.filter(seats__version__bot__name='rita-remote')"
                             ".values_list('pk', 'kind', 'status', 'attempts', 'failure')))")
                + "\n--- arena connect:\n" + (tmp_path / "connect.log").read_text(errors="replace")[-3000:]
                + "\n--- the site:\n" + site.output()[-6000:]), every=1)
            tried.append(match_id)
            # a remote seat waits on its connection: the open queue's worker of threads plays the match
            kill_tree(wait_until(lambda: site.pid("tables"), 60, "the tables worker to be running"))
            if replayed().startswith("running 1 "):
                break
        else:
            raise AssertionError(f"every match of the remote bot ended before the worker was killed: {tried}")

        def stuck() -> str:
            return (f"the killed worker's match to be replayed and finished: now {replayed()}\n--- arena connect:\n"
                    + (tmp_path / "connect.log").read_text(errors="replace")[-3000:]
                    + "\n--- the site:\n" + site.output()[-6000:])

        wait_until(lambda: replayed().startswith("finished "), 240, stuck, every=2)
        _, attempts, _ = replayed().split(" ", 2)
        assert int(attempts) >= 2, replayed()  # replayed at least once (a lease lapsing under load adds one)
        verdict = query(env, f"print(Seat.objects.get(match_id={match_id}, version__bot__name='rita-remote')"
                             ".verdict)")
        assert verdict == "ok"
        # Counted once: the remote bot's games equal its finished ranked matches (duplicates would differ).
        counts = shell(env, "from ratings.models import Rating; from matches.models import Match;"
                            "r = Rating.objects.get(bot__name='rita-remote', preset='bura');"
                            "n = Match.objects.filter(kind='ladder', status='finished', ranked=True, "
                            "seats__version__bot__name='rita-remote').distinct().count(); print(r.games, n)")
        games, rated = counts.split()
        assert games == rated and int(games) >= 1
        output = (tmp_path / "connect.log").read_text(errors="replace")
        assert "abandon" in output.lower() or "given up" in output, output[-3000:]
    finally:
        if connect is not None and connect.poll() is None:
            os.killpg(connect.pid, signal.SIGKILL)
            connect.wait(10)
        site.stop()
        shutil.rmtree(var.parent, ignore_errors=True)
