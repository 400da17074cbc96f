"""A broker whose Redis is full: /healthz and /metrics say so, and a worker waits it out instead of dying.

Each test fills a Redis of its own (a server on a free port, 8 MiB, ``noeviction`` as the site's brokers run),
as the live relay's lists once filled the embedded broker: Redis then refuses every write, and kombu's queue
declarations, deliveries and acknowledgements with them. /healthz answered "ok" all along (connecting still
works), and the worker stopped with "Unrecoverable error: OutOfMemoryError", again at every restart.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import redis
import yaml
from celery import Celery
from kombu import Connection

from bots.actions import ensure_house_bots, house_version
from config.embedded_broker import server_binary, server_command
from matches import actions
from matches.models import Match
from tests.platform.config.test_healthz import site_process
from tests.platform.config.test_metrics import samples, value
from tests.platform.faults.test_worker_e2e import slow_ladder_match, workers  # noqa: F401  (the fixture: real workers)
from tests.support.polling import wait_until
from tests.support.resources import free_port

REPO = Path(__file__).resolve().parents[3]
MAXMEMORY = 8 * 2**20
FILLER = "kozyr:test:filler"  # what the relay's unbounded lists were: one list that grows until Redis refuses
REFUSAL = "the broker refuses commands"  # what a waiting worker logs at each attempt (config/worker_consumer.py)




class PrivateRedis:
    """A Redis server of this test's own, with the site's policy and a small memory."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc = subprocess.Popen(
            [server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", "",
             "--appendonly", "no", "--maxmemory", str(MAXMEMORY), "--maxmemory-policy", "noeviction"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = redis.Redis(port=self.port, db=2)
        wait_until(self._answers, 30, "the private Redis to answer")

    def _answers(self) -> bool:
        assert self.proc.poll() is None, "the private Redis exited"
        try:
            return self.client.ping()
        except redis.ConnectionError:
            return False

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def fill(self) -> None:
        """Push 64 KiB lines into database 2 (the relay's) until Redis refuses one, and well past maxmemory: just
        past it, Redis would take writes again as soon as it frees a client's buffer or an acknowledged message,
        where a relay that keeps pushing keeps it full."""
        chunk = b"x" * 65536
        self.limit(2 * MAXMEMORY)
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            for _ in range(4 * MAXMEMORY // len(chunk)):
                self.client.rpush(FILLER, chunk)
        self.limit(MAXMEMORY)

    def load(self, size: int) -> None:
        """``size`` bytes of data, so that a connection more or less hardly moves the share of memory used."""
        self.client.rpush(FILLER, *[b"x" * 65536] * (size // 65536))

    def free(self) -> None:
        self.client.delete(FILLER)

    def limit(self, max_bytes: int) -> None:
        self.client.config_set("maxmemory", max_bytes)

    def used(self) -> int:
        return int(self.client.info("memory")["used_memory"])

    def stop(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)


@pytest.fixture
def private_redis(tmp_path):
    started: list[PrivateRedis] = []

    def start() -> PrivateRedis:
        server = PrivateRedis(tmp_path / f"redis-{len(started)}")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def broker(private_redis, settings):
    """The site's broker and relay on one private Redis (messages in 0, the relay in 2), as compose runs them;
    the cache stays the test's own, so only the broker can be what /healthz finds wrong."""
    server = private_redis()
    settings.CELERY_BROKER_URL = server.url(0)
    settings.LIVE_REDIS_URL = server.url(2)
    return server


def test_it_answers_503_naming_the_broker_that_refuses_writes(client, db, broker):
    assert client.get("/healthz").json() == {"status": "ok"}
    broker.fill()
    answer = client.get("/healthz")
    body = answer.json()
    assert answer.status_code == 503 and body["status"] == "unavailable", body
    assert body["broker"].startswith("BrokerFull: the broker refuses writes (OutOfMemoryError: "), body
    assert "no worker can take or acknowledge a message" in body["broker"]
    assert (body["database"], body["cache"]) == ("ok", "ok")
    broker.free()
    assert client.get("/healthz").json() == {"status": "ok"}


def test_it_says_degraded_from_80_percent_of_maxmemory_and_unavailable_from_95(client, db, broker):
    broker.load(4 * 2**20)
    broker.limit(int(broker.used() / 0.87))
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "degraded", answer.json()
    assert re.fullmatch(r"degraded: the broker's memory is 8\d% full \(\d+\.\d MiB used of \d+\.\d MiB\), 80% or more: "
                        r"unavailable from 95%", answer.json()["broker"]), answer.json()
    broker.limit(int(broker.used() / 0.975))
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.json()["status"] == "unavailable", answer.json()
    assert re.fullmatch(r"BrokerFull: the broker's memory is 9\d% full \(.*\), 95% or more: when full it refuses "
                        r"every write", answer.json()["broker"]), answer.json()


def test_metrics_show_each_redis_memory_and_whether_it_takes_a_write(client, db, broker, private_redis, settings):
    relay = private_redis()  # the relay on a server of its own: read apart
    settings.LIVE_REDIS_URL = relay.url(0)
    broker.fill()
    seen = samples(client.get("/metrics").content.decode())
    assert value(seen, "kozyr_broker_up", redis="broker") == 1
    assert value(seen, "kozyr_broker_writable", redis="broker") == 0
    assert value(seen, "kozyr_broker_memory_max_bytes", redis="broker") == MAXMEMORY
    assert value(seen, "kozyr_broker_memory_used_bytes", redis="broker") >= MAXMEMORY
    assert value(seen, "kozyr_broker_writable", redis="relay") == 1
    assert 0 < value(seen, "kozyr_broker_memory_used_bytes", redis="relay") < MAXMEMORY / 2
    broker.free()
    seen = samples(client.get("/metrics").content.decode())
    assert value(seen, "kozyr_broker_writable", redis="broker") == 1
    assert value(seen, "kozyr_broker_memory_used_bytes", redis="broker") < MAXMEMORY / 2
    relay.stop()
    seen = samples(client.get("/metrics").content.decode())
    assert value(seen, "kozyr_broker_up", redis="relay") == 0
    assert value(seen, "kozyr_broker_writable", redis="relay") == 0


def test_a_full_relay_on_its_own_server_degrades_the_site_and_spares_the_broker(client, db, broker, private_redis,
                                                                                settings):
    relay = private_redis()
    settings.LIVE_REDIS_URL = relay.url(2)
    relay.fill()
    answer = client.get("/healthz")
    body = answer.json()
    assert answer.status_code == 200 and body["status"] == "degraded", body
    assert body["broker"] == "ok"
    assert body["relay"].startswith("degraded: the relay refuses writes (OutOfMemoryError: ")


def test_the_relay_has_a_database_of_its_own_on_the_brokers_server(tmp_path):
    code = "from django.conf import settings; import json; print(json.dumps(settings.LIVE_REDIS_URL))"
    assert site_process(code, tmp_path, CELERY_BROKER_URL="redis://:pw@redis:6379/0") == "redis://:pw@redis:6379/2"
    assert site_process(code, tmp_path, CELERY_BROKER_URL="redis://redis:6379/2") == "redis://redis:6379/3"
    assert site_process(code, tmp_path, CELERY_BROKER_URL="redis://redis:6379/0",
                        KOZYR_LIVE_REDIS_URL="redis://relay:6379/0") == "redis://relay:6379/0"


def test_every_brokers_redis_has_a_memory_limit_and_never_evicts(tmp_path):
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--maxmemory") + 1] == "1gb"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    embedded = server_command(tmp_path)
    assert embedded[embedded.index("--maxmemory") + 1] == "256mb"
    assert embedded[embedded.index("--maxmemory-policy") + 1] == "noeviction"


# The worker, on real processes.

_sender = Celery("kozyr-test-sender")
_sender.config_from_object("config.celery_settings", namespace="CELERY")


@pytest.fixture
def worker_broker(workers, private_redis, monkeypatch):  # noqa: F811  (the imported fixture)
    """A private Redis as the broker of real workers: matches are published to it."""
    from config.celery_settings import MATCH_PRIORITY, RETRY_PRIORITY

    server = private_redis()

    def publish(match_id: int, queue: str, retry: bool = False) -> None:
        with Connection(server.url(0)) as connection:
            _sender.send_task("matches.tasks.play_match", args=[match_id], queue=queue, connection=connection,
                              priority=RETRY_PRIORITY if retry else MATCH_PRIORITY)

    monkeypatch.setattr(actions, "publish", publish)
    return server


def waiting_out_refusals(worker, times: int):
    """A predicate: the worker has logged ``times`` refusals and retried after each, and is still running."""

    def predicate() -> bool:
        if worker.proc.poll() is not None:
            raise AssertionError(f"worker {worker.name} exited: {worker.output()[-3000:]}")
        return worker.output().count(REFUSAL) >= times

    return predicate


def house_match() -> Match:
    ensure_house_bots()
    return actions.create_match(kind="ladder", preset="bura", overrides={"match": "deals:1"}, ranked=True,
                                seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])


def finished(match: Match) -> bool:
    return Match.objects.get(pk=match.pk).status == "finished"


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_worker_started_while_the_broker_refuses_writes_waits_then_plays(workers, worker_broker):  # noqa: F811
    worker_broker.fill()
    worker = workers("patient", wait=False, CELERY_BROKER_URL=worker_broker.url(0))
    wait_until(waiting_out_refusals(worker, 2), 120, lambda: f"two refusals waited out: {worker.output()[-3000:]}")
    worker_broker.free()
    match = house_match()
    wait_until(lambda: finished(match), 120, lambda: f"the match to finish: {worker.output()[-3000:]}")
    assert worker.proc.poll() is None
    assert "Unrecoverable error" not in worker.output()


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_worker_whose_broker_fills_during_a_match_survives_and_plays_on(workers, worker_broker,  # noqa: F811
                                                                          alice):
    worker = workers("survivor", CELERY_BROKER_URL=worker_broker.url(0))
    first = slow_ladder_match(alice, delay=1.0, deals=3)  # seconds of play: the broker fills meanwhile
    wait_until(lambda: Match.objects.filter(pk=first.pk, status="running").exists(), 60, "the match to start")
    house_match()  # its message waits in the queue for the worker's one process
    worker_broker.fill()  # taking that message (and, on Redis 7, acknowledging the first) will be refused
    wait_until(lambda: finished(first), 120, lambda: f"the first match to finish: {worker.output()[-3000:]}")
    wait_until(waiting_out_refusals(worker, 2), 120, lambda: f"two refusals waited out: {worker.output()[-3000:]}")
    worker_broker.free()
    last = house_match()
    wait_until(lambda: finished(last), 120, lambda: f"a match published after to finish: {worker.output()[-3000:]}")
    assert worker.proc.poll() is None
    assert "Unrecoverable error" not in worker.output()
