"""Remote bots, measured (issue 23): the latency a remote bot adds per decision, on loopback and behind 50 ms
of injected delay, and what 100 idle connected remote bots cost a site.

    .venv/bin/python bench/remote_latency.py [--decisions 300] [--skip-netem] [--idle 100] [--window 60]
                                             [--stack both|postgres|embedded]

Run it as root (the delayed case makes a network namespace). Each stack runs in a child process of its own (as
bench/live_latency.py does): "postgres" is PostgreSQL (a database of its own, dropped at the end) + Redis
(127.0.0.1:6379, database 9); "embedded" is the `make run` default (SQLite + the embedded Redis). The site is
gunicorn with the site's uvicorn worker class (config.web_worker.WebWorker, one web process), a real Celery
worker process (concurrency 1) plays the matches, and the remote bot is the real `arena connect` running
bench/bots/first_legal.py (the first legal action, at once). The matches are `bura` challenges,
`match=deals:10`, each a duplicate set against the house bot `greedy-bura`.

1. **Loopback.** Remote and sandboxed (the same first_legal.py uploaded, in bwrap) duplicate sets take turns
   until each has ``--decisions`` decisions. Per decision, from the live relay's own time stamps (the worker
   takes both, matches/relay.py): *request → accepted* is from the referee writing the request to the seat's
   relay list (``seat:<n>:out``, "t") to the rules accepting the answer (``actions``, "t"); a sandboxed seat has
   no relay list, so both are also timed *action to action*: from the previous accepted action (of either seat)
   to this seat's, which holds the referee's own work plus the decision. Added latency = remote − sandboxed.
2. **50 ms delay** (postgres only; ``--skip-netem`` leaves it out): `arena connect` and its bot run in a network
   namespace made here (a veth pair, 10.231.77.1 the site's side, 10.231.77.2 the namespace's) with
   ``tc qdisc add dev kzbr-n root netem delay 50ms`` on the namespace's end: the 50 ms is **one way** (bot →
   site; the site → bot direction is undelayed), so every round trip is 50 ms longer. A kernel without netem
   (`tc` says "Specified qdisc kind is unknown") gets the same from a small proxy on 10.231.77.1 in front of the
   site, which holds every chunk the namespace sends for 50 ms, in order, and passes the site's at once.
   Also: the site's measured p95 round trip and the allowance it granted (GET /api/v1/bots/<name>/remote/, and
   the allowance the replay's seat clock actually got), and whether any decision timed out.
3. **Idle connections** (postgres only; ``--idle 0`` leaves it out): ``--idle`` bots with ready remote versions
   (20 a user, the most a user may have; KOZYR_REMOTE_CONNECTIONS_PER_USER raised for the bench), each
   connected by a light websocket client in one child process that answers pings as `arena connect` does.
   Before, right after connecting and after ``--window`` seconds idle: the Celery worker's RSS, CPU seconds and
   threads (master + pool process), the web process's RSS and CPU per minute, Redis commands a second on the
   bench's database (counted with MONITOR: the server is shared), database row writes per minute
   (pg_stat_user_tables). Then duplicate sets of the loopback remote bot while the idle ones stay
   connected (100 decisions), to compare with (1).

Every process, the namespace, the database and the Redis database it made are removed at the end, on failure
too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from platform_throughput import QUEUES, REPO, wait

BOT = REPO / "bench" / "bots" / "first_legal.py"
VENV = REPO / ".venv" / "bin"
OVERRIDES = {"match": "deals:10"}
REDIS_DB = 9
NS, VETH_HOST, VETH_NS = "kzb-remote", "kzbr-h", "kzbr-n"
HOST_ADDR, NS_ADDR = "10.231.77.1", "10.231.77.2"
DELAY_MS = 50
BESIDE_IDLE_DECISIONS = 100
say = lambda text: print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)  # noqa: E731


# ---------------------------------------------------------------------------------------------- the stack

def stack_env(stack: str, var: Path, database: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_"))
           and k not in ("DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")}
    env.update({"KOZYR_VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
                "KOZYR_LADDER_QUEUE_DEPTH": "0", "KOZYR_REMOTE_CONNECTIONS_PER_USER": "1000"})
    if stack == "postgres":
        env.update({"DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}",
                    "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{REDIS_DB}"})
    return env


def admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(statement)


def sh(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(argv, check=check, capture_output=True, text=True)


def make_namespace() -> bool:
    """A namespace reaching the host over a veth pair; its end delays what it sends by DELAY_MS with netem when
    the kernel has it (True), else the bench's own delaying proxy does (False: see DelayProxy)."""
    drop_namespace()
    sh("ip", "netns", "add", NS)
    sh("ip", "link", "add", VETH_HOST, "type", "veth", "peer", "name", VETH_NS)
    sh("ip", "link", "set", VETH_NS, "netns", NS)
    sh("ip", "addr", "add", f"{HOST_ADDR}/30", "dev", VETH_HOST)
    sh("ip", "link", "set", VETH_HOST, "up")
    for command in (["ip", "addr", "add", f"{NS_ADDR}/30", "dev", VETH_NS], ["ip", "link", "set", VETH_NS, "up"],
                    ["ip", "link", "set", "lo", "up"]):
        sh("ip", "netns", "exec", NS, *command)
    netem = sh("ip", "netns", "exec", NS, "tc", "qdisc", "add", "dev", VETH_NS, "root", "netem", "delay",
               f"{DELAY_MS}ms", check=False)
    if netem.returncode != 0:
        say(f"no netem here ({netem.stderr.strip()}): a proxy on {HOST_ADDR} delays the namespace's bytes instead")
    return netem.returncode == 0


def drop_namespace() -> None:
    sh("ip", "netns", "del", NS, check=False)  # takes its end of the pair, and so the pair, with it
    sh("ip", "link", "del", VETH_HOST, check=False)


class Processes:
    """Everything the bench starts, each in a process group of its own, stopped whole at the end."""

    def __init__(self, var: Path):
        self.var = var
        self.started: list[tuple[subprocess.Popen, object]] = []

    def start(self, name: str, argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
        log = open(self.var / f"{name}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.started.append((proc, log))
        return proc

    def log(self, name: str) -> str:
        return (self.var / f"{name}.log").read_text(errors="replace")

    @staticmethod
    def stop(proc: subprocess.Popen, timeout: float = 30) -> None:
        if proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def stop_all(self) -> None:
        for proc, log in reversed(self.started):
            with contextlib.suppress(Exception):
                self.stop(proc)
            log.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    return reachable("127.0.0.1", port)


def reachable(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) == 0


def run_stack(stack: str, args) -> dict:
    var = Path(tempfile.mkdtemp(prefix=f"kz-remote-{stack}-"))
    database = f"kozyr_bench_remote_{os.getpid()}"
    env = stack_env(stack, var, database)
    os.environ.update(env)
    for key in [k for k in os.environ if k not in env]:
        if key.startswith(("KOZYR_", "DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")):
            del os.environ[key]
    netem = stack == "postgres" and not args.skip_netem
    procs = Processes(var)
    made_database = False
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below runs
    try:
        if stack == "postgres":
            import redis

            admin_sql(f"CREATE DATABASE {database}")
            made_database = True
            redis.Redis.from_url(env["CELERY_BROKER_URL"]).flushdb()
        subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, check=True,
                       capture_output=True)
        if stack == "embedded":
            procs.start("broker", [sys.executable, "-m", "config.embedded_broker"], env, REPO / "platform")
            wait(lambda: (var / "run" / "broker.sock").exists(), 30, "the embedded broker")
        kernel_delay = make_namespace() if netem else False
        port = free_port()
        binds = ["--bind", f"127.0.0.1:{port}"] + (["--bind", f"{HOST_ADDR}:{port}"] if kernel_delay else [])
        far = None
        if kernel_delay:
            far = (f"http://{HOST_ADDR}:{port}", f"netem delay {DELAY_MS}ms on {VETH_NS}, the namespace's end")
        elif netem:
            proxy_port = free_port()
            procs.start("delay-proxy", [sys.executable, __file__, "--proxy", f"{HOST_ADDR}:{proxy_port}", str(port),
                                        str(DELAY_MS)], env, REPO)
            wait(lambda: reachable(HOST_ADDR, proxy_port), 30, "the delaying proxy")
            far = (f"http://{HOST_ADDR}:{proxy_port}", f"a proxy on {HOST_ADDR} holding each chunk the namespace "
                   f"sends for {DELAY_MS} ms (no netem in this kernel)")
        web = procs.start("web", [str(VENV / "gunicorn"), "config.asgi:application", "--worker-class",
                                  "config.web_worker.WebWorker", "--preload", *binds, "--workers", "1",
                                  "--error-logfile", "-"], env, REPO / "platform")
        worker = procs.start("worker", [str(VENV / "celery"), "-A", "config", "worker", "--queues", QUEUES,
                                        "--concurrency", "1", "--loglevel", "WARNING", "--without-heartbeat",
                                        "--without-mingle", "--without-gossip"], env, REPO / "platform")
        wait(lambda: listening(port), 60, "the site to listen")
        time.sleep(6)  # the worker boots (not part of any figure)
        return Bench(stack, args, procs, env, var, port, web, worker, far).run()
    finally:
        procs.stop_all()
        if netem:
            drop_namespace()
        if made_database:
            import redis

            with contextlib.suppress(Exception):
                redis.Redis.from_url(env["CELERY_BROKER_URL"]).flushdb()
            with contextlib.suppress(Exception):
                from django.db import connections
                connections.close_all()
            admin_sql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        shutil.rmtree(var, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- figures

def spread(values_s: list[float]) -> dict:
    ms = sorted(1000 * v for v in values_s)
    if not ms:
        return {"n": 0}
    return {"n": len(ms), "median": round(statistics.median(ms), 1), "p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1), "mean": round(statistics.fmean(ms), 2)}


class Bench:
    def __init__(self, stack, args, procs, env, var, port, web, worker, far):
        self.stack, self.args, self.procs, self.env, self.var = stack, args, procs, env, var
        self.port, self.web, self.worker, self.far = port, web, worker, far
        self.site = f"http://127.0.0.1:{port}"
        self.connects = 0

    def run(self) -> dict:
        import django

        django.setup()
        from accounts.models import User
        from bots.models import Bot

        self.owner = User.objects.create_user("bench-remote", password="a-long-password-1")
        self.house = Bot.objects.get(name="greedy-bura").current_version
        figures: dict = {"stack": self.stack}
        say(f"{self.stack}: loopback, remote and sandboxed")
        figures["loopback"] = self.loopback()
        if self.far:
            say(f"{self.stack}: {DELAY_MS} ms one way, by {self.far[1]}")
            figures["netem"] = self.delayed()
        if self.stack == "postgres" and self.args.idle:
            say(f"{self.stack}: {self.args.idle} idle connections")
            figures["idle"] = self.idle()
        figures["log_errors"] = {name: sum(("Traceback" in line or " ERROR" in line)
                                           for line in self.procs.log(name).splitlines())
                                 for name in ("web", "worker")}
        return figures

    # ---- bots

    def remote_bot(self, name: str):
        from bots.actions import do_create_bot
        from bots.remote import do_make_remote_version

        bot = do_create_bot(self.owner, game="bura", name=name, presets=["bura"])
        version, token = do_make_remote_version(bot)
        return bot, version, token

    def connect(self, bot_name: str, token: str, site: str, namespace: str | None = None) -> tuple:
        self.connects += 1
        name = f"connect-{self.connects}"
        prefix = ["ip", "netns", "exec", namespace] if namespace else []
        env = {**self.env, "XDG_CONFIG_HOME": str(self.var / "config")}
        proc = self.procs.start(name, [*prefix, str(VENV / "arena"), "connect", "--site", site, "--bot", bot_name,
                                       "--token", token, "--", sys.executable, str(BOT)], env, self.var)
        return proc, name

    def wait_ready(self, version, name: str) -> None:
        from bots.models import BotVersion

        wait(lambda: BotVersion.objects.get(pk=version.pk).status != "pending", 180,
             f"{version} to validate: {self.procs.log(name)[-2000:] if name else ''}")
        status = BotVersion.objects.get(pk=version.pk).status
        if status != "ready":
            raise SystemExit(f"{version} is {status}: {BotVersion.objects.get(pk=version.pk).reason}")

    def sandboxed_bot(self):
        from bots.actions import do_create_bot
        from bots.upload import check_upload
        from matches.validation import do_upload_version

        bot = do_create_bot(self.owner, game="bura", name="sandboxed-first", presets=["bura"])
        version = do_upload_version(bot, check_upload("main.py", BOT.read_bytes()))
        self.wait_ready(version, "")
        return version

    # ---- matches

    def play_set(self, version) -> list:
        """One duplicate set of the version against greedy-bura, played to its end; its decisions."""
        from matches.actions import create_duplicate_set
        from matches.models import Match

        made = create_duplicate_set(kind="challenge", preset="bura", versions=[version, self.house],
                                    overrides=OVERRIDES)
        ids = [m.pk for m in made]
        wait(lambda: Match.objects.filter(pk__in=ids, status__in=["finished", "failed"]).count() == len(ids), 300,
             f"matches {ids}")
        return [self.timings(Match.objects.get(pk=pk), version) for pk in ids]

    def timings(self, match, version) -> dict:
        """The version's seat in a finished match: its decisions' times from the relay, its verdict, its clock."""
        import orjson

        from bots import blobs
        from matches import relay

        seat_row = match.seats.get(version=version)
        seat = seat_row.seat
        name = relay.attempt_name(match)
        c = relay.client()
        actions = [orjson.loads(e) for e in c.lrange(relay.key(name, "actions"), 0, -1)]
        out = [orjson.loads(e) for e in c.lrange(relay.key(name, "seat", seat, "out"), 0, -1)]
        requests = [e["t"] for e in out if e["m"].get("type") == "request"]
        mine = [(i, a) for i, a in enumerate(actions) if a["seat"] == seat]
        gaps = [a["t"] - actions[i - 1]["t"] for i, a in mine if i > 0]
        answered = [a["t"] - r for (_, a), r in zip(mine, requests, strict=False)]
        asking = [r - actions[i - 1]["t"] for (i, _), r in zip(mine, requests, strict=False) if i > 0]
        allowance = None
        if match.replay_sha256:
            replay = orjson.loads(gzip.decompress(blobs.get("replays", match.replay_sha256)))
            with contextlib.suppress(KeyError, IndexError, TypeError):
                allowance = replay["seat_time"][seat]["move_ms"] - replay["time"]["move_ms"]
        return {"match": match.pk, "status": match.status, "verdict": seat_row.verdict, "code": seat_row.code,
                "decisions": len(mine), "requests": len(requests), "gaps": gaps, "answered": answered,
                "asking": asking, "allowance_ms": allowance}

    @staticmethod
    def summary(played: list[dict]) -> dict:
        bad = [(p["match"], p["verdict"], p["code"]) for p in played
               if p["verdict"] != "ok" or p["status"] != "finished"]
        return {"matches": len(played), "decisions": sum(p["decisions"] for p in played),
                "request_to_accepted": spread([x for p in played for x in p["answered"]]),
                "action_to_action": spread([x for p in played for x in p["gaps"]]),
                "referee_before_asking": spread([x for p in played for x in p["asking"]]),
                "unmatched_requests": sum(abs(p["requests"] - p["decisions"]) for p in played if p["requests"]),
                "not_ok": bad, "timeouts": sum(1 for _, verdict, _ in bad if verdict == "timeout"),
                "allowance_ms": sorted({p["allowance_ms"] for p in played if p["allowance_ms"] is not None})}

    def until(self, goal: int, *versions) -> list[list[dict]]:
        """Duplicate sets of each version in turn, until each has ``goal`` decisions."""
        played: list[list[dict]] = [[] for _ in versions]
        while min(sum(p["decisions"] for p in rows) for rows in played) < goal:
            for rows, version in zip(played, versions, strict=True):
                if sum(p["decisions"] for p in rows) < goal:
                    rows.extend(self.play_set(version))
        return played

    # ---- the three parts

    def loopback(self) -> dict:
        bot, version, token = self.remote_bot("remote-first")
        self.loop_connect, name = self.connect(bot.name, token, self.site)
        self.wait_ready(version, name)
        self.remote_version = version
        sandboxed = self.sandboxed_bot()
        remote_rows, sandboxed_rows = self.until(self.args.decisions, version, sandboxed)
        return {"remote": self.summary(remote_rows), "sandboxed": self.summary(sandboxed_rows),
                "site": self.site_state(bot.name)}

    def site_state(self, bot_name: str) -> dict:
        from django.test import Client

        client = Client()
        client.force_login(self.owner)
        body = client.get(f"/api/v1/bots/{bot_name}/remote/").json()
        return {"allowance_ms": body["allowance_ms"],
                "connections": [{k: c[k] for k in ("rtt_p95_ms", "rtt_samples")} for c in body["connections"]]}

    def delayed(self) -> dict:
        bot, version, token = self.remote_bot("remote-far")
        proc, name = self.connect(bot.name, token, self.far[0], namespace=NS)
        self.wait_ready(version, name)
        at_start = self.site_state(bot.name)
        rows = self.until(self.args.decisions, version)[0]
        told = [line.split(" ", 1)[1] for line in self.procs.log(name).splitlines() if "round trip" in line]
        figures = {"delay": self.far[1], "remote": self.summary(rows), "site_before": at_start,
                   "site_after": self.site_state(bot.name),
                   "arena_connect_said": told}
        Processes.stop(proc)
        return figures

    def idle(self) -> dict:
        import psutil
        from django.conf import settings

        from accounts.models import User
        from bots.actions import do_create_bot, make_current
        from bots.models import RemoteConnection
        from bots.remote import do_make_remote_version

        n, window = self.args.idle, self.args.window
        owners = [User.objects.create_user(f"bench-idle-{k}", password="a-long-password-1")
                  for k in range(-(-n // settings.MAX_BOTS_PER_USER))]
        tokens = []
        for k in range(n):
            owner = owners[k // settings.MAX_BOTS_PER_USER]
            bot = do_create_bot(owner, game="bura", name=f"idle-{k:03d}", presets=["bura"])
            version, token = do_make_remote_version(bot)
            version.status = "ready"
            version.save()
            make_current(version)
            tokens.append([bot.name, token])
        (self.var / "tokens.json").write_text(json.dumps({"site": self.site, "bots": tokens}))
        worker, web = psutil.Process(self.worker.pid), psutil.Process(self.web.pid).children()[0]
        counter = Monitor(self.env["CELERY_BROKER_URL"], REDIS_DB)
        time.sleep(12)  # PostgreSQL's statistics of the rows just made arrive (an idle backend flushes in 10 s)
        try:
            phases = {"before (1 arena connect)": self.sample(worker, web, counter, window)}
            clients = self.procs.start("idle-clients", [sys.executable, __file__, "--clients",
                                                        str(self.var / "tokens.json")], self.env, self.var)
            t0 = time.monotonic()
            wait(lambda: RemoteConnection.objects.filter(bot__owner__in=owners, closed__isnull=True,
                                                         rtt_p95_ms__isnull=False).count() == n, 120,
                 f"{n} idle connections: {self.procs.log('idle-clients')[-2000:]}")
            connected_s = time.monotonic() - t0
            phases[f"{n} idle connected, first minute"] = self.sample(worker, web, counter, window)
            phases[f"{n} idle connected, second minute"] = self.sample(worker, web, counter, window)
            live = RemoteConnection.objects.filter(bot__owner__in=owners, closed__isnull=True).count()
            say(f"duplicate sets of remote-first beside {live} idle connections")
            during = self.summary(self.until(BESIDE_IDLE_DECISIONS, self.remote_version)[0])
            phases["after that match"] = self.sample(worker, web, counter, 0)
            still = RemoteConnection.objects.filter(bot__owner__in=owners, closed__isnull=True).count()
            Processes.stop(clients)
        finally:
            counter.stop()
        return {"connections": n, "connect_all_s": round(connected_s, 1), "open_before_match": live,
                "open_after_match": still, "phases": phases, "match_beside_idle": during}

    def sample(self, worker, web, counter: Monitor, window: float) -> dict:
        """A snapshot of the worker (master + pool) and the web process, and rates over ``window`` seconds."""
        def snap():
            procs = [worker, *worker.children()]
            cpu = sum(sum(p.cpu_times()[:2]) for p in procs)
            web_cpu = sum(web.cpu_times()[:2])
            return {"worker_rss_mib": [round(p.memory_info().rss / 2**20, 1) for p in procs],
                    "worker_cpu_s": round(cpu, 2), "worker_threads": [p.num_threads() for p in procs],
                    "web_rss_mib": round(web.memory_info().rss / 2**20, 1), "web_cpu_s": round(web_cpu, 2),
                    "web_threads": web.num_threads(), "redis_commands": counter.count,
                    "db": db_writes(), "t": time.monotonic()}
        first = snap()
        if window <= 0:
            return {k: v for k, v in first.items() if k not in ("t", "db", "redis_commands")}
        time.sleep(window)
        last = snap()
        span = last["t"] - first["t"]
        return {**{k: v for k, v in first.items() if k not in ("t", "db", "redis_commands")},
                "worker_cpu_s_per_min": round((last["worker_cpu_s"] - first["worker_cpu_s"]) * 60 / span, 2),
                "web_cpu_s_per_min": round((last["web_cpu_s"] - first["web_cpu_s"]) * 60 / span, 2),
                "redis_commands_per_s": round((last["redis_commands"] - first["redis_commands"]) / span, 1),
                "db_row_writes_per_min": round((last["db"][0] - first["db"][0]) * 60 / span),
                "remoteconnection_updates_per_min": round((last["db"][1] - first["db"][1]) * 60 / span),
                "db_commits_per_min": round((last["db"][2] - first["db"][2]) * 60 / span),
                "after": {k: v for k, v in last.items() if k not in ("t", "db", "redis_commands")}}


def db_writes() -> tuple[int, int, int]:
    """Rows written in the bench's database so far (every table), of them updates of remote connection rows,
    and its commits (a fresh connection: statistics are not cached inside a transaction)."""
    import psycopg
    from django.conf import settings

    name = settings.DATABASES["default"]["NAME"]
    with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{name}", autocommit=True) as conn:
        rows, updates = conn.execute(
            "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0), "
            "coalesce(sum(n_tup_upd) FILTER (WHERE relname = 'bots_remoteconnection'), 0) "
            "FROM pg_stat_user_tables").fetchone()
        commits = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", [name]).fetchone()[0]
    return int(rows), int(updates), int(commits)


class Monitor:
    """Counts the commands the Redis server runs on one database (MONITOR: the server is shared with others)."""

    def __init__(self, url: str, db: int):
        import redis

        self.count = 0
        self.db = db
        self._stop = threading.Event()
        self._redis = redis.Redis.from_url(url)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with contextlib.suppress(Exception), self._redis.monitor() as monitor:
            for command in monitor.listen():
                if self._stop.is_set():
                    return
                if command.get("db") == self.db:
                    self.count += 1

    def stop(self) -> None:
        self._stop.set()
        self._redis.close()


# ---------------------------------------------------------------------------------------------- idle clients

async def idle_clients(path: Path) -> None:
    """One websocket per bot, answering the site's pings at once as `arena connect` does, and nothing else."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    spec = json.loads(path.read_text())
    closed: list[str] = []

    async def one(name: str, token: str) -> None:
        url = f"{spec['site'].replace('http://', 'ws://')}/api/remote/connect/?bot={name}&max_matches=4"
        async with connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            try:
                async for raw in ws:
                    frame = json.loads(raw)
                    if frame.get("type") == "ping":
                        await ws.send(json.dumps({"type": "pong", "id": frame["id"]}))
            except ConnectionClosed:
                pass
        closed.append(f"{name}: {ws.close_code} {ws.close_reason}")
        print(f"closed {closed[-1]}", flush=True)

    await asyncio.gather(*(one(name, token) for name, token in spec["bots"]), return_exceptions=True)


# ---------------------------------------------------------------------------------------------- delay proxy

async def delay_proxy(listen: str, target_port: int, delay_ms: float) -> None:
    """What netem would do where the kernel has none: every chunk the client side sends reaches the site
    ``delay_ms`` later (in order); the site's bytes go back at once. One way, as netem on one end of the pair."""
    loop = asyncio.get_running_loop()
    host, port = listen.rsplit(":", 1)

    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, delay_s: float) -> None:
        held: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def release() -> None:
            while True:
                due, data = await held.get()
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                if not data:
                    sink.close()
                    return
                sink.write(data)
                await sink.drain()

        releasing = asyncio.create_task(release())
        while True:
            data = await source.read(65536)
            held.put_nowait((loop.time() + delay_s, data))
            if not data:
                break
        await releasing

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            site_reader, site_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pump(reader, site_writer, delay_ms / 1000), pump(site_reader, writer, 0.0),
                             return_exceptions=True)
        for w in (writer, site_writer):
            w.close()

    server = await asyncio.start_server(handle, host, int(port))
    async with server:
        await server.serve_forever()


# ---------------------------------------------------------------------------------------------- the tables

def row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def trio(s: dict) -> str:
    return f"{s['median']:g} / {s['p95']:g} / {s['max']:g} ms (mean {s['mean']:.2f})" if s.get("n") else "—"


def report(results: list[dict]) -> None:
    print(f"\nload average: {os.getloadavg()}\n")
    print("Per decision (median / p95 / max; the relay's time stamps are whole milliseconds)\n")
    print(row("stack", "bot", "matches", "decisions", "request → accepted", "action → action",
              "referee before asking", "timeouts / not ok"))
    print(row(*["---"] * 8))
    for r in results:
        cases = [("remote, loopback", r["loopback"]["remote"]), ("sandboxed (bwrap)", r["loopback"]["sandboxed"])]
        if "netem" in r:
            cases.append((f"remote, {DELAY_MS} ms one way", r["netem"]["remote"]))
            print(f"(the {DELAY_MS} ms: {r['netem']['delay']})")
        if "idle" in r:
            cases.append((f"remote, loopback, beside {r['idle']['connections']} idle",
                          r["idle"]["match_beside_idle"]))
        for label, s in cases:
            print(row(r["stack"], label, s["matches"], s["decisions"], trio(s["request_to_accepted"]),
                      trio(s["action_to_action"]), trio(s["referee_before_asking"]),
                      f"{s['timeouts']} / {len(s['not_ok'])}"))
        sandboxed = r["loopback"]["sandboxed"]["action_to_action"]
        for label, s in cases:
            if label.startswith("remote"):
                a = s["action_to_action"]
                print(f"  {r['stack']}: added by {label}: median {a['median'] - sandboxed['median']:.1f} ms, "
                      f"p95 {a['p95'] - sandboxed['p95']:.1f} ms, mean {a['mean'] - sandboxed['mean']:.2f} ms "
                      f"(action → action, remote − sandboxed); "
                      f"allowance in the matches' clocks {s['allowance_ms']} ms")
        print(f"  {r['stack']}: site's view of remote-first: {r['loopback']['site']}")
        print(f"  {r['stack']}: Traceback or ERROR lines in the logs: {r['log_errors']}")
        if "netem" in r:
            n = r["netem"]
            print(f"  delayed: site before play {n['site_before']}, after {n['site_after']}")
            for line in n["arena_connect_said"]:
                print(f"  delayed: arena connect said: {line}")
    for r in results:
        if "idle" not in r:
            continue
        idle = r["idle"]
        print(f"\n{idle['connections']} idle remote connections ({r['stack']}): all open and measured "
              f"{idle['connect_all_s']} s after starting; {idle['open_before_match']} open before the match, "
              f"{idle['open_after_match']} after\n")
        names = list(idle["phases"])
        print(row("figure", *names))
        print(row(*["---"] * (len(names) + 1)))
        keys = ["worker_rss_mib", "worker_cpu_s", "worker_threads", "worker_cpu_s_per_min", "web_rss_mib",
                "web_threads", "web_cpu_s", "web_cpu_s_per_min", "redis_commands_per_s", "db_row_writes_per_min",
                "remoteconnection_updates_per_min", "db_commits_per_min"]
        for key in keys:
            print(row(key, *[idle["phases"][p].get(key, "—") for p in names]))
        print(row("(at the end of the window) worker_rss_mib / web_rss_mib",
                  *[f"{p['after']['worker_rss_mib']} / {p['after']['web_rss_mib']}" if "after" in p else "—"
                    for p in idle["phases"].values()]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=300, help="per bot and case")
    parser.add_argument("--skip-netem", action="store_true")
    parser.add_argument("--idle", type=int, default=100, help="idle connections (0: skip that part)")
    parser.add_argument("--window", type=float, default=60, help="seconds each idle rate is measured over")
    parser.add_argument("--stack", choices=("both", "postgres", "embedded"), default="both")
    parser.add_argument("--child", choices=("postgres", "embedded"), help=argparse.SUPPRESS)
    parser.add_argument("--clients", help=argparse.SUPPRESS)
    parser.add_argument("--proxy", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.proxy:
        asyncio.run(delay_proxy(args.proxy[0], int(args.proxy[1]), float(args.proxy[2])))
        return
    if args.clients:
        asyncio.run(idle_clients(Path(args.clients)))
        return
    if args.child:
        print(json.dumps(run_stack(args.child, args)))
        return
    if os.geteuid() != 0 and not args.skip_netem:
        raise SystemExit("the delayed case makes a network namespace: run as root, or with --skip-netem")
    results = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the child is stopped, and cleans up, below
    say(f"load average {os.getloadavg()}")
    for stack in ("postgres", "embedded") if args.stack == "both" else (args.stack,):
        child = subprocess.Popen([sys.executable, __file__, "--child", stack, "--decisions", str(args.decisions),
                                  "--idle", str(args.idle), "--window", str(args.window),
                                  *(["--skip-netem"] if args.skip_netem else [])], stdout=subprocess.PIPE, text=True)
        try:
            out, _ = child.communicate()
        except BaseException:
            child.terminate()  # its finally removes what it made
            child.wait(120)
            raise
        if child.returncode != 0:
            raise SystemExit(f"{stack}: the child failed ({child.returncode})")
        results.append(json.loads(out.strip().splitlines()[-1]))
        (Path(tempfile.gettempdir()) / f"remote_latency_{stack}.json").write_text(json.dumps(results[-1], indent=1))
    report(results)


if __name__ == "__main__":
    main()
