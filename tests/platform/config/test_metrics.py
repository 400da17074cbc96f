"""/metrics: django-prometheus's request metrics summed over every gunicorn process, the site's own gauges from
a bounded number of queries, and a bearer token in front of both (nothing at all in production without one)."""

from __future__ import annotations

import concurrent.futures
import os
import socket
import subprocess
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from arena import protocol
from bots.actions import house_version
from matches import actions
from matches.models import Match
from ratings.models import Refit
from tests.support.polling import wait_until
from tests.support.resources import free_port

REPO = Path(__file__).resolve().parents[3]
TOKEN = "kz-metrics-" + "t" * 32


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(seen: dict, name: str, **labels: str) -> float:
    return seen[(name, tuple(sorted(labels.items())))]


def scrape(client, **headers) -> dict:
    answer = client.get("/metrics", **headers)
    assert answer.status_code == 200, answer.content
    return samples(answer.content.decode())


@pytest.fixture
def seats(house_bots):
    return [house_version("bura", "greedy"), house_version("bura", "random")]


def new_match(seats, kind: str = "ladder", **fields) -> Match:
    match = actions.create_match(kind=kind, preset="bura", ranked=kind == "ladder", overrides={"match": "deals:1"},
                                 seat_versions=seats)
    if fields:
        Match.objects.filter(pk=match.pk).update(**fields)
    return match


def test_it_counts_matches_and_measures_waits_leases_workers_and_refits(client, seats, settings):
    now = timezone.now()
    settings.LEASE_SECONDS = 60
    new_match(seats, published_at=now - timedelta(seconds=300))
    new_match(seats, published_at=now - timedelta(seconds=30))
    new_match(seats, kind="validation", published_at=None, created=now - timedelta(seconds=500))  # held
    new_match(seats, status="running", lease_owner="w1:11:aa", lease_expires=now + timedelta(seconds=45))
    new_match(seats, status="running", lease_owner="w1:12:bb", lease_expires=now + timedelta(seconds=50),
              open_seats=True)  # a person's table: a thread of w1's open queue worker
    new_match(seats, kind="tournament", status="running", lease_owner="w2:7:cc",
              lease_expires=now - timedelta(seconds=90))  # its worker died
    new_match(seats, status="running", lease_owner="w2:8:dd", lease_expires=now - timedelta(seconds=95),
              sandboxed_seats=True)  # an uploaded bot's: a thread of w2's bots worker
    new_match(seats, kind="validation", status="running", lease_owner="w2:9:ee",
              lease_expires=now - timedelta(seconds=95), sandboxed_seats=True)  # a validation: a process of w2's
    new_match(seats, status="finished", finished=now - timedelta(minutes=5))
    new_match(seats, kind="challenge", status="failed", finished=now - timedelta(minutes=50))
    new_match(seats, status="finished", finished=now - timedelta(hours=3))  # before the window
    Refit.objects.create(preset="bura", matches=10, rated=2, seconds=4.0)
    Refit.objects.create(preset="bura", matches=20, rated=2, seconds=1.5)  # the latest
    Refit.objects.create(preset="kozel", matches=5, rated=2, seconds=0.25)

    seen = scrape(client)
    assert value(seen, "kozyr_metrics_database_up") == 1
    assert value(seen, "kozyr_matches", kind="ladder", status="queued") == 2
    assert value(seen, "kozyr_matches", kind="validation", status="queued") == 1
    assert value(seen, "kozyr_matches", kind="ladder", status="running") == 3
    assert value(seen, "kozyr_matches", kind="tournament", status="running") == 1
    assert value(seen, "kozyr_matches", kind="challenge", status="queued") == 0  # every series, zero or not
    assert value(seen, "kozyr_matches_held", kind="validation") == 1
    assert value(seen, "kozyr_matches_ended_last_hour", kind="ladder", status="finished") == 1
    assert value(seen, "kozyr_matches_ended_last_hour", kind="challenge", status="failed") == 1
    assert 300 <= value(seen, "kozyr_queue_wait_seconds", kind="ladder") < 330
    assert 300 <= value(seen, "kozyr_recovery_lag_seconds") < 330
    assert 90 <= value(seen, "kozyr_oldest_expired_lease_seconds") < 120
    assert 500 <= value(seen, "kozyr_validation_wait_seconds") < 530
    assert value(seen, "kozyr_workers") == 1  # w2's lease ran out: it is not counted as playing
    assert value(seen, "kozyr_worker_matches", host="w1") == 2
    assert value(seen, "kozyr_worker_waiting_matches", host="w1") == 1
    assert value(seen, "kozyr_worker_waiting_matches", host="w2") == 0
    assert value(seen, "kozyr_worker_matches", host="w2") == 3
    assert value(seen, "kozyr_worker_sandboxed_matches", host="w2") == 1  # the validation is played in a process
    assert value(seen, "kozyr_worker_sandboxed_matches", host="w1") == 0
    last_seen = value(seen, "kozyr_worker_last_seen_timestamp_seconds", host="w1")
    assert abs(last_seen - (now + timedelta(seconds=50 - 60)).timestamp()) < 1
    assert value(seen, "kozyr_worker_last_seen_timestamp_seconds", host="w2") < last_seen
    assert value(seen, "kozyr_refit_duration_seconds", preset="bura") == 1.5
    assert value(seen, "kozyr_refit_duration_seconds", preset="kozel") == 0.25
    assert ("kozyr_refit_duration_seconds", (("preset", "bura-3p"),)) not in seen  # never refitted


def test_it_reads_the_gauges_in_four_queries_however_many_rows(client, seats, django_assert_max_num_queries):
    now = timezone.now()
    for i in range(30):
        new_match(seats, kind=("ladder", "tournament", "validation")[i % 3], status=("queued", "running")[i % 2],
                  lease_owner=f"w{i % 5}:{i}:x" if i % 2 else "", lease_expires=now + timedelta(seconds=i))
    for preset in ("bura", "bura-3p", "kozel"):
        for _ in range(3):
            Refit.objects.create(preset=preset, matches=1, rated=1, seconds=1.0)
    with django_assert_max_num_queries(4):
        seen = scrape(client)
    assert value(seen, "kozyr_workers") == 5


def test_it_counts_the_matches_given_back_because_a_sandbox_could_not_start(client, seats, monkeypatch, settings):
    import play.match
    from play.tasks import play_match

    settings.MAX_ATTEMPTS = 3
    match = new_match(seats)

    def no_sandbox(job):  # what the referee reports when the engine could not start a bot's container
        seat = {"seat": 0, "verdict": protocol.SANDBOX_FAILURE, "code": "sandbox", "detail": "exit 125"}
        return {"seats": [seat, {**seat, "seat": 1}], "ranks": [0, 0], "ended_by": "aborted"}, b""

    monkeypatch.setattr(play.match, "play", no_sandbox)
    assert play_match(match.pk) == "infrastructure"
    assert "the sandbox could not start the bot" in Match.objects.get(pk=match.pk).failure
    new_match(seats, failure="attempt 1: the worker w:1:x stopped renewing its lease (killed or cut off)")
    seen = scrape(client)
    assert value(seen, "kozyr_sandbox_start_failures", kind="ladder") == 1  # not the lease that ran out
    assert value(seen, "kozyr_sandbox_start_failures", kind="validation") == 0


def test_it_keeps_the_request_metrics_beside_the_sites_own(client, db):
    client.get("/healthz")
    text = client.get("/metrics").content.decode()
    assert 'django_http_requests_total_by_view_transport_method_total{method="GET",transport="http",view="healthz"}' \
        in text
    assert "kozyr_matches{" in text


def test_it_answers_only_the_bearer_of_the_token_when_one_is_set(client, db, settings):
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics").status_code == 401
    wrong = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}x")
    assert wrong.status_code == 401 and wrong["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_it_does_not_exist_in_production_without_a_token(client, db, settings):
    settings.PRODUCTION = True
    assert client.get("/metrics").status_code == 404
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_a_database_that_fails_leaves_the_request_metrics_and_says_so(client, db, monkeypatch):
    from django.db import OperationalError

    from web import metrics

    def away(now):
        raise OperationalError("connection timeout expired")

    monkeypatch.setattr(metrics.SiteCollector, "_read", staticmethod(away))
    seen = scrape(client)
    assert value(seen, "kozyr_metrics_database_up") == 0
    assert not any(name == "kozyr_matches" for name, _ in seen)




def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode()


@pytest.mark.workers  # two gunicorn processes of the site
def test_gunicorn_workers_share_their_request_counts(db, tmp_path):
    """Two gunicorn processes serve 40 requests between them; every scrape, whichever process answers it,
    counts all 40."""
    from django.db import connection

    database = connection.settings_dict
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KOZYR_", "DJANGO_", "PROMETHEUS_")) and k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update({"KOZYR_VAR_DIR": str(tmp_path / "var"), "CELERY_BROKER_URL": "memory://",
                "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"})
    server = subprocess.Popen([str(REPO / ".venv" / "bin" / "gunicorn"), "config.wsgi", "--preload", "--chdir",
                               str(REPO / "platform"), "--bind", f"127.0.0.1:{port}", "--workers", "2"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        def up() -> bool:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                return "kozyr_matches" in get(f"{base}/metrics")
            except OSError:
                return False

        wait_until(up, 60, "gunicorn")
        with concurrent.futures.ThreadPoolExecutor(8) as pool:  # at once, so both processes take some
            list(pool.map(lambda _: get(f"{base}/healthz"), range(40)))
        folder = tmp_path / "var" / "run" / "metrics"
        writers = {file.stem.rpartition("_")[2] for file in folder.glob("counter_*.db")} - {str(server.pid)}
        assert len(writers) == 2, writers  # both workers counted requests, each in its own file
        for _ in range(4):
            seen = samples(get(f"{base}/metrics"))
            assert value(seen, "django_http_requests_total_by_view_transport_method_total", method="GET",
                         transport="http", view="healthz") == 40
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.workers
@pytest.mark.django_db(transaction=True)
def test_each_live_worker_says_how_many_matches_it_plays_at_once(client, settings, tmp_path):
    """The bots worker's threads (its host's admission) and a prefork worker's processes, as the workers
    themselves announce them in the relay: gone within the announcement's lifetime once a worker stops."""
    from config.celery_settings import SANDBOXED_QUEUE
    from play import slots
    from tests.platform.faults.test_busy_recovery import site_env
    from tests.support.workers import Worker

    for key in slots.relay.client().scan_iter(match=f"{slots.PREFIX}*"):
        slots.relay.client().delete(key)
    host = socket.gethostname()
    started = [Worker("bots", site_env(tmp_path, settings, "bots"), tmp_path / "bots.log", queues=SANDBOXED_QUEUE,
                      pool="threads", concurrency=3),
               Worker("computing", site_env(tmp_path, settings, "cpu"), tmp_path / "cpu.log", queues="ladder",
                      concurrency=1)]
    try:
        for worker in started:
            worker.wait_ready()

        def both() -> dict | None:
            seen = scrape(client)
            found = {labels: v for (name, labels), v in seen.items() if name == "kozyr_worker_slots"}
            return seen if len(found) == 2 else None

        seen = wait_until(both, 30, "both workers to announce their slots")
        assert value(seen, "kozyr_worker_slots", host=host, worker="bots", pool="threads") == 3
        assert value(seen, "kozyr_worker_slots", host=host, worker="computing", pool="prefork") == 1
        stored = {w["worker"]: w for w in slots.announced()}
        assert stored["bots"]["queues"] == [SANDBOXED_QUEUE] and stored["computing"]["queues"] == ["ladder"]
        assert 0 < slots.relay.client().ttl(f"{slots.PREFIX}{host}:bots@{host}") <= slots.TTL_SECONDS
    finally:
        for worker in started:
            worker.stop()
