"""However many ranked results arrive past the refit threshold, and however many workers record them at once,
at most one refit waits per preset; the database row says so, not the broker, so a lost message is caught up by
the periodic refit_due, and once a refit has run the next one can be queued.

Results are recorded through matches.actions.finish from worker threads (real commits on PostgreSQL, so the
on-commit publishes really go to the broker: the in-memory transport of the test settings, read back here).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connection

from bots.actions import house_version
from config.celery import app
from matches import actions
from ratings import actions as ratings_actions
from ratings.actions import request_refit
from ratings.models import Refit, RefitRequest
from ratings.tasks import refit, refit_due

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[3]
WORKERS = 4
THRESHOLD = 20  # REFIT_EVERY for these tests (200 on the site), so they record a few hundred results, not 600


def take_refits() -> list[str]:
    """The presets of the refit messages waiting on the broker's maintenance queue, taken off it (with any
    other job an earlier test of this process left there, such as an upload's ladder fill)."""
    presets = []
    with app.connection_for_write() as broker:
        channel = broker.default_channel
        while (message := channel.basic_get("maintenance", no_ack=True)) is not None:
            if message.headers["task"] != "ratings.tasks.refit":
                continue
            args, _, _ = message.decode()
            presets.append(args[0])
    return presets


def ranked_matches(count: int) -> list[int]:
    # One seating for all: finish locks a match's seats with their versions in seat order, so rotations
    # recorded side by side would wait for each other crosswise (matches.actions' lock order, not under test).
    greedy, rand = house_version("bura", "greedy"), house_version("bura", "random")
    return [actions.create_match(kind="ladder", preset="bura", ranked=True, seat_versions=[greedy, rand]).pk
            for _ in range(count)]


def result(winner: int) -> dict:
    return {"seats": [{"seat": s, "verdict": "ok", "code": None, "detail": "", "decisions": 12} for s in (0, 1)],
            "ranks": [1, 2] if winner == 0 else [2, 1], "points": [3, 0] if winner == 0 else [0, 3],
            "teams": [[0], [1]], "ended_by": "rules"}


def finish_concurrently(match_ids: list[int]) -> None:
    """Every match claimed and finished, by WORKERS threads at once (each with its own connection)."""
    errors: list[BaseException] = []
    start = threading.Barrier(WORKERS)

    def work(share: list[int]) -> None:
        try:
            start.wait()
            for k, match_id in enumerate(share):
                owner = f"test-worker-{threading.get_ident()}"
                assert actions.claim(match_id, owner) is not None
                assert actions.finish(match_id, owner, result(k % 2), "", 0, {})
        except BaseException as err:  # re-raised in the test's thread
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(match_ids[i::WORKERS],)) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def test_it_queues_at_most_one_refit_per_preset_however_many_results_pass_the_threshold(house_bots, monkeypatch):
    monkeypatch.setattr(ratings_actions, "REFIT_EVERY", THRESHOLD)
    take_refits()
    finish_concurrently(ranked_matches(THRESHOLD + 100))
    assert take_refits() == ["bura"]  # not one per result past the threshold (it was 101)
    assert RefitRequest.objects.get(preset="bura").requested is not None
    assert not Refit.objects.exists()

    # That message is lost (a broker restarted without persistence): the row still says a refit is pending,
    # so results queue nothing more, and the periodic refit_due, which refits regardless, catches up.
    finish_concurrently(ranked_matches(20))
    assert take_refits() == []
    assert refit_due() == ["bura"]
    assert Refit.objects.get().matches == THRESHOLD + 120
    assert RefitRequest.objects.get(preset="bura").requested is None

    # After the refit, the next THRESHOLD results queue the next one — again only one.
    finish_concurrently(ranked_matches(THRESHOLD - 1))
    assert take_refits() == []
    finish_concurrently(ranked_matches(WORKERS * 10))
    [queued] = take_refits()
    assert refit(queued) == 2  # the worker runs it: both versions rated
    assert Refit.objects.count() == 2 and RefitRequest.objects.get(preset="bura").requested is None
    assert refit(queued) == 0 and Refit.objects.count() == 2  # delivered twice: nothing new, nothing done
    assert request_refit("bura")  # and a new one can be requested


def test_it_keeps_one_pending_request_per_preset(db):
    assert request_refit("bura") and request_refit("kozel")
    assert not request_refit("bura") and not request_refit("kozel")
    assert RefitRequest.objects.filter(requested__isnull=False).count() == 2


def test_it_warns_when_the_broker_cannot_take_the_refit():
    # A process of its own whose broker is down (nothing listens on port 1): publishing fails for real.
    code = "import django; django.setup(); from ratings.actions import _queue_refit; _queue_refit('bura')"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings", "CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO / "platform", env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr  # raised nothing: the request stays pending for refit_due
    assert "WARNING ratings.actions: could not queue the refit of bura" in done.stderr, done.stderr
