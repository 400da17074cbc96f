"""A new user's whole journey in real Chromium against a live site with a real Celery worker on Redis:
sign up, upload a bot, see it validated, see it on the leaderboard after ladder matches, open one of its
replays, step to the end, look through its own seat (the opponent's cards stay hidden), reproduce the
match at home with `arena play`, then host a tournament and watch its standings fill."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from browser_helpers import screenshot
from django.db import connection
from django.utils import timezone

from bots import blobs
from matches import actions
from tests.support.polling import wait_until
from tests.support.workers import REDIS_URL, Worker, flush_broker, publish_to_redis

REPO = Path(__file__).resolve().parents[2]
BOT = REPO / "examples" / "bura" / "python" / "main.py"
DOM_HANDS = """() => {
  const out = {};
  document.querySelectorAll('#rv-table [data-hand]').forEach(row => {
    out[row.dataset.hand] = [...row.querySelectorAll('.pc')].map(c => c.dataset.card);
  });
  return out;
}"""

pytestmark = pytest.mark.slow


@pytest.fixture
def worker(live_server, tmp_path, settings, monkeypatch, house_bots):
    flush_broker()
    monkeypatch.setattr(actions, "publish", publish_to_redis)
    db = connection.settings_dict
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
           "CELERY_BROKER_URL": REDIS_URL,
           "MEDIA_ROOT": str(settings.STORAGES["default"]["OPTIONS"]["location"]),
           "KOZYR_VAR_DIR": str(tmp_path / "worker-var"), "KOZYR_SANDBOX_ALLOW_WEAK": "true",
           "KOZYR_WORKER_SELF_STOP": "false"}
    started = Worker("journey", env, tmp_path / "worker.log")
    started.wait_ready()
    yield started
    started.stop()


def test_a_new_user_uploads_climbs_watches_reproduces_and_hosts(live_server, page, worker, tmp_path):
    from bots.models import Bot, BotVersion
    from ladder.matchmaking import fill_ladder
    from matches.models import Match
    from ratings.actions import refit_preset
    from tournaments import lifecycle
    from tournaments.models import Entry, Tournament

    site = live_server.url
    Bot.objects.filter(owner__username="kozyr").exclude(name__in=["random-bura", "greedy-bura"]).update(active=False)

    # Sign up and upload.
    page.goto(f"{site}/signup/")
    page.fill("#id_username", "newcomer")
    page.fill("#id_password1", "a-long-password-1")
    page.fill("#id_password2", "a-long-password-1")
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/bots/new/")
    page.fill("#id_name", "my-first-bot")
    page.select_option("#id_game", "bura")
    page.set_input_files("#id_file", str(BOT))
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/bots/my-first-bot/")

    # The worker validates it; the page says so.
    wait_until(lambda: BotVersion.objects.filter(bot__name="my-first-bot", status="ready").exists(), 120, "validation")
    page.reload()
    assert "ready" in page.inner_text("#versions")
    screenshot(page, "journey-bot-ready")

    # Ladder matches (the beat job is called here), a refit, and the leaderboard shows it.
    def played() -> int:
        fill_ladder()
        return Match.objects.filter(kind="ladder", status="finished", seats__version__bot__name="my-first-bot") \
            .distinct().count() >= 4

    wait_until(played, 240, "ladder matches of the new bot")
    refit_preset("bura")
    page.goto(f"{site}/games/bura/")
    assert "my-first-bot" in page.inner_text("#leaderboard")
    screenshot(page, "journey-leaderboard")

    # One of its replays: step to the end, then look through its own seat.
    match = Match.objects.filter(kind="ladder", status="finished", seats__version__bot__name="my-first-bot") \
        .order_by("pk").first()
    mine = match.seats.get(version__bot__name="my-first-bot").seat
    page.goto(f"{site}/matches/{match.pk}/")
    page.wait_for_selector("#replay-viewer.ready")
    page.focus("#replay-viewer")
    page.keyboard.press("End")
    page.wait_for_function("() => document.getElementById('replay-viewer').dataset.step !== '0'")
    steps = int(page.get_attribute("#replay-viewer", "data-step"))
    replay = json.loads(gzip.decompress(blobs.get("replays", match.replay_sha256)))
    assert steps == len(replay["actions"])  # End went to the last position
    page.evaluate("hash => { window.location.hash = hash; }", f"#step={steps // 2}&seat={mine}")
    page.wait_for_function("([s, v]) => { const e = document.getElementById('replay-viewer');"
                           " return e.dataset.step === String(s) && e.dataset.view === v; }",
                           arg=[steps // 2, str(mine)])
    hands = page.evaluate(DOM_HANDS)
    other = 1 - mine
    assert hands[str(other)] and set(hands[str(other)]) == {"??"}, "the opponent's cards must stay hidden"
    assert "??" not in hands[str(mine)]
    screenshot(page, "journey-replay-own-seat")

    # Reproduce it at home with the command the page shows, and get the same result.
    command = page.inner_text("#reproduce").strip().split()
    home = tmp_path / "home"
    home.mkdir()
    saved_as = page.get_attribute("#reproduce-notes a[download]", "download")  # the owner's own download
    assert saved_as == "my-first-bot-v1.py" and saved_as in command
    shutil.copy(BOT, home / saved_as)
    assert command[:2] == ["arena", "play"]
    done = subprocess.run([str(REPO / ".venv" / "bin" / "arena"), *command[1:], "--json", "out.json", "--quiet"],
                          cwd=home, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    [local] = json.loads((home / "out.json").read_text())["matches"]  # exactly this match, not its set
    assert local["ranks"] == match.result["ranks"] and local["points"] == match.result["points"]

    # Host a tournament from the form, join it, start it; the standings fill as the worker plays.
    page.goto(f"{site}/tournaments/new/")
    page.fill("#id_name", "Newcomer Cup")
    page.select_option("#id_preset", "bura")
    page.select_option("#id_format", "round_robin")
    page.fill("#id_starts_at", (timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))
    page.click("form.card button[type=submit]")
    page.wait_for_selector("#join")
    page.click("#join button[type=submit]")
    tournament = Tournament.objects.get(name="Newcomer Cup")
    Entry.objects.create(tournament=tournament, bot=Bot.objects.get(name="greedy-bura"))
    page.reload()
    page.click("text=Start now")

    def finished() -> bool:
        lifecycle.drive()  # the beat job
        return Tournament.objects.get(pk=tournament.pk).status == "finished"

    wait_until(finished, 240, "the tournament")
    page.reload()
    standings = page.inner_text("#standings")
    assert "my-first-bot" in standings and "greedy-bura" in standings
    screenshot(page, "journey-tournament")
    assert not page.errors, page.errors
