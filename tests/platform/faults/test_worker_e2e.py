"""End to end on real processes: Celery workers on Redis, the test PostgreSQL database, the bwrap sandbox.

Every test here is about surviving a crash: a worker SIGKILLed mid-match, the broker losing its messages,
the database vanishing while a result is written, a machine without a working sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest
from django.db import connection
from django.utils import timezone

from bots.actions import house_version
from bots.models import BotVersion
from matches import actions
from matches.models import Match, Seat
from sandbox.uids import uid_range
from tests.platform.conftest import python_bot, zip_of
from tests.support.polling import holds_for, wait_until
from tests.support.workers import REDIS_URL, DatabaseProxy, Worker, flush_broker, publish_to_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
BOTS = Path(__file__).resolve().parents[2] / "data" / "bots"


@pytest.fixture
def workers(tmp_path, settings, monkeypatch):
    """start(name, **env) -> a ready Worker on Redis and the test database; all stopped at teardown."""
    flush_broker()
    monkeypatch.setattr(actions, "publish", publish_to_redis)
    started: list[Worker] = []
    media = Path(settings.STORAGES["default"]["OPTIONS"]["location"])
    db = connection.settings_dict

    def start(name: str, *, db_port: int | None = None, wait: bool = True, **extra: str) -> Worker:
        env = {**os.environ,
               "DJANGO_SETTINGS_MODULE": "config.settings",
               "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db_port or db['PORT']}/{db['NAME']}",
               "CELERY_BROKER_URL": REDIS_URL,
               "MEDIA_ROOT": str(media),
               "KOZYR_VAR_DIR": str(tmp_path / f"var-{name}"),
               "KOZYR_SANDBOX_ALLOW_WEAK": "true",
               "KOZYR_WORKER_SELF_STOP": "false",
               **extra}
        worker = Worker(name, env, tmp_path / f"{name}.log")
        started.append(worker)
        if wait:
            worker.wait_ready()
        return worker

    yield start
    for worker in started:
        worker.stop()
        print(f"--- worker {worker.name}, the end of its log ---\n{worker.output()[-4000:]}")  # shown on failure


def ready_slow_version(owner, bot, delay: float) -> BotVersion:
    """A validated version that waits ``delay`` seconds per decision (validated in-process, quickly)."""
    from bots.upload import check_upload
    from matches.validation import do_upload_version
    from play.tasks import play_match

    data = zip_of({"main.py": (BOTS / "first_legal.py").read_bytes(), "delay": str(delay).encode()})
    version = do_upload_version(bot, check_upload("slow.zip", data))
    BotVersion.objects.filter(pk=version.pk).update(status="ready")  # its validation is not under test here
    Match.objects.filter(pk=version.validation_match_id).update(status="cancelled")
    del play_match
    return BotVersion.objects.get(pk=version.pk)


def sandboxed_bots(worker: Worker) -> list[psutil.Process]:
    """The worker's processes that run as a sandbox uid: the bots of the match it plays."""
    band = uid_range()
    found = []
    for process in worker.descendants():
        try:
            if process.uids().real in band:
                found.append(process)
        except psutil.NoSuchProcess:
            continue
    return found


def slow_ladder_match(alice, delay: float = 0.25, deals: int = 1) -> Match:
    from bots.actions import do_create_bot, ensure_house_bots

    ensure_house_bots()
    bot = do_create_bot(alice, game="bura", name=f"slow-{int(delay * 1000)}")
    version = ready_slow_version(alice, bot, delay)
    return actions.create_match(kind="ladder", preset="bura", overrides={"match": f"deals:{deals}"}, ranked=True,
                                seat_versions=[version, house_version("bura", "random")])


def test_it_validates_an_upload_on_a_real_worker(workers, alice, upload):
    from bots.actions import do_create_bot, ensure_house_bots

    ensure_house_bots()
    workers("w1")
    do_create_bot(alice, game="bura", name="e2e-bura")
    response = upload(alice, "e2e-bura", "main.py", python_bot("bura"))
    assert response.status_code == 201, response.json()
    version = BotVersion.objects.get(bot__name="e2e-bura", number=1)
    wait_until(lambda: BotVersion.objects.get(pk=version.pk).status != "pending", 90, "the validation")
    version.refresh_from_db()
    assert version.status == "ready", version.reason


def test_it_finishes_a_match_exactly_once_after_its_worker_is_killed(workers, alice):
    match = slow_ladder_match(alice, delay=0.5, deals=3)
    first = workers("doomed", KOZYR_LEASE_SECONDS="5")
    wait_until(lambda: Match.objects.filter(pk=match.pk, status="running").exists(), 60, "the match to start")
    wait_until(lambda: sandboxed_bots(first), 60, "the bots to run in their sandboxes")  # well inside the match
    assert Match.objects.get(pk=match.pk).status == "running"
    sandboxed = first.descendants()
    first.kill()
    wait_until(lambda: not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in sandboxed), 15,
               "every process of the killed worker to be gone")
    # The lease runs out; the beat job (called here) puts the match back in the queue for another worker.
    wait_until(lambda: Match.objects.get(pk=match.pk).lease_expires < timezone.now(), 15, "the lease to expire")
    assert Match.objects.get(pk=match.pk).status == "running"  # nobody else touched it meanwhile
    workers("rescuer", KOZYR_LEASE_SECONDS="5")
    assert actions.recover_expired_leases() == 1
    wait_until(lambda: Match.objects.get(pk=match.pk).status == "finished", 120, "the rescuer to finish the match")
    match.refresh_from_db()
    assert match.attempts == 2
    assert "stopped renewing its lease" in match.failure
    seats = Seat.objects.filter(match=match)
    assert all(s.verdict == "ok" and s.rank for s in seats)
    assert actions.recover_expired_leases() == 0


def test_it_loses_no_queued_match_when_the_broker_forgets_its_messages(workers, alice, monkeypatch):
    matches = [slow_ladder_match(alice, delay=0.0)]
    matches += actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                            versions=[matches[0].seats.get(seat=0).version,
                                                      house_version("bura", "greedy")])
    flush_broker()  # what a Redis restart without persistence does to the queued messages
    workers("w1")  # ready: it would have taken any message by now
    holds_for(lambda: Match.objects.filter(pk__in=[m.pk for m in matches], status="queued").count() == len(matches),
              1, "every match to stay queued while the broker has no message of it")
    monkeypatch.setattr(actions, "REPUBLISH_AFTER", timezone.timedelta(0))
    assert actions.republish_lost() == len(matches)
    wait_until(lambda: Match.objects.filter(pk__in=[m.pk for m in matches], status="finished").count() == len(matches),
               120, "every republished match to finish")


def test_it_stores_the_result_once_when_the_database_vanishes_at_the_end(workers, alice):
    proxy = DatabaseProxy()
    try:
        match = slow_ladder_match(alice, delay=0.2)
        workers("w1", db_port=proxy.port, KOZYR_LEASE_SECONDS="30")
        wait_until(lambda: Match.objects.filter(pk=match.pk, status="running").exists(), 60, "the match to start")
        proxy.cut()  # the worker's database is gone while it plays and when it writes the result
        holds_for(lambda: Match.objects.get(pk=match.pk).status == "running", 6,
                  "the match to stay running, nothing half-written, while the database is away")
        proxy.restore()
        wait_until(lambda: Match.objects.get(pk=match.pk).status == "finished", 120, "the result to be stored")
        match.refresh_from_db()
        assert match.attempts == 1 and match.replay_sha256
        assert Seat.objects.filter(match=match, verdict="ok").count() == 2
    finally:
        proxy.close()


def test_it_plays_a_match_whose_message_arrived_while_the_database_was_away(workers, alice):
    """A worker that cannot claim a match (the database is cut) asks again later instead of acknowledging the
    message away: no beat runs here, so nothing else would ever send it again."""
    proxy = DatabaseProxy()
    try:
        worker = workers("w1", db_port=proxy.port)
        proxy.cut()
        match = slow_ladder_match(alice, delay=0.0)  # written directly; its message reaches the cut-off worker
        wait_until(lambda: "matches.tasks.play_match" in worker.output(), 60, "the message to reach the worker")
        wait_until(lambda: "could be claimed" in worker.output(), 60,
                   "the worker to try to claim it against the cut database")
        assert Match.objects.get(pk=match.pk).status == "queued"
        proxy.restore()
        wait_until(lambda: Match.objects.get(pk=match.pk).status == "finished", 90, "the match to be played")
        assert Match.objects.get(pk=match.pk).attempts == 1
    finally:
        proxy.close()


def test_it_refuses_to_start_a_worker_that_cannot_run_the_sandbox(workers, alice, tmp_path):
    broken = workers("broken", wait=False, PATH="/usr/local/nobwrap:/nonexistent", KOZYR_SANDBOX_ALLOW_WEAK="true")
    broken.proc.wait(timeout=60)
    assert broken.proc.returncode != 0
    assert "kozyr worker: sandbox backend bwrap unavailable" in broken.output()


def test_it_runs_a_tournament_and_a_version_test_to_the_end_on_a_real_worker(workers, alice, as_user):
    from bots.actions import ensure_house_bots
    from tests.platform.tournaments.test_tournaments_platform import host_tournament
    from tournaments import lifecycle
    from tournaments.models import Tournament, VersionTest
    from tournaments.versiontests import do_start_test

    ensure_house_bots()
    pk = host_tournament(alice, as_user, ["greedy-bura", "greedy-p50-bura", "random-bura"], name="Worker Cup")
    strong = house_version("bura", "greedy")
    bot = strong.bot
    bot.owner = alice
    bot.save()
    twin = BotVersion.objects.create(bot=bot, number=2, builtin="random", runtime="builtin", status="ready")
    test = do_start_test(alice, strong, twin, "bura", elo0=0, elo1=200, alpha=0.1, beta=0.1, parallel=2,
                         max_pairs=200)
    lifecycle.start(Tournament.objects.get(pk=pk))
    workers("w1")

    def done() -> bool:
        lifecycle.drive()  # what the beat job does every 15 s
        return (Tournament.objects.get(pk=pk).status == "finished"
                and VersionTest.objects.get(pk=test.pk).status != "running")

    wait_until(done, 240, "the tournament and the version test to finish")
    assert VersionTest.objects.get(pk=test.pk).status == VersionTest.Status.H1
    assert Tournament.objects.get(pk=pk).trophies.count() == 3
