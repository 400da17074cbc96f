"""An analysis on a real Celery worker (Redis, the test PostgreSQL database): queued from the match page, run on
the ``analysis`` queue, and taken only after the matches waiting beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from kombu import Connection

from analysis import actions as analysis_actions
from analysis.models import Analysis
from bots.actions import house_version
from matches import actions
from matches.models import Match
from tests.platform.analysis.conftest import PAR_ITERATIONS, a_deal, play
from tests.support.polling import wait_until
from tests.support.workers import REDIS_URL, Worker, _sender, flush_broker, publish_to_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def publish_analysis_to_redis(row: Analysis) -> None:
    """analysis.actions._publish, with its queue and priority, to the test's Redis (the test process's own
    broker is memory://)."""
    with Connection(REDIS_URL) as broker:
        _sender.send_task("analysis.tasks.run_analysis", args=[row.pk], connection=broker, **analysis_actions.PUBLISH)


@pytest.fixture
def worker(tmp_path, settings, monkeypatch):
    """start() -> one ready worker on every queue of the site, in the site's order, with one process."""
    flush_broker()
    monkeypatch.setattr(analysis_actions, "_publish", publish_analysis_to_redis)
    db = connection.settings_dict
    media = Path(settings.STORAGES["default"]["OPTIONS"]["location"])
    started: list[Worker] = []

    def start() -> Worker:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
               "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
               "CELERY_BROKER_URL": REDIS_URL, "MEDIA_ROOT": str(media),
               "KOZYR_VAR_DIR": str(tmp_path / "var"), "KOZYR_SANDBOX_ALLOW_WEAK": "true",
               "KOZYR_WORKER_SELF_STOP": "false", "KOZYR_HOUSE_SEARCH_BOTS": "false",
               "KOZYR_ANALYSIS_PAR_ITERATIONS": str(PAR_ITERATIONS)}
        found = Worker("analyst", env, tmp_path / "analyst.log")
        started.append(found)
        found.wait_ready()
        return found

    yield start
    for found in started:
        found.stop()
        print(f"--- worker {found.name}, the end of its log ---\n{found.output()[-4000:]}")  # shown on failure


def test_an_analysis_runs_on_a_worker_after_the_match_queued_beside_it(worker, alice, mine):
    first, second = a_deal(mine)
    play(second)
    play(first)
    client = Client()
    client.login(username="alice", password="a-long-password-1")
    assert client.post(f"/matches/{first.pk}/analyse/", {"seat": "0"}).status_code == 302
    row = Analysis.objects.get()
    # a ladder match queued after the analysis: the worker still plays it first (its queue comes first)
    match = actions.create_match(kind="ladder", preset="bura", overrides={"match": "deals:1"}, ranked=True,
                                 seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])
    publish_to_redis(match.pk, match.queue)
    worker()
    wait_until(lambda: Analysis.objects.get(pk=row.pk).status in ("done", "failed"), 120, "the analysis to end")
    row.refresh_from_db()
    assert row.status == "done", row.reason
    assert row.par["iterations"] == PAR_ITERATIONS and row.worker_ms > 0 and row.attempts == 1
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished" and match.started < row.started
    body = client.get(f"/matches/{first.pk}/analysis/").json()
    assert body["seats"][0]["status"] == "done" and body["seats"][0]["summary"]["analysed"] == row.decisions
