"""A soak of the whole site under faults, with the invariants of docs/matches.md checked all along.

    .venv/bin/python bench/soak.py [--minutes 30] [--redis redis://127.0.0.1:6379/6]
                                   [--relay-redis redis://127.0.0.1:6379/7] [--json FILE] [--keep]

Starts the real processes, each in a session of its own with its own log, in a temporary folder: the web server
as production runs it (gunicorn with uvicorn's worker, ASGI: config.asgi, config.web_worker) on a free port, two
Celery workers on the site's own queue order (config.celery_settings.QUEUE_ORDER) and, unless
--no-maintenance-worker, a third worker on the maintenance queue alone (as deploy/entrypoint.sh), and beat; on a
fresh PostgreSQL database (kozyr_soak_<pid>, migrated, dropped at the end), a Redis database of its own for the
broker (--redis) and another for the live relay (--relay-redis: the relay's own database on the broker's
server, as the site's default has it, but one no other soak or test shares); both are flushed. The workers
reach PostgreSQL through a local TCP proxy that the soak can cut, the web server through another, a process of
its own (bench/tcp_proxy.py) that the soak can kill; beat and the soak itself connect directly. Sandbox backend
bwrap (weak limits accepted).

The site is kept busy: 50+ bots uploaded through the HTTP API by 20 accounts (the starter kits of
examples/*/python, slow first-legal bots, and bench/bots/soak/misbehave.py bots that crash, stall past their
move time and bank, or flood stdout or stderr in a share of their matches), the ladder at depth 30, a round
robin hosted, joined and started through the API (another when it ends), new versions uploaded all along,
reader threads GETting the pages and the API, and the real-time edge (bench/soak_edge.py): --remote-bots
remote bots on the Bura ladder, each the real `arena connect` running the Bura starter kit (thinking
--remote-think seconds a decision, bench/bots/soak/thinking.py), and --people
people at live tables against a house bot (greedy-bura, active for them and so on the Bura ladder too),
scripted as the table's page behaves, sitting down again whenever a match ends. Faults are injected on a
schedule:

  worker-kill  SIGKILL a match worker's process group while it plays (its bots must die with it), restart it;
               recovery: until every match it was playing is finished by another worker;
  flushdb      FLUSHDB the broker's Redis database (every queued message is lost);
               recovery: until every match whose message was lost is published again or claimed, and one
               published again has been claimed;
  db-cut       the workers' database proxy refuses and drops every connection for a few seconds;
               recovery: from the end of the cut until a match finishes again;
  beat-kill    SIGKILL beat, keep it down a while, start it again;
               recovery: from its restart until recover_matches and fill_ladder have both run on a worker;
  two-beats    a second beat beside the first for a while;
               recovery: from stopping it until the ladder is within its depth again (0 if it never left it);
  relay-flush  the live relay loses everything (its keys deleted at once, as a Redis restarted without
               persistence: kozyr:live:* and kozyr:remote:* when it shares the broker's database, else FLUSHDB
               of its own), at a moment a remote bot's and a person's match are being played (waiting up to
               --edge-wait seconds for one);
               recovery: until every such match ended well (finished, a person's also aborted) and a match
               with a remote or a person seat finished since;
  web-db-outage  the web tier loses PostgreSQL for --web-db-outage-seconds (35) while the workers keep theirs:
               its proxy is SIGKILLed (open connections die, new ones are refused), then started again;
               recovery: from its return until /healthz answers 200, every remote bot is connected again,
               every remote or person match played during the outage ended well, and a match with a remote
               or a person seat finished since. Its 5xx (and --web-db-settle seconds after) are expected.

Invariants, checked every few seconds by SQL in one REPEATABLE READ snapshot (triggers installed in the soak's
database log every status change of a match and every write of a seat):
  no match finished twice (a finish event per match at most, a finished row never changes, a seat is written
  once; tournament pairings and tables count each finished match once; a version's validation follows its
  match) · ratings count each ranked match once (Rating.games and W/D/L against the finished ranked matches)
  · nothing stuck past its lease (no running match whose lease expired longer ago than --lease-slack) · no
  validation, challenge or tournament match queued longer than --queued-bound (the ladder is a backlog by
  design, 30 sets deep; its lost messages are the flushdb fault's to time) · the ladder never over its depth
  (duplicate sets with a match queued or running, exactly) ·
  no bot process left behind (descendants of a killed or stopped worker, and processes in the soak's sandbox
  cgroups, gone) · no 5xx (web access log, readers, uploads, people; but while the web's database is away) ·
  the web serves again once its database is back (no 5xx from --web-db-settle to 120 s after it came back) ·
  Redis memory bounded (the soak's two databases) · no remote or person seat lost to a fault (a seat of a remote bot
  or a person in a finished match that overlapped a fault's window, from its start to --edge-slack seconds
  after its end, was scored ok; people's ratings count each finished casual match once, under ratings-once)
  · every casual match ended finished or aborted (never failed or cancelled, none left queued or running).

Prints a table of the faults (injected, survived, worst recovery), the invariants and the figures
(throughput, remote and casual matches by how they ended, the remote and person seats' verdicts, Redis memory,
queue lengths, beat-job gaps, deadlocks, ...). Exit status 1 when an invariant
failed or a fault was not survived, 0 otherwise. On failure the folder with every log is kept (its path is
printed); --keep also keeps the database.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import http.client
import io
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "platform")]

import psutil  # noqa: E402
import psycopg  # noqa: E402
import redis  # noqa: E402

from bench import soak_edge as edge  # noqa: E402
from config.celery_settings import CELERY_BEAT_SCHEDULE, QUEUE_ORDER  # noqa: E402
from tests.support.workers import DatabaseProxy  # noqa: E402

BIN = REPO / ".venv" / "bin"
SOAK_BOTS = REPO / "bench" / "bots" / "soak"
FIRST_LEGAL = REPO / "tests" / "data" / "bots" / "first_legal.py"  # plays after the delay in its 'delay' file
FAULTS = ("worker-kill", "flushdb", "db-cut", "beat-kill", "two-beats", "relay-flush", "web-db-outage")
TERMINAL = ("finished", "failed", "cancelled", "aborted")
RECOVER_EVERY = float(CELERY_BEAT_SCHEDULE["recover-matches"]["schedule"])
REPUBLISH_AFTER_S = 120  # matches.actions.REPUBLISH_AFTER: a lost message is sent again after this
BEAT_JOBS = ("play.tasks.recover_matches", "ladder.tasks.fill_ladder")
HOSTILE = ("crash", "stall", "flood-stdout", "flood-stderr")
OWNER_KEY = "kozyr-soak:owner"  # which soak uses this Redis database (two would flush each other)
PEOPLE_OPPONENT, PEOPLE_PRESET = "greedy-bura", "bura"  # a house bot: built in, no sandbox to start per match
PEOPLE_PASSWORD = "a-long-soak-password-1"
WEB_BACK_S = 120  # a 5xx this long after the web's database came back is still put down to the outage

INVARIANTS = {
    "finished-once": "no match finished twice",
    "ratings-once": "ratings count each ranked match once",
    "tournaments-once": "tournament results count each match once",
    "validation": "a version's validation follows its match",
    "lease": "nothing stuck past its lease",
    "queued": "no match queued too long",
    "ladder": "the ladder within its depth",
    "leftovers": "no bot process left behind",
    "http": "no 5xx from the web",
    "web-back": "the web serves again once its database is back",
    "redis": "Redis memory bounded",
    "edge-seats": "no remote or person seat lost to a fault",
    "casual": "every casual match finished or aborted",
}


# ---- small helpers ---------------------------------------------------------------------------------------------

START = time.time()


def say(message: str) -> None:
    print(f"[soak {time.time() - START:7.1f}s] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def state_id(folder: Path) -> str:
    """The sandbox's name for a state folder (sandbox.identity.state_id): its cgroups are
    kozyr-sandbox/<state id>-<pid>-<random>.<run>."""
    info = os.stat(folder)
    return hashlib.sha256(f"{info.st_dev}:{info.st_ino}".encode()).hexdigest()[:8]


class Findings:
    """Violations of the invariants, each counted once per key (a match, a rating, a process)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen: dict[str, dict[str, str]] = {name: {} for name in INVARIANTS}
        self.first_at: dict[str, float] = {}

    def add(self, invariant: str, key: str, detail: str) -> None:
        with self.lock:
            if key not in self.seen[invariant]:
                self.seen[invariant][key] = detail
                self.first_at.setdefault(invariant, time.time())
                if len(self.seen[invariant]) <= 5:
                    say(f"INVARIANT {invariant}: {detail}")
                elif len(self.seen[invariant]) == 6:
                    say(f"INVARIANT {invariant}: more violations (counted, not shown)")

    def update(self, invariant: str, key: str, detail: str) -> None:
        with self.lock:
            if key in self.seen[invariant]:
                self.seen[invariant][key] = detail

    def failed(self) -> list[str]:
        return [name for name, found in self.seen.items() if found]


class Figures:
    """Maxima and counters for the report, shared by every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.values: dict[str, float] = collections.defaultdict(float)

    def inc(self, name: str, by: float = 1) -> None:
        with self.lock:
            self.values[name] += by

    def peak(self, name: str, value: float) -> None:
        with self.lock:
            self.values[name] = max(self.values.get(name, value), value)

    def get(self, name: str, default: float = 0) -> float:
        with self.lock:
            return self.values.get(name, default)


# ---- the site's processes --------------------------------------------------------------------------------------

class Service:
    """One process of the site (web, a worker, beat) in a session of its own, appending to its own log."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path, cwd: Path, ready: str | None):
        self.name, self.argv, self.env, self.log_path, self.cwd, self.ready_marker = name, argv, env, log, cwd, ready
        self.proc: subprocess.Popen | None = None
        self.offset = 0
        self.starts = 0
        self.intended_down = True  # True while the soak means it to be stopped (or dead)
        self.unexpected_exits = 0
        self.ended: dict[int, float] = {}  # incarnation (the value of starts) -> when it ended

    def start(self) -> None:
        self.offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.starts += 1
        self.intended_down = False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        with open(self.log_path, "rb") as log:
            log.seek(self.offset)
            return log.read().decode(errors="replace")

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise SystemExit(f"{self.name} exited at start-up:\n{self.output()[-3000:]}")
            if self.ready_marker is None or self.ready_marker in self.output():
                return
            time.sleep(0.2)
        raise SystemExit(f"{self.name} not ready after {timeout:.0f} s:\n{self.output()[-3000:]}")

    def pool(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children()
        except (psutil.NoSuchProcess, AttributeError):
            return []

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except (psutil.NoSuchProcess, AttributeError):
            return []

    def kill(self) -> None:
        """SIGKILL the process group (the main process and its pool), as the OOM killer or a power cut would. The
        bots are in sessions of their own: they must die with their parent by themselves (--die-with-parent)."""
        self.intended_down = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.ended.setdefault(self.starts, time.time())

    def stop(self, grace: float = 90) -> None:
        """SIGTERM to the main process, as a process manager sends it (a worker's warm shutdown finishes the
        matches it plays; its pool's children must not get the signal themselves), then SIGKILL to the group."""
        self.intended_down = True
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                say(f"{self.name} did not stop within {grace:.0f} s; killing it")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        if self.proc is not None:
            self.ended.setdefault(self.starts, time.time())


class Site:
    """The processes of one soak and the environment they share."""

    def __init__(self, args, root: Path, db_name: str, proxy: DatabaseProxy):
        self.args, self.root, self.db_name, self.proxy = args, root, db_name, proxy
        self.port = free_port()
        self.secret = secrets.token_urlsafe(50)
        self.logs = root / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.web_db = edge.ProxyProcess(self.logs / "web-db-proxy.log")  # the web tier's way to PostgreSQL
        self.direct_db = f"postgres://postgres@127.0.0.1:5432/{db_name}"
        self.proxied_db = f"postgres://postgres@127.0.0.1:{proxy.port}/{db_name}"
        self.web_proxied_db = f"postgres://postgres@127.0.0.1:{self.web_db.port}/{db_name}"
        (root / "media").mkdir(exist_ok=True)
        self.lock = threading.Lock()
        self.web = self._web()
        self.workers = [self._worker(f"w{i + 1}", ",".join(QUEUE_ORDER), args.concurrency)
                        for i in range(args.workers)]
        self.maintenance = (self._worker("maintenance", "maintenance", args.maintenance_concurrency)
                            if args.maintenance_worker else None)
        self.beat = self._beat("beat")
        self.beat2: Service | None = None
        self.state_ids = {state_id(self.root / f"state-{w.name}") for w in self.all_workers()}

    def env(self, name: str, database: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_")) and k not in (
            "DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT", "SECRET_KEY", "SANDBOX_BACKEND", "DEBUG")}
        var = self.root / f"var-{name}"
        var.mkdir(exist_ok=True)
        return {**keep, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": database,
                "CELERY_BROKER_URL": self.args.redis, "KOZYR_LIVE_REDIS_URL": self.args.relay_redis,
                "MEDIA_ROOT": str(self.root / "media"),
                "SECRET_KEY": self.secret, "KOZYR_VAR_DIR": str(var), "SANDBOX_BACKEND": "bwrap",
                "KOZYR_SANDBOX_ALLOW_WEAK": "true", "KOZYR_LADDER_QUEUE_DEPTH": str(self.args.depth),
                # the faults are the point, not the search bots' strength: a ladder of matches of seconds
                "KOZYR_HOUSE_SEARCH_BOTS": "false",
                "KOZYR_LEASE_SECONDS": str(self.args.lease_seconds),
                # people sit down again as soon as a match ends, for longer than an hour's allowance
                "KOZYR_CASUAL_PER_HOUR": "10000"}

    def _web(self) -> Service:
        # deploy/entrypoint.sh's web (and deploy/supervisord.conf's): ASGI, so the port serves arena connect too
        argv = [str(BIN / "gunicorn"), "config.asgi:application", "--worker-class", "config.web_worker.WebWorker",
                "--preload", "--chdir", str(REPO / "platform"),
                "--bind", f"127.0.0.1:{self.port}", "--workers", "2", "--timeout", "60",
                "--control-socket", str(self.root / "gunicorn.ctl"),
                "--access-logfile", str(self.logs / "web-access.log"),
                "--error-logfile", str(self.logs / "web-error.log")]
        return Service("web", argv, self.env("web", self.web_proxied_db), self.logs / "web.log", REPO, None)

    def _worker(self, name: str, queues: str, concurrency: int) -> Service:
        env = self.env(name, self.proxied_db)
        state = self.root / f"state-{name}"
        state.mkdir(mode=0o711, exist_ok=True)
        env["KOZYR_SANDBOX_STATE_DIR"] = str(state)
        argv = [str(BIN / "celery"), "-A", "config", "worker", "--queues", queues, "--concurrency", str(concurrency),
                "--hostname", f"{name}@%h", "--loglevel", "INFO"]
        return Service(name, argv, env, self.logs / f"{name}.log", REPO / "platform", "ready.")

    def _beat(self, name: str) -> Service:
        env = self.env(name, self.direct_db)
        argv = [str(BIN / "celery"), "-A", "config", "beat", "--schedule", str(self.root / f"var-{name}" / "schedule"),
                "--loglevel", "INFO"]
        return Service(name, argv, env, self.logs / f"{name}.log", REPO / "platform", "beat: Starting")

    def all_workers(self) -> list[Service]:
        return self.workers + ([self.maintenance] if self.maintenance else [])

    def services(self) -> list[Service]:
        return [self.web, *self.all_workers(), self.beat] + ([self.beat2] if self.beat2 else [])

    def start(self, meanwhile) -> None:
        """Web and workers boot while ``meanwhile`` migrates the database (they touch it only for requests and
        tasks); beat, which sends tasks at once, starts after it. The web's database proxy first."""
        self.web_db.start()
        for service in [self.web, *self.all_workers()]:
            service.start()
        meanwhile()
        self.beat.start()
        for service in [self.web, *self.all_workers(), self.beat]:
            service.wait_ready()
        wait_http(self.port)

    def stop(self) -> None:
        """Beat, then the workers (a warm shutdown finishes the matches they play), then the web: a remote seat's
        connection lives in the web process, and stopping it first would leave those matches to the grace."""
        for beat in (self.beat2, self.beat):
            if beat:
                beat.stop(grace=20)
        threads = [threading.Thread(target=w.stop) for w in self.all_workers()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.web.stop(grace=30)
        self.web_db.cut()


def wait_http(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        time.sleep(0.3)
    raise SystemExit("the web server did not answer /healthz")


# ---- the HTTP side: API client, seeding, load ------------------------------------------------------------------

class Web:
    """HTTP to the site; every answer is counted and a 5xx (or no answer) is an invariant failure, unless
    ``outage(now, source, what)`` accounts for it as the web-db-outage fault's (Soak.outage_5xx)."""

    def __init__(self, port: int, findings: Findings, figures: Figures, outage=lambda at, source, what: False):
        self.port, self.findings, self.figures, self.outage = port, findings, figures, outage

    def call(self, method: str, path: str, *, token: str | None = None, body: bytes | None = None,
             content_type: str | None = None, role: str = "reader") -> tuple[int, bytes]:
        headers = {"Accept": "application/json, text/html"}
        if token:
            headers["Authorization"] = f"Token {token}"
        if content_type:
            headers["Content-Type"] = content_type
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            status, data = response.status, response.read()
            connection.close()
        except OSError as err:
            status, data = 0, str(err).encode()
        self.record(role, method, path, status, data, time.monotonic() - started)
        return status, data

    def record(self, role: str, method: str, path: str, status: int, data: bytes, seconds: float) -> None:
        self.figures.inc(f"http {role} requests")
        if status == 0 or status >= 500:
            if self.outage(time.time(), "http", f"{role} {method} {path} -> {status or 'no answer'}"):
                return
            self.figures.inc(f"http {role} 5xx or no answer")
            self.findings.add("http", f"{role}:{method}:{path}:{time.time():.0f}",
                              f"{role} {method} {path} -> {status or 'no answer'}: {data[:200]!r}")
        else:
            self.figures.peak(f"http {role} slowest s", seconds)

    def get(self, path: str, role: str = "reader") -> tuple[int, bytes]:
        return self.call("GET", path, role=role)

    def post_json(self, path: str, token: str, payload: dict, role: str) -> tuple[int, dict]:
        status, data = self.call("POST", path, token=token, body=json.dumps(payload).encode(),
                                 content_type="application/json", role=role)
        with contextlib.suppress(ValueError):
            return status, json.loads(data or b"{}")
        return status, {}

    def upload(self, bot: str, token: str, filename: str, data: bytes) -> tuple[int, dict]:
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        status, answer = self.call("POST", f"/api/v1/bots/{bot}/versions/", token=token, body=body,
                                   content_type=f"multipart/form-data; boundary={boundary}", role="upload")
        with contextlib.suppress(ValueError):
            return status, json.loads(answer or b"{}")
        return status, {}


@dataclass
class BotSpec:
    name: str
    game: str
    preset: str
    kind: str  # example, slow, or one of HOSTILE
    owner: str
    uploads: int = 0

    def payload(self) -> tuple[str, bytes]:
        """A new file for this bot (a nonce makes each upload a new version)."""
        self.uploads += 1
        nonce = f"{self.name}-{self.uploads}-{secrets.token_hex(4)}"
        if self.kind == "example":
            source = (REPO / "examples" / self.game / "python" / "main.py").read_bytes()
            return "main.py", source + f"\n# soak upload {nonce}\n".encode()
        if self.kind == "slow":
            return "slow.zip", zipped({"main.py": FIRST_LEGAL.read_bytes(), "delay": b"0.15", "nonce": nonce.encode()})
        behaviour = {"kind": self.kind, "chance": 0.4, "within": 8, "nonce": nonce}
        return "hostile.zip", zipped({"main.py": (SOAK_BOTS / "misbehave.py").read_bytes(),
                                      "behaviour.json": json.dumps(behaviour).encode()})


def bot_specs(count: int, owners: list[str]) -> list[BotSpec]:
    kinds = ([("bura", "bura", kind) for kind in HOSTILE for _ in range(4)]
             + [("bura", "bura", "slow")] * 4 + [("kozel", "kozel", "example")] * 8
             + [("burraco", "burraco-2p", "example")] * 4)
    kinds += [("bura", "bura", "example")] * max(0, count - len(kinds))
    specs, numbers = [], collections.Counter()
    for i, (game, preset, kind) in enumerate(kinds):
        numbers[(game, kind)] += 1
        specs.append(BotSpec(f"soak-{game}-{kind}-{numbers[(game, kind)]:02d}", game, preset, kind,
                             owners[i % len(owners)]))
    return specs


# ---- the soak ----------------------------------------------------------------------------------------------------

AUDIT_SQL = """
CREATE TABLE soak_match_event (
    id bigserial PRIMARY KEY, match_id bigint NOT NULL, event text NOT NULL, old_status text, new_status text,
    lease_owner text, attempts integer, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE INDEX soak_match_event_match ON soak_match_event (match_id);
CREATE TABLE soak_seat_write (
    id bigserial PRIMARY KEY, match_id bigint NOT NULL, seat integer NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE FUNCTION soak_match_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO soak_match_event (match_id, event, new_status, attempts)
        VALUES (NEW.id, 'insert', NEW.status, NEW.attempts);
        RETURN NULL;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, lease_owner, attempts)
        VALUES (NEW.id, 'status', OLD.status, NEW.status, COALESCE(NULLIF(NEW.lease_owner, ''), OLD.lease_owner),
                NEW.attempts);
    ELSIF OLD.status IN ('finished', 'failed', 'cancelled', 'aborted') AND (NEW.result IS DISTINCT FROM OLD.result
            OR NEW.finished IS DISTINCT FROM OLD.finished OR NEW.replay_sha256 IS DISTINCT FROM OLD.replay_sha256) THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, attempts)
        VALUES (NEW.id, 'rewrite', OLD.status, NEW.status, NEW.attempts);
    ELSIF NEW.status = 'queued' AND OLD.published_at IS NULL AND NEW.published_at IS NOT NULL THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, attempts)
        VALUES (NEW.id, 'release', OLD.status, NEW.status, NEW.attempts);
    ELSIF NEW.status = 'queued' AND NEW.published_at IS DISTINCT FROM OLD.published_at THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, attempts)
        VALUES (NEW.id, 'republish', OLD.status, NEW.status, NEW.attempts);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER soak_match_audit AFTER INSERT OR UPDATE ON matches_match
    FOR EACH ROW EXECUTE FUNCTION soak_match_audit();
CREATE FUNCTION soak_seat_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO soak_seat_write (match_id, seat) VALUES (NEW.match_id, NEW.seat);
    RETURN NULL;
END $$;
CREATE TRIGGER soak_seat_audit AFTER UPDATE ON matches_seat FOR EACH ROW EXECUTE FUNCTION soak_seat_audit();
"""


@dataclass
class Injection:
    fault: str
    at: float  # seconds into the run
    detail: str = ""
    recovery: float | None = None
    survived: bool | None = None  # None while it is still recovering
    extra: dict = field(default_factory=dict)
    started: float = 0.0  # when the fault began (epoch seconds)
    ended: float | None = None  # when the fault itself was over (a cut restored, a process started again)


@dataclass
class Recovery:
    injection: Injection
    since: float  # the moment recovery time is counted from
    deadline: float
    done: object  # () -> None (not yet), True or a float (recovered; in that many seconds) or a str (failed: why)


@dataclass
class LogEvents:
    succeeded: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    discarded: collections.Counter = field(default_factory=collections.Counter)
    errors: collections.Counter = field(default_factory=collections.Counter)


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.findings = Findings()
        self.figures = Figures()
        self.stop_load = threading.Event()
        self.stop_monitor = threading.Event()
        self.injections: list[Injection] = []
        self.recoveries: list[Recovery] = []
        self.recovery_lock = threading.Lock()
        self.logs = LogEvents()
        self.log_lock = threading.Lock()
        self.beat_down: list[list[float | None]] = []  # [from, to] while no beat ran
        self.tracked: dict[tuple[int, float], tuple[psutil.Process, str, int]] = {}
        self.tracked_lock = threading.Lock()
        self.recent_matches: list[int] = []
        self.tournaments: list[int] = []
        self.ladder_peak: dict[str, int] = {}
        self.ladder_first_over: dict[str, float] = {}
        self.ladder_history: collections.deque = collections.deque(maxlen=4000)
        self.run_started = self.run_ended = 0.0
        self.processed_ranked: set[int] = set()
        self.expected_games: collections.Counter = collections.Counter()
        self.versions_seen: dict[int, float] = {}
        self.thread_errors: list[str] = []
        self.edge_forfeits: dict[str, str] = {}  # remote or person seats not ok outside every fault's window
        self.processed_casual: set[int] = set()
        self.remote_bots: list[edge.RemoteBot] = []
        self.people: list[edge.Person] = []
        self.web_db_away: list[list[float | None]] = []  # [cut, restored] of the web's database
        self.web_back: dict[str, tuple[int, float, str]] = {}  # per outage: 5xx after it, the latest, the first
        self.final = False  # the last check, after the site stopped: nothing may still be queued or running

    # -- set-up -----------------------------------------------------------------------------------------------------
    def prepare(self) -> None:
        args = self.args
        self.db_name = f"kozyr_soak_{os.getpid()}"
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        urls = [args.redis] + ([] if edge.same_database(args.relay_redis, args.redis) else [args.relay_redis])
        owned = [redis.Redis.from_url(url) for url in urls]
        for url, database in zip(urls, owned, strict=True):
            other = database.get(OWNER_KEY)
            if other and other.decode() != self.owner:
                raise SystemExit(f"another soak ({other.decode()}) uses {url}; pass another --redis or --relay-redis")
        self.redis, self.owned = owned[0], owned  # ours from here on: flushed now and at the end
        self.relay = owned[-1]
        for database in owned:
            database.flushdb()
            database.set(OWNER_KEY, self.owner, ex=30)
        self.root = Path(tempfile.mkdtemp(prefix="kozyr-soak-"))
        self.root.chmod(0o711)  # the sandbox uids traverse it to the workers' state folders
        say(f"folder {self.root}, database {self.db_name}, broker {args.redis}, relay {args.relay_redis}")
        with psycopg.connect(f"{args.postgres}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {self.db_name}")
        self.db_url = f"{args.postgres}/{self.db_name}"
        self.proxy = DatabaseProxy()
        self.site = Site(args, self.root, self.db_name, self.proxy)
        harness = self.site.env("harness", self.site.direct_db)  # this process's Django: the soak's database
        os.environ.clear()
        os.environ.update(harness)
        import django

        django.setup()
        from django.conf import settings

        self.relay_url = settings.LIVE_REDIS_URL  # --relay-redis, as the site's processes have it

    def populate(self) -> None:
        """Migrations, house bots, the audit triggers, the accounts and their API tokens."""
        from django.core.management import call_command

        args = self.args
        t0 = time.monotonic()
        call_command("migrate", verbosity=0, interactive=False)
        say(f"migrated in {time.monotonic() - t0:.1f} s")
        from accounts.models import SYSTEM_USERNAME
        from bots.actions import ensure_house_bots
        from bots.models import Bot

        ensure_house_bots()
        if not args.house_bots:  # the ladder is the uploaded bots' (house bots still validate uploads)
            Bot.objects.filter(owner__username=SYSTEM_USERNAME).update(active=False)
        if args.people:  # a person sits down only against an active bot
            Bot.objects.filter(name=PEOPLE_OPPONENT).update(active=True)
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            conn.execute(AUDIT_SQL)
        self.set_sizes = self._set_sizes()
        self.users = self._users()
        self.specs = bot_specs(args.bots, list(self.users))
        self.remote_owners = self._users("soak-remote", args.remote_bots)  # owners of nothing else
        self._people_accounts()
        from django.db import connections

        connections.close_all()

    def _set_sizes(self) -> dict[str, int]:
        """The largest duplicate set of each preset: the ladder may stand that much minus one above its depth."""
        from arena.games import all_presets
        from arena.games.seating import layout
        from arena.runner import rotations, seat_assignment

        sizes = {}
        for preset in all_presets():
            seats, teams = layout(preset, {})
            base = seat_assignment(list(range(len(teams))), seats, teams) if len(teams) < seats else list(range(seats))
            sizes[preset] = len({tuple(base[(s - r) % seats] for s in range(seats))
                                 for r in range(rotations(seats, True))})
        return sizes

    def _users(self, prefix: str = "soak-user", count: int | None = None) -> dict[str, str]:
        from accounts.actions import do_create_token
        from accounts.models import User

        tokens = {}
        for i in range(self.args.users if count is None else count):
            user = User.objects.create_user(username=f"{prefix}-{i:02d}", password=None)  # API tokens only
            tokens[user.username] = do_create_token(user, "soak", None)[1]
        return tokens

    def _people_accounts(self) -> None:
        from accounts.models import User

        for i in range(self.args.people):
            User.objects.create_user(username=f"soak-person-{i:02d}", password=PEOPLE_PASSWORD)

    def seed(self) -> None:
        """Bots created and uploaded through the API, six at a time (an account has at most three versions
        waiting for validation, so the bots are spread over --users accounts)."""
        t0 = time.monotonic()
        queue = list(self.specs)
        lock = threading.Lock()

        def uploader():
            while True:
                with lock:
                    if not queue:
                        return
                    spec = queue.pop(0)
                status, answer = self.web.post_json("/api/v1/bots/", self.users[spec.owner], {
                    "name": spec.name, "game": spec.game, "presets": [spec.preset]}, role="upload")
                if status != 201:
                    say(f"could not create bot {spec.name}: {status} {answer}")
                    continue
                self.upload(spec)

        threads = [threading.Thread(target=uploader) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        say(f"{len(self.specs)} bots created and uploaded in {time.monotonic() - t0:.1f} s")

    def upload(self, spec: BotSpec) -> None:
        filename, data = spec.payload()
        status, answer = self.web.upload(spec.name, self.users[spec.owner], filename, data)
        self.figures.inc("uploads sent")
        if status == 201:
            self.figures.inc("uploads accepted")
        elif status == 429:
            self.figures.inc("uploads throttled")
        elif status < 500:
            self.figures.inc("uploads refused")
            say(f"upload of {spec.name} refused: {status} {answer}")

    # -- load ---------------------------------------------------------------------------------------------------
    def reader(self, number: int) -> None:
        rng = random.Random(self.args.seed * 1000 + number)
        pages = ["/", "/healthz", "/games/bura/", "/games/kozel/", "/games/burraco-2p/", "/bots/", "/tournaments/",
                 "/api/v1/bots/", "/api/v1/matches/", "/api/v1/leaderboards/bura/", "/api/v1/leaderboards/kozel/",
                 "/api/v1/tournaments/", "/api/v1/presets/", "/api/v1/games/", "/api/v1/matches/?kind=ladder"]
        while not self.stop_load.is_set():
            choice = rng.random()
            if choice < 0.3 or not self.recent_matches:
                path = rng.choice(pages)
            elif choice < 0.55:
                spec = rng.choice(self.specs)
                path = rng.choice([f"/bots/{spec.name}/", f"/api/v1/bots/{spec.name}/",
                                   f"/api/v1/bots/{spec.name}/versions/", f"/api/v1/matches/?bot={spec.name}"])
            elif choice < 0.9:
                match = rng.choice(self.recent_matches)
                path = rng.choice([f"/matches/{match}/", f"/api/v1/matches/{match}/",
                                   f"/api/v1/matches/{match}/replay/", f"/matches/{match}/frames/"])
            elif self.tournaments:
                pk = rng.choice(self.tournaments)
                path = rng.choice([f"/tournaments/{pk}/", f"/api/v1/tournaments/{pk}/",
                                   f"/api/v1/tournaments/{pk}/standings/", f"/api/v1/tournaments/{pk}/crosstable/",
                                   f"/api/v1/tournaments/{pk}/rounds/"])
            else:
                a, b = rng.sample([s for s in self.specs if s.preset == "bura"], 2)
                path = f"/api/v1/head-to-head/?a={a.name}&b={b.name}&preset=bura"
            self.web.get(path)
            self.stop_load.wait(self.args.reader_pause)

    def uploads_all_along(self) -> None:
        """New versions while the site plays: bots off the ladder (rejected or suspended) first, then any bot,
        and now and then a new bot."""
        made = 0
        while not self.stop_load.wait(self.args.upload_every):
            with self.db() as conn:
                idle = [row[0] for row in conn.execute(
                    "SELECT b.name FROM bots_bot b LEFT JOIN bots_botversion v ON v.id = b.current_version_id "
                    "WHERE b.name LIKE 'soak-%%' AND (b.suspended_reason <> '' OR v.id IS NULL)")]
                waiting = {row[0] for row in conn.execute(
                    "SELECT DISTINCT u.username FROM bots_botversion v JOIN bots_bot b ON b.id = v.bot_id "
                    "JOIN accounts_user u ON u.id = b.owner_id WHERE v.status = 'pending'")}
            free = [spec for spec in self.specs if spec.owner not in waiting]
            if not free:
                continue
            if made % 5 == 4:
                owner = self.rng.choice(sorted({spec.owner for spec in free}))
                spec = BotSpec(f"soak-late-{made:03d}", "bura", "bura", self.rng.choice(["example", *HOSTILE]), owner)
                status, _ = self.web.post_json("/api/v1/bots/", self.users[owner],
                                               {"name": spec.name, "game": "bura", "presets": ["bura"]}, role="upload")
                if status == 201:
                    self.specs.append(spec)
            else:
                spec = self.rng.choice([s for s in free if s.name in idle] or free)
            self.upload(spec)
            made += 1

    def tournaments_all_along(self) -> None:
        """A round robin hosted, joined and started through the API; another when it ends."""
        host = sorted(self.users)[0]
        token = self.users[host]
        number = 0
        while not self.stop_load.is_set():
            with self.db() as conn:
                ready = {row[0]: row[1] for row in conn.execute(
                    "SELECT b.name, v.status FROM bots_bot b JOIN bots_botversion v ON v.id = b.current_version_id "
                    "WHERE b.name LIKE 'soak-bura-%%' AND v.status = 'ready' AND b.suspended_reason = ''")}
            good = sorted(n for n in ready if "-example-" in n or "-slow-" in n)
            bad = sorted(n for n in ready if n not in good)
            if len(good) < 5:
                self.stop_load.wait(2)
                continue
            number += 1
            entrants = self.rng.sample(good, 5) + (self.rng.sample(bad, 1) if bad else [])
            starts = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
            status, answer = self.web.post_json("/api/v1/tournaments/", token, {
                "name": f"Soak Cup {number}", "preset": "bura", "overrides": {"match": "deals:2"},
                "format": "round_robin", "entry": "private", "starts_at": starts}, role="tournament")
            if status != 201:
                say(f"tournament not created: {status} {answer}")
                self.stop_load.wait(10)
                continue
            pk = answer["id"]
            for name in entrants:
                status, answer = self.post_until_answered(f"/api/v1/tournaments/{pk}/join/", token, {"bot": name},
                                                          role="tournament")
                if status != 201:
                    say(f"{name} could not join tournament {pk}: {status} {answer}")
            status, answer = self.post_until_answered(f"/api/v1/tournaments/{pk}/start/", token, {},
                                                      role="tournament")
            if status != 200:
                say(f"tournament {pk} not started: {status} {answer}")
                continue
            self.tournaments.append(pk)
            self.figures.inc("tournaments started")
            say(f"tournament {pk} started with {len(entrants)} entrants")
            while not self.stop_load.wait(3):
                status, data = self.web.get(f"/api/v1/tournaments/{pk}/", role="tournament")
                state = json.loads(data).get("status") if status == 200 else None
                if state in ("finished", "cancelled"):
                    self.figures.inc(f"tournaments {state}")
                    say(f"tournament {pk} {state}")
                    break

    def post_until_answered(self, path: str, token: str, payload: dict, role: str) -> tuple[int, dict]:
        """A POST sent again while the site answers 5xx (the web's database away), as a client would, for up
        to two minutes; then the last answer."""
        deadline = time.monotonic() + 120
        while True:
            status, answer = self.web.post_json(path, token, payload, role=role)
            if 0 < status < 500 or time.monotonic() > deadline or self.stop_load.wait(2):
                return status, answer

    def start_remote_bots(self) -> None:
        """Each remote bot created through the API by an account of its own, its remote version made there (the
        answer carries the token), and `arena connect` started as its author would; the version's validation
        match is then played over that connection, and the ladder takes it."""
        for i, token in enumerate(token for _, token in sorted(self.remote_owners.items())):
            name = f"soak-remote-{i + 1:02d}"
            status, answer = self.web.post_json("/api/v1/bots/", token, {"name": name, "game": "bura",
                                                                          "presets": ["bura"]}, role="remote")
            if status != 201:
                raise RuntimeError(f"could not create the remote bot {name}: {status} {answer}")
            status, answer = self.web.post_json(f"/api/v1/bots/{name}/remote/", token, {}, role="remote")
            if status != 201:
                raise RuntimeError(f"could not make {name}'s remote version: {status} {answer}")
            bot = edge.RemoteBot(name, answer["token"], f"http://127.0.0.1:{self.site.port}", self.root / name,
                                 self.args.remote_max_matches, self.args.remote_think)
            bot.start()
            self.remote_bots.append(bot)
        if self.remote_bots:
            say(f"remote bots connecting: {', '.join(b.name for b in self.remote_bots)}")

    def person(self, number: int) -> None:
        """A person at live tables against the house bot, until the load stops; the match at hand is finished."""
        person = edge.Person(f"http://127.0.0.1:{self.site.port}", f"soak-person-{number:02d}", PEOPLE_PASSWORD,
                             PEOPLE_OPPONENT, PEOPLE_PRESET, self.web.record, self.stop_load,
                             self.args.seed * 7919 + number, say)
        self.people.append(person)
        person.run()

    def outage_5xx(self, at: float, source: str, what: str) -> bool:
        """Whether a 5xx seen at ``at`` (by ``source``: http, the access log, the error log) is the web-db-outage
        fault's, and its account: from the cut to --web-db-settle s after the database came back it is the
        outage itself (expected, counted); up to WEB_BACK_S after that, a web that does not serve again once its
        database is back (the web-back invariant). False: not the outage's."""
        for cut, back in list(self.web_db_away):
            if at < cut - 1:
                continue
            if back is None or at <= back + self.args.web_db_settle:
                self.figures.inc(f"{source} 5xx while the web's database was away (expected)")
                return True
            if at <= back + WEB_BACK_S:
                key = f"{cut:.0f}"
                with self.figures.lock:
                    count, latest, first = self.web_back.get(key, (0, 0.0, what))
                    self.web_back[key] = count + 1, max(latest, at - back), first
                    count, latest, first = self.web_back[key]
                detail = (f"{count} 5xx (http and logs) up to {latest:.0f} s after the web's database came back "
                          f"(settle {self.args.web_db_settle:.0f} s); the first: {first[:160]}")
                self.findings.add("web-back", key, detail)
                self.findings.update("web-back", key, detail)
                return True
        return False

    # -- database helpers ---------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def db(self):
        conn = psycopg.connect(self.db_url, autocommit=True)
        try:
            yield conn
        finally:
            conn.close()

    # -- the monitor: recoveries, supervision, processes, Redis, logs (every second) ----------------------------
    def monitor(self) -> None:
        conn = psycopg.connect(self.db_url, autocommit=True)
        ticks = 0
        while not self.stop_monitor.wait(1):
            ticks += 1
            try:
                self._supervise()
                self._sample_processes()
                self._read_logs()
                self._sample_ladder(conn)
                self._evaluate_recoveries()
                if ticks % 5 == 0:
                    for database in self.owned:
                        database.set(OWNER_KEY, self.owner, ex=30)  # again after a FLUSHDB
                    self._sample_redis()
                    self.figures.peak("sandboxed processes seen at once", len(self.sandboxed()))
                if ticks % 10 == 0:
                    self._check_tracked()
            except Exception as err:  # a monitor that dies silently would hide everything after it
                self.thread_errors.append(f"monitor: {type(err).__name__}: {err}")
                say(f"monitor error: {type(err).__name__}: {err}")
                with contextlib.suppress(Exception):
                    conn.close()
                conn = psycopg.connect(self.db_url, autocommit=True)
        conn.close()

    def _supervise(self) -> None:
        """A process that died when the soak did not kill it is counted and started again (a restart policy)."""
        for service in self.site.services():
            if service.intended_down or service.alive():
                continue
            service.unexpected_exits += 1
            service.ended.setdefault(service.starts, time.time())
            self.figures.inc("unexpected exits")
            say(f"{service.name} exited by itself ({service.proc.returncode}): {service.output()[-600:]!r}; restarting")
            service.start()
        for bot in self.remote_bots:  # its author's supervisor would start it again, too
            if not bot.intended_down and not bot.alive():
                self.figures.inc("arena connect exits")
                say(f"arena connect of {bot.name} exited ({bot.proc.returncode}): {bot.output()[-600:]!r}; restarting")
                bot.start()
        proxy = self.site.web_db
        if not proxy.intended_down and not proxy.alive():
            self.figures.inc("unexpected exits")
            say(f"the web's database proxy exited by itself: {proxy.output()[-600:]!r}; restarting")
            proxy.start()

    def _sample_processes(self) -> None:
        with self.tracked_lock:
            for service in self.site.all_workers():
                if not service.alive():
                    continue
                for proc in service.descendants():
                    with contextlib.suppress(psutil.Error):
                        key = (proc.pid, proc.create_time())
                        self.tracked.setdefault(key, (proc, service.name, service.starts))

    def _check_tracked(self, grace: float = 15) -> None:
        """A process seen under a worker incarnation that ended more than ``grace`` seconds ago is left behind."""
        services = {s.name: s for s in self.site.all_workers()}
        now = time.time()
        with self.tracked_lock:
            for key, (proc, name, incarnation) in list(self.tracked.items()):
                if gone(proc):
                    del self.tracked[key]
                    continue
                ended = services[name].ended.get(incarnation)
                if ended is not None and now - ended > grace:
                    self._left_behind(proc, f"{name} (start {incarnation})")
                    del self.tracked[key]

    def _left_behind(self, proc: psutil.Process, owner: str) -> None:
        with contextlib.suppress(psutil.Error):
            info = f"pid {proc.pid} {proc.name()} {' '.join(proc.cmdline())[:120]!r} (ppid {proc.ppid()})"
            self.findings.add("leftovers", f"{proc.pid}:{proc.create_time()}", f"{info} outlived its worker {owner}")
            proc.kill()

    def _read_logs(self) -> None:
        if not hasattr(self, "_positions"):
            self._positions: dict[Path, int] = {}
        files = [s.log_path for s in self.site.all_workers()] + [self.site.logs / "web-access.log",
                                                                  self.site.logs / "web-error.log"]
        now = time.time()
        for path in files:
            if not path.exists():
                continue
            with open(path, "rb") as handle:
                handle.seek(self._positions.get(path, 0))
                chunk = handle.read()
                complete = chunk.rfind(b"\n") + 1
                self._positions[path] = self._positions.get(path, 0) + complete
            for line in chunk[:complete].decode(errors="replace").splitlines():
                self._log_line(path.name, line, now)

    TASK_DONE = re.compile(r"Task ([\w.]+)\[[0-9a-f-]+\] succeeded in")
    DISCARDED = re.compile(r"Discarding revoked task: ([\w.]+)\[")
    ACCESS = re.compile(r'"(\w+) (\S+) [^"]*" (\d{3})\b')  # gunicorn's line and uvicorn's (status last)

    def _log_line(self, name: str, line: str, now: float) -> None:
        written = now - 1  # logs are read every second: a line is up to a second old
        if name == "web-access.log":
            found = self.ACCESS.search(line)
            if found:
                self.figures.inc("web access log lines")
                if int(found.group(3)) >= 500 and not self.outage_5xx(written, "web access log", line.strip()):
                    self.findings.add("http", f"log:{line[:160]}", f"web access log: {line.strip()[:300]}")
            return
        if name == "web-error.log":
            if "Traceback" in line or "[ERROR]" in line or "WORKER TIMEOUT" in line:
                self.figures.inc("web error log errors")
                if not self.outage_5xx(written, "web error log", line.strip()):
                    self.findings.add("http", f"errlog:{now:.0f}:{line[:80]}",
                                      f"web error log: {line.strip()[:300]}")
            return
        with self.log_lock:
            if found := self.TASK_DONE.search(line):
                self.logs.succeeded[found.group(1)].append(now)
            elif found := self.DISCARDED.search(line):
                self.logs.discarded[found.group(1)] += 1
            for marker in ("deadlock detected", "Traceback", "WorkerLostError", "ERROR/", "could not renew",
                           "database unavailable while recording", "raised unexpected: OperationalError"):
                if marker in line:
                    self.logs.errors[marker] += 1

    def _sample_ladder(self, conn) -> None:
        # KOZYR_LADDER_QUEUE_DEPTH counts duplicate sets with a match queued or running (docs/matches.md)
        rows = conn.execute("SELECT preset, count(DISTINCT duplicate_set) FROM matches_match WHERE kind = 'ladder' "
                            "AND status IN ('queued', 'running') GROUP BY preset").fetchall()
        counts = dict(rows)
        self.ladder_history.append((time.time(), counts))
        for preset, count in counts.items():
            self.ladder_peak[preset] = max(self.ladder_peak.get(preset, 0), count)
            bound = self.ladder_bound(preset)
            if count > bound:
                first = self.ladder_first_over.setdefault(preset, time.time() - self.run_started)
                detail = (f"{self.ladder_peak[preset]} ladder duplicate sets of {preset} queued or running at the "
                          f"most (depth {self.args.depth}); first over {first:.0f} s into the run")
                self.findings.add("ladder", preset, detail)
                self.findings.update("ladder", preset, detail)

    def ladder_bound(self, preset: str) -> int:
        return self.args.depth  # exact: fills recount under a per-preset lock

    def _sample_redis(self) -> None:
        info = self.redis.info("memory")
        self.figures.peak("redis server used_memory max MB", info["used_memory"] / 2**20)
        total, keys = 0, 0
        lengths: collections.Counter = collections.Counter({queue: 0 for queue in (*QUEUE_ORDER, "ae.undeliver")})
        for key in self.redis.scan_iter(count=500):
            keys += 1
            total += self.redis.memory_usage(key) or 0
            if self.redis.type(key) == b"list":  # a queue (kombu names its priority levels queue\x06\x16N)
                lengths[key.decode(errors="replace").split("\x06\x16")[0]] += self.redis.llen(key)
        self.figures.peak("redis soak db MB max", total / 2**20)
        self.figures.peak("redis soak db keys max", keys)
        for queue, length in lengths.items():
            self.figures.peak(f"queue {queue} length max", length)
        if self.relay is not self.redis:  # the live relay's own database counts against the same bound
            relay = [self.relay.memory_usage(key) or 0 for key in self.relay.scan_iter(count=500)]
            self.figures.peak("redis relay db MB max", sum(relay) / 2**20)
            self.figures.peak("redis relay db keys max", len(relay))
            total, keys = total + sum(relay), keys + len(relay)
        if total > self.args.redis_max_mb * 2**20:
            self.findings.add("redis", f"{int(total / 2**20)}",
                              f"the soak's Redis databases hold {total / 2**20:.1f} MB in {keys} keys "
                              f"(bound {self.args.redis_max_mb} MB)")

    def _evaluate_recoveries(self) -> None:
        with self.recovery_lock:
            pending = [r for r in self.recoveries if r.injection.survived is None]
        for recovery in pending:
            try:
                verdict = recovery.done()
            except psycopg.Error as err:
                verdict = None
                say(f"recovery check of {recovery.injection.fault}: {err}")
            now = time.time()
            if verdict is True or isinstance(verdict, float):
                recovery.injection.recovery = verdict if isinstance(verdict, float) else now - recovery.since
                recovery.injection.survived = True
                say(f"{recovery.injection.fault} at {recovery.injection.at:.0f}s recovered in "
                    f"{recovery.injection.recovery:.1f} s")
            elif isinstance(verdict, str):
                recovery.injection.survived = False
                recovery.injection.detail += f"; NOT SURVIVED: {verdict}"
                say(f"{recovery.injection.fault} at {recovery.injection.at:.0f}s not survived: {verdict}")
            elif now > recovery.deadline:
                recovery.injection.survived = False
                bound = recovery.deadline - recovery.since
                recovery.injection.detail += f"; NOT SURVIVED: no recovery within {bound:.0f} s"
                say(f"{recovery.injection.fault} at {recovery.injection.at:.0f}s: no recovery in time")

    # -- the checker: every invariant by SQL in one snapshot ---------------------------------------------------
    def checker(self) -> None:
        conn = psycopg.connect(self.db_url, autocommit=True)
        while True:
            try:
                self.check(conn)
            except Exception as err:
                self.thread_errors.append(f"checker: {type(err).__name__}: {err}")
                say(f"checker error: {type(err).__name__}: {err}")
                with contextlib.suppress(Exception):
                    conn.close()
                conn = psycopg.connect(self.db_url, autocommit=True)
            if self.stop_monitor.wait(self.args.check_every):
                break
        conn.close()

    def check(self, conn) -> None:
        """Every invariant in one snapshot of the database (a finish is one transaction, so counts agree)."""
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            self.violations(conn)

    def violations(self, conn) -> None:
        """The checks themselves, on a psycopg connection already in the snapshot to read."""
        args, found = self.args, self.findings.add
        for match_id, n in conn.execute("SELECT match_id, count(*) FROM soak_match_event WHERE new_status = "
                                        "'finished' GROUP BY match_id HAVING count(*) > 1"):
            found("finished-once", f"twice:{match_id}", f"match {match_id} finished {n} times")
        for match_id, event, old, new, at in conn.execute(
                "SELECT match_id, event, old_status, new_status, at FROM soak_match_event "
                "WHERE event = 'rewrite' OR old_status IN ('finished', 'failed', 'cancelled', 'aborted')"):
            found("finished-once", f"changed:{match_id}:{at}", f"match {match_id} was {old} and changed "
                  f"({event} to {new}) at {at:%H:%M:%S}")
        for match_id, seat, n in conn.execute("SELECT match_id, seat, count(*) FROM soak_seat_write "
                                              "GROUP BY match_id, seat HAVING count(*) > 1"):
            found("finished-once", f"seat:{match_id}:{seat}", f"seat {seat} of match {match_id} written {n} times")
        self._check_ratings(conn)
        for kind, pk, games, done in conn.execute(
                "SELECT 'pairing', p.id, p.games, (SELECT count(*) FROM matches_match m WHERE m.kind = "
                "'tournament' AND m.status = 'finished' AND m.duplicate_set IN (SELECT duplicate_set FROM "
                "tournaments_pairingset s WHERE s.pairing_id = p.id)) FROM tournaments_pairing p "
                "WHERE p.second_id IS NOT NULL "
                "UNION ALL SELECT 'table', t.id, t.games, (SELECT count(*) FROM matches_match m WHERE m.kind = "
                "'tournament' AND m.status = 'finished' AND m.duplicate_set IN (SELECT duplicate_set FROM "
                "tournaments_tableset s WHERE s.table_id = t.id)) FROM tournaments_table t WHERE NOT t.bye"):
            if games != done:
                found("tournaments-once", f"{kind}:{pk}:{games}:{done}",
                      f"tournament {kind} {pk} counts {games} matches, {done} of its matches are finished")
        for pk, status, match_id, match_status in conn.execute(
                "SELECT v.id, v.status, m.id, m.status FROM bots_botversion v JOIN matches_match m "
                "ON m.validates_id = v.id WHERE (v.status = 'pending' AND m.status IN ('finished', "
                "'failed', 'cancelled')) OR (v.status = 'ready' AND m.status <> 'finished')"):
            found("validation", f"{pk}:{status}:{match_status}",
                  f"version {pk} is {status} while its validation match {match_id} is {match_status}")
        for pk, owner, overdue in conn.execute(
                "SELECT id, lease_owner, extract(epoch FROM now() - lease_expires) FROM matches_match "
                "WHERE status = 'running' AND lease_expires < now() - make_interval(secs => %s)",
                [args.lease_slack]):
            found("lease", f"{pk}:{owner}", f"match {pk} running under {owner} with a lease expired "
                  f"{float(overdue):.0f} s ago (slack {args.lease_slack:.0f} s)")
        oldest = conn.execute(
            "SELECT m.id, m.kind, extract(epoch FROM now() - q.since) FROM matches_match m CROSS JOIN LATERAL ("
            "SELECT max(e.at) AS since FROM soak_match_event e WHERE e.match_id = m.id AND (e.new_status = "
            "'queued' AND e.event IN ('insert', 'status') OR e.event = 'release')) q WHERE m.status = 'queued' "
            "AND m.published_at IS NOT NULL AND m.kind <> 'ladder' ORDER BY q.since LIMIT 20").fetchall()
        for pk, kind, age in oldest:
            age = float(age or 0)
            self.figures.peak("queued longest s", age)
            if age > args.queued_bound:
                found("queued", str(pk),
                      f"{kind} match {pk} queued for {age:.0f} s (bound {args.queued_bound:.0f} s)")
        overdue = conn.execute("SELECT coalesce(max(extract(epoch FROM now() - lease_expires)), 0) FROM "
                               "matches_match WHERE status = 'running'").fetchone()[0]
        self.figures.peak("lease overdue max s", float(overdue))
        for pk, status, age in conn.execute(
                "SELECT v.id, v.status, extract(epoch FROM coalesce(v.validated_at, now()) - v.created) FROM "
                "bots_botversion v WHERE v.runtime <> 'builtin' AND v.id > %s ORDER BY v.id",
                [max(self.versions_seen, default=0) - 200]):
            if status != "pending" and pk not in self.versions_seen:
                self.versions_seen[pk] = float(age)
                self.figures.peak("upload to validated max s", float(age))
        self.recent_matches = [row[0] for row in conn.execute(
            "SELECT id FROM matches_match WHERE status = 'finished' ORDER BY id DESC LIMIT 40")]
        self._check_edge(conn)

    def fault_windows(self) -> list[tuple[str, float, float]]:
        """(fault, start, end) of every fault injected: from its start to --edge-slack seconds after it was over
        (a seat hurt by it is ruled on within its clock and the remote grace)."""
        now = time.time()
        return [(i.fault, i.started, (i.ended or now) + self.args.edge_slack) for i in self.injections if i.started]

    def _check_edge(self, conn) -> None:
        """No remote or person seat scored anything but ok in a match that a fault's window overlapped; every
        casual match ends finished or aborted (at the last check, none may still wait or play)."""
        windows = self.fault_windows()
        for pk, kind, seat, name, verdict, code, detail, began, ended in conn.execute(edge.FORFEITS_SQL):
            faults = edge.overlapping(windows, None if began is None else float(began), float(ended))
            text = (f"{kind} match {pk}: seat {seat} ({name}) scored {verdict}{'/' + code if code else ''}"
                    f"{' during ' + ', '.join(sorted(set(faults))) if faults else ''}: {detail}")
            if faults:
                self.findings.add("edge-seats", f"{pk}:{seat}", text)
            else:
                self.edge_forfeits.setdefault(f"{pk}:{seat}", text)
        unfinished = ("'failed', 'cancelled', 'queued', 'running'" if self.final else "'failed', 'cancelled'")
        for pk, status, failure in conn.execute(f"SELECT id, status, left(failure, 160) FROM matches_match "
                                                f"WHERE kind = 'casual' AND status IN ({unfinished})"):
            state = f"is still {status}" if status in ("queued", "running") else f"ended {status}"
            self.findings.add("casual", f"{pk}:{status}",
                              f"casual match {pk} {state}{': ' + failure if failure else ''}")

    def _check_ratings(self, conn) -> None:
        finished = [row[0] for row in conn.execute(
            "SELECT id FROM matches_match WHERE ranked AND status = 'finished'")]
        new = [pk for pk in finished if pk not in self.processed_ranked]
        if new:
            rows = conn.execute(
                "SELECT m.id, m.preset, m.result -> 'teams', array_agg(s.version_id ORDER BY s.seat) FROM "
                "matches_match m JOIN matches_seat s ON s.match_id = m.id WHERE m.id = ANY(%s) GROUP BY m.id", [new])
            for pk, preset, teams, seats in rows:
                if isinstance(teams, str):  # a connection whose jsonb loader leaves the text (Django's)
                    teams = json.loads(teams)
                teams = teams or [[i] for i in range(len(seats))]
                sides: dict[int, set[int]] = collections.defaultdict(set)
                for side, team in enumerate(teams):
                    for seat in team:
                        sides[seats[seat]].add(side)
                for version, on in sides.items():
                    if len(on) == 1:  # a version that met itself is not rated by that match
                        self.expected_games[(version, preset)] += 1
                self.processed_ranked.add(pk)
        # A person's rating gains a game per finished casual match (ratings.people): counted once, as a bot's.
        casual = [row[0] for row in conn.execute(
            "SELECT id FROM matches_match WHERE kind = 'casual' AND status = 'finished'")]
        new = [pk for pk in casual if pk not in self.processed_casual]
        if new:
            for pk, counted in edge.casual_rated(conn.execute(edge.CASUAL_SEATS_SQL, [new]).fetchall()).items():
                for key in counted:
                    self.expected_games[key] += 1
                self.processed_casual.add(pk)
        ratings = conn.execute("SELECT version_id, preset, games, wins + draws + losses FROM ratings_rating").fetchall()
        have = set()
        for version, preset, games, wdl in ratings:
            have.add((version, preset))
            expected = self.expected_games.get((version, preset), 0)
            if games != expected or wdl != games:
                self.findings.add("ratings-once", f"{version}:{preset}:{games}:{expected}:{wdl}",
                                  f"version {version} on {preset}: {games} games counted (W+D+L {wdl}), "
                                  f"{expected} finished ranked matches")
        for (version, preset), expected in self.expected_games.items():
            if (version, preset) not in have:
                self.findings.add("ratings-once", f"{version}:{preset}:missing",
                                  f"version {version} on {preset}: {expected} finished ranked matches, no rating")

    # -- faults -------------------------------------------------------------------------------------------------
    def schedule(self) -> list[tuple[float, str]]:
        """(seconds into the run, fault): every kind once early (flushdb first: its recovery waits out the
        platform's two-minute republish), then the cycle again every --fault-gap seconds while there is room."""
        run = self.args.minutes * 60
        gap = self.args.fault_gap
        # the edge's faults once a remote bot is likely validated and on the ladder; the longest not last
        order = ["flushdb", "worker-kill", "db-cut", "relay-flush", "beat-kill", "web-db-outage", "two-beats"]
        plan, t, k = [], 8.0, 0
        while t <= run - 10:
            fault = order[k % len(order)]
            room = {"flushdb": REPUBLISH_AFTER_S + 2 * RECOVER_EVERY,
                    "web-db-outage": self.args.web_db_outage_seconds + 30}.get(fault, 30.0)
            if k < len(order) or t + room <= run:
                plan.append((t, fault))
            k += 1
            t += gap
        return plan

    def inject(self, fault: str) -> None:
        injection = Injection(fault, time.time() - self.run_started, started=time.time())
        self.injections.append(injection)
        try:
            getattr(self, "fault_" + fault.replace("-", "_"))(injection)
        except Exception as err:  # say so in its row, not as a recovery that never came
            injection.survived = False
            injection.detail += f"; NOT INJECTED: {type(err).__name__}: {err}"
            raise
        finally:
            injection.ended = time.time()

    def _recover(self, injection: Injection, since: float, done, bound: float | None = None) -> None:
        with self.recovery_lock:
            self.recoveries.append(Recovery(injection, since, since + (bound or self.args.recovery_bound), done))

    def _events_since(self, ids: list[int], since: float, event_filter: str) -> dict[int, float]:
        with self.db() as conn:
            rows = conn.execute(f"SELECT match_id, min(extract(epoch FROM at)) FROM soak_match_event WHERE match_id = "
                                f"ANY(%s) AND at > to_timestamp(%s) AND {event_filter} GROUP BY match_id",
                                [ids, since]).fetchall()
        return {pk: float(at) for pk, at in rows}

    def fault_worker_kill(self, injection: Injection) -> None:
        kills = sum(1 for i in self.injections if i.fault == "worker-kill")
        target = self.site.workers[(kills - 1) % len(self.site.workers)]
        playing: list[int] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not playing:
            pids = {p.pid for p in target.pool()}
            with self.db() as conn:
                rows = conn.execute("SELECT id, lease_owner FROM matches_match WHERE status = 'running'").fetchall()
            playing = [pk for pk, owner in rows if owner.count(":") >= 2 and owner.split(":")[1].isdigit()
                       and int(owner.split(":")[1]) in pids]
            if not playing:
                time.sleep(0.3)
        processes = target.descendants()
        killed_at = time.time()
        target.kill()
        injection.detail = (f"{target.name} killed while playing {len(playing)} match(es) "
                            f"{playing[:4]}, {len(processes)} processes under it")
        say(f"fault worker-kill: {injection.detail}")

        # Its bots must die with it (bwrap's --die-with-parent), before the restarted worker's sweep could hide
        # a survivor: look for 15 s, then start it again.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not all(gone(p) for p in processes):
            time.sleep(0.2)
        for proc in processes:
            if not gone(proc):
                self._left_behind(proc, f"{target.name} (SIGKILLed)")
                injection.detail += "; a process outlived it"
        time.sleep(max(0.0, killed_at + 2 - time.time()))
        target.start()

        def done():
            if not playing:
                return True if target.alive() and "ready." in target.output() else None
            with self.db() as conn:
                rows = {pk: (kind, status) for pk, kind, status in conn.execute(
                    "SELECT id, kind, status FROM matches_match WHERE id = ANY(%s)", [playing])}
            if any(status not in TERMINAL for _, status in rows.values()):
                return None
            # a casual match is aborted, not played again: a person's moves cannot be replayed
            failed = [pk for pk, (kind, status) in rows.items()
                      if status != "finished" and not (kind == "casual" and status == "aborted")]
            return f"match(es) {failed} ended {[rows[pk][1] for pk in failed]}" if failed else True

        self._recover(injection, killed_at, done)

    def fault_flushdb(self, injection: Injection) -> None:
        deadline = time.monotonic() + 15  # a moment when messages wait in the queues (early on: the uploads')
        while True:
            with self.db() as conn:
                lost = [row[0] for row in conn.execute(
                    "SELECT id FROM matches_match WHERE status = 'queued' AND published_at IS NOT NULL")]
            if len(lost) >= 10 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        flushed_at = time.time()
        self.redis.flushdb()
        injection.detail = f"{len(lost)} queued match(es) lost their message"
        say(f"fault flushdb: {injection.detail}")

        def done():
            if not lost:
                return True
            claimed = self._events_since(lost, flushed_at, "new_status = 'running'")
            republished = self._events_since(lost, flushed_at, "event = 'republish'")
            with self.db() as conn:
                ended = {row[0] for row in conn.execute(
                    "SELECT id FROM matches_match WHERE id = ANY(%s) AND status <> 'queued'", [lost])}
            if any(pk not in claimed and pk not in republished and pk not in ended for pk in lost):
                return None
            if republished and not any(claimed.get(pk, 0) >= at for pk, at in republished.items()):
                return None  # published again, but none of those messages has reached a worker yet
            injection.detail += f" ({len(republished)} published again, {len(claimed)} claimed since)"
            return True

        self._recover(injection, flushed_at, done, bound=max(self.args.recovery_bound, REPUBLISH_AFTER_S + 120))

    def fault_db_cut(self, injection: Injection) -> None:
        with self.db() as conn:
            running = [row[0] for row in conn.execute("SELECT id FROM matches_match WHERE status = 'running'")]
            injection.extra["queued"] = [row[0] for row in conn.execute(
                "SELECT id FROM matches_match WHERE status = 'queued' AND published_at IS NOT NULL")]
        self.proxy.cut()
        time.sleep(self.args.db_cut_seconds)
        self.proxy.restore()
        restored = time.time()
        injection.extra["restored"] = restored
        injection.detail = f"{self.args.db_cut_seconds:.0f} s cut with {len(running)} match(es) running"
        say(f"fault db-cut: {injection.detail}")

        def done():
            with self.db() as conn:
                again = conn.execute("SELECT count(*) FROM soak_match_event WHERE new_status = 'finished' "
                                     "AND at > to_timestamp(%s)", [restored]).fetchone()[0]
            return True if again else None

        self._recover(injection, restored, done)

    def fault_beat_kill(self, injection: Injection) -> None:
        beat = self.site.beat
        killed = time.time()
        beat.kill()
        down = [killed, None]
        self.beat_down.append(down)
        time.sleep(self.args.beat_down_seconds)
        beat.start()
        restarted = time.time()
        down[1] = restarted
        injection.detail = f"beat down {restarted - killed:.0f} s"
        say(f"fault beat-kill: {injection.detail}")

        def done():
            with self.log_lock:
                ran = all(any(t > restarted for t in self.logs.succeeded.get(job, [])) for job in BEAT_JOBS)
            return True if ran else None

        self._recover(injection, restarted, done)

    def fault_two_beats(self, injection: Injection) -> None:
        self.site.beat2 = self.site.beat2 or self.site._beat("beat2")
        second = self.site.beat2
        before = self.ladder_history[-1][1] if self.ladder_history else {}
        # What the ladder may stand at: its depth (and one set), or what it already stood at (over-filled before).
        allowed = {preset: max(self.ladder_bound(preset), before.get(preset, 0)) for preset in self.set_sizes}
        started = time.time()
        second.start()
        time.sleep(self.args.two_beats_seconds)
        second.stop(grace=20)
        stopped = time.time()
        injection.detail = f"a second beat for {stopped - started:.0f} s"
        say(f"fault two-beats: {injection.detail}")

        def done():
            peaks = collections.Counter()
            for t, counts in list(self.ladder_history):
                if t >= started:
                    for preset, n in counts.items():
                        peaks[preset] = max(peaks[preset], n)
            over = {p: n for p, n in peaks.items() if n > allowed.get(p, self.ladder_bound(p))}
            if over:
                return "the ladder rose to " + ", ".join(f"{n} {p} (allowed {allowed[p]})" for p, n in over.items())
            # Fill tasks the second beat sent may still be in the queue: watch a little longer.
            return 0.0 if time.time() > stopped + 10 else None

        self._recover(injection, stopped, done)

    def _wait_for_edge_in_play(self) -> None:
        """Up to --edge-wait seconds for a moment when a remote bot's match and a person's are both being played
        (a fault of the edge should hit both; the remote bots' ladder matches come in bursts)."""
        deadline = time.monotonic() + self.args.edge_wait
        while time.monotonic() < deadline:
            with self.db() as conn:
                kinds = {person for _, person in conn.execute(edge.IN_PLAY_SQL)}
            if kinds == {True, False} or (kinds and not self.remote_bots):
                return
            time.sleep(0.3)

    def _edge_played_between(self, start: float, end: float) -> dict[int, bool]:
        """{match id: whether a person sits there} of the remote and person matches played at some moment from
        ``start`` to ``end``: the ones a fault then may have hurt."""
        with self.db() as conn:
            return dict(conn.execute(edge.PLAYED_BETWEEN_SQL, {"start": start, "end": end}).fetchall())

    def _edge_ended_well(self, hit: dict[int, bool], since: float) -> bool | str | None:
        """Every hit match ended well for its remote and person seats, and a match with such a seat finished
        since ``since`` (the edge plays on)."""
        with self.db() as conn:
            outcome = edge.edge_outcome(conn.execute(edge.EDGE_SEATS_OF_SQL, [list(hit)]).fetchall()) if hit else True
            if outcome is not True:
                return outcome
            return True if conn.execute(edge.FINISHED_SINCE_SQL, [since]).fetchone()[0] else None

    @staticmethod
    def _hit_words(hit: dict[int, bool]) -> str:
        people = sorted(pk for pk, person in hit.items() if person)
        remote = sorted(pk for pk, person in hit.items() if not person)
        return (f"played meanwhile: {len(remote)} remote bot match(es) {remote[:4]}, {len(people)} person "
                f"match(es) {people[:4]}")

    def fault_relay_flush(self, injection: Injection) -> None:
        self._wait_for_edge_in_play()
        flushed_at = time.time()
        what = edge.flush_relay(self.relay_url, self.args.redis)
        hit = self._edge_played_between(flushed_at, flushed_at)
        injection.detail = f"{what}; {self._hit_words(hit)}"
        say(f"fault relay-flush: {injection.detail}")
        self._recover(injection, flushed_at, lambda: self._edge_ended_well(hit, flushed_at))

    def fault_web_db_outage(self, injection: Injection) -> None:
        self._wait_for_edge_in_play()
        away: list[float | None] = [time.time(), None]
        self.web_db_away.append(away)
        self.site.web_db.cut()
        time.sleep(self.args.web_db_outage_seconds)
        self.site.web_db.restore()
        restored = away[1] = time.time()
        hit = self._edge_played_between(away[0], restored)
        injection.detail = f"the web without PostgreSQL for {restored - away[0]:.0f} s; {self._hit_words(hit)}"
        say(f"fault web-db-outage: {injection.detail}")

        def done():
            if edge.healthz(self.site.port) != 200:
                return None
            with self.db() as conn:
                connected = conn.execute(edge.CONNECTED_SINCE_SQL, [restored]).fetchone()[0]
            if connected < len(self.remote_bots):  # each connection's heartbeat is recorded again
                return None
            return self._edge_ended_well(hit, restored)

        self._recover(injection, restored, done)

    def faults(self) -> None:
        for number, (at, fault) in enumerate(self.schedule()):
            delay = self.run_started + at - time.time()
            if self.stop_load.wait(max(0.0, delay)):
                return
            try:
                self.inject(fault)
            except Exception as err:
                self.thread_errors.append(f"fault {fault}: {type(err).__name__}: {err}")
                say(f"fault {fault} could not be injected: {type(err).__name__}: {err}")
            if number == 0:
                # The remote bots connect once the first flushdb is over: their validation and first ladder
                # matches are then not among the messages it loses, which wait two minutes to be published again.
                try:
                    self.start_remote_bots()
                except Exception as err:
                    self.thread_errors.append(f"remote bots: {type(err).__name__}: {err}")
                    say(f"the remote bots could not be started: {type(err).__name__}: {err}")

    # -- the run ------------------------------------------------------------------------------------------------
    def run(self) -> int:
        try:
            self.prepare()
            self._soak()
        except BaseException:
            say("the soak stopped early; killing the site")
            self.stop_load.set()
            self.stop_monitor.set()
            for service in self.site.services() if hasattr(self, "site") else []:
                service.intended_down = True
                if service.alive():
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(service.proc.pid, signal.SIGKILL)
            for person in self.people:
                person.gone.set()
            for bot in self.remote_bots:
                bot.stop(grace=0)
            if hasattr(self, "site"):
                self.site.web_db.cut()
            self.cleanup(keep_folder=True)
            raise
        code = self.report()
        self.cleanup(keep_folder=code != 0 or self.args.keep)
        return code

    def _soak(self) -> None:
        t0 = time.monotonic()
        self.site.start(meanwhile=self.populate)
        say(f"site up in {time.monotonic() - t0:.1f} s on port {self.site.port}: web, "
            f"{', '.join(w.name for w in self.site.all_workers())}, beat; queue order {','.join(QUEUE_ORDER)}")
        self.web = Web(self.site.port, self.findings, self.figures, self.outage_5xx)
        self.run_started = time.time()  # the run starts with the uploads: seeding is part of the load
        for target in (self.monitor, self.checker):
            threading.Thread(target=target, daemon=True).start()
        say(f"run: {self.args.minutes} min; faults at {[(round(t), f) for t, f in self.schedule()]}")
        threads = [threading.Thread(target=self.reader, args=(i,), daemon=True) for i in range(self.args.readers)]
        threads += [threading.Thread(target=self.seed_then_upload, daemon=True),
                    threading.Thread(target=self.tournaments_all_along, daemon=True)]
        people = [threading.Thread(target=self.person, args=(i,), daemon=True) for i in range(self.args.people)]
        threads += people
        injector = threading.Thread(target=self.faults, daemon=True)
        for thread in [*threads, injector]:
            thread.start()
        end = self.run_started + self.args.minutes * 60
        while time.time() < end:
            time.sleep(1)
        self.run_ended = time.time()
        injector.join(timeout=120)
        self._drain()
        self.stop_load.set()  # people finish the match at hand (it is counted: it must end well too)
        for thread in threads:
            thread.join(timeout=70)
        deadline = time.time() + 150  # a person's match: a few minutes at the very most
        for thread in people:
            thread.join(timeout=max(0.0, deadline - time.time()))
        if any(thread.is_alive() for thread in people):
            say("a person is still at a table when the site stops (the last check will say which match)")
        for person in self.people:
            person.gone.set()
        say("stopping the site")
        self.site.stop()
        for bot in self.remote_bots:  # after the workers: their last matches' remote seats were still served
            bot.stop()
        self.stop_monitor.set()
        self.final = True
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            self.check(conn)  # once more, after the site stopped: nothing may still wait or play
        self._final_process_scan()
        self._read_logs()

    def seed_then_upload(self) -> None:
        self.seed()
        self._wait_for_validations()
        self.uploads_all_along()

    def _wait_for_validations(self) -> None:
        """Until 90% of the first uploads are validated (at most --seed-wait); then say how they ended."""
        deadline = time.monotonic() + self.args.seed_wait
        while time.monotonic() < deadline:
            with self.db() as conn:
                pending, total = conn.execute("SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FROM "
                                              "bots_botversion WHERE runtime <> 'builtin'").fetchone()
            if total and pending <= total * 0.1:
                break
            time.sleep(1)
        with self.db() as conn:
            states = dict(conn.execute("SELECT status, count(*) FROM bots_botversion WHERE runtime <> 'builtin' "
                                       "GROUP BY status").fetchall())
        say(f"validations: {states}")

    def _drain(self) -> None:
        """After the run: wait for the open recoveries, each until its own deadline, at most --drain-seconds."""
        limit = time.time() + self.args.drain_seconds
        while time.time() < limit:
            with self.recovery_lock:
                open_ = [r for r in self.recoveries if r.injection.survived is None]
            if not open_ or time.time() > max(r.deadline for r in open_) + 2:
                break
            time.sleep(1)
        with self.recovery_lock:
            for recovery in self.recoveries:
                if recovery.injection.survived is None:
                    recovery.injection.survived = False
                    recovery.injection.detail += "; NOT SURVIVED: still recovering when the soak ended"

    def _final_process_scan(self) -> None:
        """Every worker is stopped: nothing it started may still run, and nothing may be in the soak's cgroups."""
        time.sleep(2)
        with self.tracked_lock:
            for proc, name, _ in self.tracked.values():
                if not gone(proc):
                    self._left_behind(proc, f"{name} (stopped at the end)")
        for proc in self.sandboxed():
            self._left_behind(proc, "a sandbox cgroup of the soak")

    def sandboxed(self) -> list[psutil.Process]:
        """Live processes in the soak's sandbox cgroups (kozyr-sandbox/<a worker's state id>-...)."""
        pattern = re.compile(r"/kozyr-sandbox/(" + "|".join(sorted(self.site.state_ids)) + r")-")
        found = []
        for proc_dir in Path("/proc").iterdir():
            if not proc_dir.name.isdigit():
                continue
            with contextlib.suppress(OSError, psutil.Error):
                if pattern.search((proc_dir / "cgroup").read_text()):
                    proc = psutil.Process(int(proc_dir.name))
                    if not gone(proc):
                        found.append(proc)
        return found

    # -- the report ---------------------------------------------------------------------------------------------
    def report(self) -> int:
        with self.db() as conn:
            finished = conn.execute(
                "SELECT count(*) FROM soak_match_event WHERE new_status = 'finished' AND at BETWEEN to_timestamp(%s) "
                "AND to_timestamp(%s)", [self.run_started, self.run_ended or time.time()]).fetchone()[0]
            kinds = dict(conn.execute("SELECT kind || ' ' || status, count(*) FROM matches_match GROUP BY 1"))
            verdicts = dict(conn.execute("SELECT s.verdict, count(*) FROM matches_seat s JOIN matches_match m ON "
                                         "m.id = s.match_id WHERE m.status = 'finished' GROUP BY 1"))
            deadlocks = conn.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = %s",
                                     [self.db_name]).fetchone()[0]
            suspended = conn.execute("SELECT count(*) FROM bots_bot WHERE suspended_by = 'ladder'").fetchone()[0]
            attempts = dict(conn.execute("SELECT attempts, count(*) FROM matches_match WHERE status = 'finished' "
                                         "GROUP BY 1"))
            bots = conn.execute("SELECT count(*) FROM bots_bot WHERE name LIKE 'soak-%%'").fetchone()[0]
            edge_matches = conn.execute(edge.EDGE_MATCHES_SQL).fetchall()
            edge_seats = conn.execute(edge.EDGE_SEATS_SQL).fetchall()
            aborted = collections.Counter(edge.aborted_reason(row[0] or "") for row in conn.execute(
                "SELECT failure FROM matches_match WHERE kind = 'casual' AND status = 'aborted'"))
            remote_versions = dict(conn.execute(
                "SELECT b.name, v.status FROM bots_bot b JOIN bots_botversion v ON v.bot_id = b.id "
                "WHERE v.runtime = 'remote'").fetchall())
        minutes = max(1e-9, ((self.run_ended or time.time()) - self.run_started) / 60)
        figures = dict(self.figures.values)
        figures.update({
            "run minutes": round(minutes, 2), "matches finished in the run": finished,
            "matches finished per minute": round(finished / minutes, 1), "uploaded bots": bots,
            "bots suspended by the ladder": suspended, "postgres deadlocks": deadlocks,
            "max gap between recover_matches runs s (beat down excluded)": round(self._beat_gap(), 1),
        })
        for name, count in sorted(self.logs.discarded.items()):
            figures[f"discarded (expired) {name}"] = count
        for marker, count in sorted(self.logs.errors.items()):
            figures[f"worker log '{marker}'"] = count
        for preset, peak in sorted(self.ladder_peak.items()):
            figures[f"ladder {preset} queued+running max"] = peak
        by = collections.Counter()  # (remote or person, kind, status) -> matches
        for who, kind, status, count in edge_matches:
            by[(who, kind, status)] += count
        figures.update({
            "remote matches finished": sum(n for (w, _, st), n in by.items() if w == "remote" and st == "finished"),
            "remote matches by kind and status": {f"{k} {st}": n for (w, k, st), n in sorted(by.items())
                                                  if w == "remote"},
            "casual matches finished": sum(n for (_, k, st), n in by.items() if k == "casual" and st == "finished"),
            "casual matches aborted": sum(n for (_, k, st), n in by.items() if k == "casual" and st == "aborted"),
            "casual matches aborted, why": dict(aborted),
            "remote seats by verdict (finished matches)": {v: n for e, v, n in edge_seats if e == "remote"},
            "person seats by verdict (finished matches)": {v: n for e, v, n in edge_seats if e == "person"},
            "remote or person seats not ok outside every fault's window": len(self.edge_forfeits),
            "remote versions": remote_versions,
            "arena connect reconnections": sum(b.disconnects() for b in self.remote_bots),
            "person answers sent": sum(p.answers for p in self.people),
            "person answers refused, by code": {code: sum(p.refused.get(code, 0) for p in self.people)
                                                for code in sorted({c for p in self.people for c in p.refused})},
            "faults injected": dict(collections.Counter(i.fault for i in self.injections)),
        })
        figures["matches by kind and status"] = kinds
        figures["finished seats by verdict"] = verdicts
        figures["finished matches by attempts"] = attempts
        for service in self.site.services():
            figures[f"{service.name} starts"] = service.starts

        for injection in self.injections:
            if injection.fault == "db-cut" and injection.extra.get("queued"):
                queued, restored = injection.extra["queued"], injection.extra["restored"]
                claimed = self._events_since(queued, restored - self.args.db_cut_seconds - 1, "new_status = 'running'")
                waits = [at - restored for at in claimed.values()]
                worst = max(waits, default=0.0)
                injection.detail += (f"; of {len(queued)} queued at the cut, {len(claimed)} claimed since, the last "
                                     f"{worst:.0f} s after the database came back")
                key = "db-cut: matches queued at the cut claimed again after (worst) s"
                figures[key] = max(figures.get(key, 0.0), round(worst, 1))
        faults = {}
        for fault in FAULTS:
            done = [i for i in self.injections if i.fault == fault]
            times = [i.recovery for i in done if i.recovery is not None]
            faults[fault] = {"injected": len(done), "survived": bool(done) and all(i.survived for i in done),
                             "worst_recovery_s": round(max(times), 1) if times else None,
                             "injections": [{"at_s": round(i.at, 1), "recovery_s": None if i.recovery is None else
                                             round(i.recovery, 1), "survived": i.survived, "detail": i.detail}
                                            for i in done]}
        invariants = {name: {"title": title, "ok": not self.findings.seen[name], "violations":
                             len(self.findings.seen[name]), "examples": list(self.findings.seen[name].values())[:8]}
                      for name, title in INVARIANTS.items()}
        failed = self.findings.failed()
        code = 1 if failed or any(f["injected"] and not f["survived"] for f in faults.values()) else 0

        out = sys.stdout
        print(f"\nsoak: {minutes:.1f} min on {self.args.workers} workers x {self.args.concurrency}"
              f"{' + a maintenance worker' if self.args.maintenance_worker else ''}, ladder depth {self.args.depth}, "
              f"lease {self.args.lease_seconds} s, queue order {','.join(QUEUE_ORDER)}", file=out)
        print(f"\n{'fault':13} {'injected':>8} {'survived':>9} {'worst recovery s':>17}  detail", file=out)
        for fault, row in faults.items():
            worst = "-" if row["worst_recovery_s"] is None else f"{row['worst_recovery_s']:.1f}"
            survived = "-" if not row["injected"] else ("yes" if row["survived"] else "NO")
            detail = row["injections"][-1]["detail"] if row["injections"] else ""
            print(f"{fault:13} {row['injected']:8d} {survived:>9} {worst:>17}  {detail[:110]}", file=out)
            for inj in row["injections"]:
                if inj["survived"] is False:
                    print(f"{'':13} at {inj['at_s']:.0f}s: {inj['detail'][:160]}", file=out)
        print(f"\n{'invariant':42} {'result':>6}  violations", file=out)
        for row in invariants.values():
            print(f"{row['title']:42} {'ok' if row['ok'] else 'FAILED':>6}  {row['violations'] or ''}", file=out)
            for example in row["examples"][:4]:
                print(f"{'':44}- {example[:150]}", file=out)
        print("\nfigures", file=out)
        for name, value in figures.items():
            shown = f"{value:.1f}" if isinstance(value, float) else value
            print(f"  {name}: {shown}", file=out)
        for text in list(self.edge_forfeits.values())[:6]:
            print(f"  not ok outside the faults' windows: {text[:200]}", file=out)
        if self.thread_errors:
            print(f"\nharness errors: {self.thread_errors[:5]}", file=out)
        print(f"\nsoak {'PASSED' if code == 0 else 'FAILED'}" + (f" (logs in {self.root}/logs)" if code else ""),
              file=out)
        if self.args.json:
            Path(self.args.json).write_text(json.dumps({"faults": faults, "invariants": invariants, "figures": figures,
                                                        "exit": code, "logs": str(self.root / "logs"),
                                                        "harness_errors": self.thread_errors,
                                                        "not_ok_outside_faults": list(self.edge_forfeits.values())},
                                                       indent=1, default=str))
        return code

    def _beat_gap(self) -> float:
        runs = sorted(t for t in self.logs.succeeded.get("play.tasks.recover_matches", [])
                      if t >= self.run_started)
        worst = 0.0
        for a, b in zip([self.run_started, *runs], [*runs, self.run_ended or time.time()], strict=True):
            overlap = sum(max(0.0, min(b, end or b) - max(a, begin)) for begin, end in self.beat_down)
            worst = max(worst, b - a - overlap)
        return worst

    def cleanup(self, keep_folder: bool) -> None:
        if hasattr(self, "proxy"):
            self.proxy.close()
        if hasattr(self, "site"):
            self.site.web_db.cut()
        for database in getattr(self, "owned", []):
            with contextlib.suppress(Exception):
                database.flushdb()
        if not self.args.keep and hasattr(self, "db_name"):
            with psycopg.connect(f"{self.args.postgres}/postgres", autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
        if hasattr(self, "root") and not keep_folder:
            shutil.rmtree(self.root, ignore_errors=True)


def gone(proc: psutil.Process) -> bool:
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30, help="length of the run under faults (default 30)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6", help="the broker's Redis database (flushed)")
    parser.add_argument("--relay-redis", default="redis://127.0.0.1:6379/7",
                        help="the live relay's Redis database (KOZYR_LIVE_REDIS_URL; flushed). The site's default is "
                             "a fixed database of the broker's server, which every soak and test there would share "
                             "(and the relay-flush fault flush); the same as --redis is allowed")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432", help="the server (no database)")
    parser.add_argument("--workers", type=int, default=2, help="match workers (default 2)")
    parser.add_argument("--concurrency", type=int, default=2, help="processes per match worker (default 2)")
    parser.add_argument("--maintenance-worker", action=argparse.BooleanOptionalAction, default=True,
                        help="a third worker on the maintenance queue alone, as deploy/entrypoint.sh starts one "
                             "(default on)")
    parser.add_argument("--maintenance-concurrency", type=int, default=2,
                        help="its processes (default 2, as deploy/entrypoint.sh)")
    parser.add_argument("--depth", type=int, default=30, help="KOZYR_LADDER_QUEUE_DEPTH (default 30)")
    parser.add_argument("--lease-seconds", type=int, default=30, help="KOZYR_LEASE_SECONDS (default 30)")
    parser.add_argument("--bots", type=int, default=54, help="uploaded bots at the start (at least 50)")
    parser.add_argument("--users", type=int, default=20, help="accounts the bots are spread over")
    parser.add_argument("--house-bots", action="store_true", help="house bots play the ladder too")
    parser.add_argument("--readers", type=int, default=3, help="threads reading pages and the API")
    parser.add_argument("--remote-bots", type=int, default=2,
                        help="remote bots on the Bura ladder, each an `arena connect` of its own (default 2)")
    parser.add_argument("--remote-max-matches", type=int, default=4,
                        help="arena connect --max-matches (default 4, its own default)")
    parser.add_argument("--remote-think", type=float, default=0.3,
                        help="seconds a remote bot holds each action back (default 0.3 of the 1 s move time: its "
                             "matches last long enough for a fault to find one in play)")
    parser.add_argument("--people", type=int, default=2,
                        help=f"people at live tables against {PEOPLE_OPPONENT}, one match after another (default 2)")
    parser.add_argument("--reader-pause", type=float, default=0.25, help="seconds between a reader's requests")
    parser.add_argument("--upload-every", type=float, default=12, help="seconds between uploads during the run")
    parser.add_argument("--seed-wait", type=float, default=90, help="at most this long for the first validations")
    parser.add_argument("--fault-gap", type=float, help="seconds between faults (20; 75 when over 4 minutes)")
    parser.add_argument("--db-cut-seconds", type=float, default=8)
    parser.add_argument("--web-db-outage-seconds", type=float, default=35,
                        help="the web tier without PostgreSQL this long (default 35)")
    parser.add_argument("--web-db-settle", type=float, default=10,
                        help="5xx this long after the web's database came back are still the outage's (default 10: "
                             "a request waiting for a connection when it came back, the log read a moment late)")
    parser.add_argument("--edge-wait", type=float,
                        help="an edge fault waits up to this long for a remote bot's and a person's match to be in "
                             "play (15; 120 over 4 minutes)")
    parser.add_argument("--edge-slack", type=float, default=90,
                        help="a fault's window reaches this long past its end for the seats' check (default 90: a "
                             "seat hurt by it is ruled on within its clock and the remote grace)")
    parser.add_argument("--beat-down-seconds", type=float, help="beat stays dead this long (15; 20 over 4 minutes)")
    parser.add_argument("--two-beats-seconds", type=float, help="two beats this long (20; 30 over 4 minutes)")
    parser.add_argument("--drain-seconds", type=float,
                        help="after the run, at most this long for open recoveries (30; the recovery bound over 4 "
                             "minutes)")
    parser.add_argument("--check-every", type=float, default=5, help="seconds between invariant checks")
    parser.add_argument("--lease-slack", type=float, default=3 * RECOVER_EVERY,
                        help="a running match whose lease expired longer ago than this is stuck (default 45)")
    parser.add_argument("--queued-bound", type=float, default=300, help="seconds a match may wait queued")
    parser.add_argument("--recovery-bound", type=float, default=240, help="seconds a fault may take to recover")
    parser.add_argument("--redis-max-mb", type=float, default=64, help="bound of the soak's Redis database")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the database and the folder")
    args = parser.parse_args(argv)
    short = args.minutes <= 4  # the form `make test` runs: every fault once, close together
    for name, quick, slow in (("fault_gap", 20, 75), ("beat_down_seconds", 15, 20), ("two_beats_seconds", 20, 30),
                              ("drain_seconds", 30, args.recovery_bound + 20), ("edge_wait", 15, 120)):
        if getattr(args, name) is None:
            setattr(args, name, quick if short else slow)
    if args.bots < 50:
        parser.error("--bots: at least 50")
    return args


def main(argv: list[str] | None = None) -> int:
    return Soak(parse_args(argv)).run()


if __name__ == "__main__":
    sys.exit(main())
