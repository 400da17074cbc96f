"""The workers' fair share on a mixed site (issue "Fair share of the workers"): the house ladder alone, then beside
a bot that thinks 0.5 s a move asleep, a CPU-bound bot that uses 90% of its move time, and people at tables.

    .venv/bin/python bench/fair_share.py [--seconds 120] [--stack postgres|embedded] [--redis redis://127.0.0.1:6379/1]
                                         [--relay-redis redis://127.0.0.1:6379/2] [--people 4] [--remote-bots 10]
                                         [--json FILE]

Real processes on a fresh PostgreSQL database (kozyr_fair_<pid>, dropped at the end) and two Redis databases of
its own (flushed), or with ``--stack embedded`` on make run's defaults (SQLite and the embedded broker in one var
folder): beat, a maintenance worker, a match worker of two processes on every computing queue, one
process for validations and challenges, the `open` queue's worker of threads and the `sandboxed` queue's
(the uploaded bots' matches, as many threads as config/capacity.py admits) (deploy/supervisord.conf's layout);
sandbox bwrap. Phase one plays the house
ladder alone for --seconds; phase two adds the two thinking bots (uploaded, validated, on the ladder), --people
people at tables against greedy-bura who answer in 2-10 s and sit down again when a match ends, and a new
upload every 15 s, and --remote-bots remote bots played by the real `arena connect` (the site's web server,
gunicorn with its ASGI worker, serves their websockets). Reported, per phase where it applies:

- the house ladder's finished matches per minute, and phase two's as a share of phase one's (goal >= 80%);
- each version's share of the worker time (Seat.worker_ms) against an even share;
- validation wait (created to started), p95 (goal <= 10 s);
- the open worker's processes, threads and memory per waiting match;
- the two thinking bots' moves and timeouts (goal: no timeout);
- the remote bots: how many were validated, their matches, moves and timeouts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import psycopg
import redis

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "platform")]

from bench.soak import BIN, Service, free_port, say  # noqa: E402
from config import capacity  # noqa: E402
from config.celery_settings import MAINTENANCE_QUEUE, OPEN_QUEUE, QUEUE_ORDER, SANDBOXED_QUEUE  # noqa: E402
from tests.support.resources import private_sandbox_env  # noqa: E402

COMPUTED = ",".join(q for q in QUEUE_ORDER if q not in (OPEN_QUEUE, SANDBOXED_QUEUE, MAINTENANCE_QUEUE))
THINKER = '''import json, sys, time
MODE, SECONDS = {mode!r}, {seconds!r}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "ready"}}), flush=True)
    elif message["type"] == "request":
        if MODE == "sleep":
            time.sleep(SECONDS)
        else:  # thinks on the CPU for SECONDS of its own CPU time
            until = time.process_time() + SECONDS
            while time.process_time() < until:
                pass
        print(json.dumps({{"type": "action", "id": message["id"], "action": message["legal_actions"][0]}}),
              flush=True)
'''


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=120, help="length of each phase")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/1")
    parser.add_argument("--relay-redis", default="redis://127.0.0.1:6379/2")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--people", type=int, default=4)
    parser.add_argument("--remote-bots", type=int, default=10, help="remote bots on `arena connect` in phase two")
    parser.add_argument("--stack", choices=("postgres", "embedded"), default="postgres",
                        help="postgres: PostgreSQL and Redis; embedded: make run's defaults (SQLite and the embedded "
                             "broker, one var folder for every process)")
    parser.add_argument("--search-bots", action="store_true",
                        help="the search house bots on the ladder too (KOZYR_HOUSE_SEARCH_BOTS; off: the quick house "
                             "bots alone, whose ladder the issue measured)")
    parser.add_argument("--json", help="also write the figures to this file")
    return parser.parse_args()


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.db_name = f"kozyr_fair_{os.getpid()}"
        self.root = Path(tempfile.mkdtemp(prefix="kozyr-fair-"))
        self.root.chmod(0o711)
        self.stop_people = threading.Event()
        self.embedded = args.stack == "embedded"
        self.services: list[Service] = []
        self.people_errors: list[str] = []
        self.relay_away = 0  # the tables' polls answered 503 (the live relay away), asked again as the page does

    def env(self, name: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_")) and k not in (
            "DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT", "SANDBOX_BACKEND")}
        # make run's processes share one var folder: the SQLite file and the embedded broker's socket are in it
        var = self.root / ("var" if self.embedded else f"var-{name}")
        var.mkdir(exist_ok=True)
        servers = {} if self.embedded else {"DATABASE_URL": f"{self.args.postgres}/{self.db_name}",
                                            "CELERY_BROKER_URL": self.args.redis,
                                            "KOZYR_LIVE_REDIS_URL": self.args.relay_redis}
        return {**keep, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1", **servers,
                "MEDIA_ROOT": str(self.root / "media"),
                "SECRET_KEY": "fair-share-bench-" + "x" * 40, "KOZYR_VAR_DIR": str(var), "SANDBOX_BACKEND": "bwrap",
                "KOZYR_SANDBOX_ALLOW_WEAK": "true", "KOZYR_CASUAL_PER_HOUR": "10000", "LOG_LEVEL": "WARNING",
                "KOZYR_HOUSE_SEARCH_BOTS": "true" if self.args.search_bots else "false"}

    def worker(self, name: str, queues: str, pool: str, concurrency: int) -> Service:
        env = self.env(name)
        state = self.root / f"state-{name}"
        state.mkdir(mode=0o711, exist_ok=True)
        env.update(private_sandbox_env(state))
        argv = [str(BIN / "celery"), "-A", "config", "worker", "--queues", queues, "--pool", pool,
                "--concurrency", str(concurrency), "--hostname", f"{name}@%h", "--loglevel", "INFO"]
        return Service(name, argv, env, self.root / f"{name}.log", REPO / "platform", "ready.")

    # -- the site ---------------------------------------------------------------------------------------------------
    def start(self) -> None:
        if self.embedded:
            broker = Service("broker", [sys.executable, "-m", "config.embedded_broker"], self.env("broker"),
                             self.root / "broker.log", REPO / "platform", None)
            broker.start()
            self.services.append(broker)
            deadline = time.monotonic() + 30
            while not (self.root / "var" / "run" / "broker.sock").exists():
                if time.monotonic() > deadline:
                    raise SystemExit(f"the embedded broker did not start:\n{broker.output()[-2000:]}")
                time.sleep(0.2)
        else:
            for url in (self.args.redis, self.args.relay_redis):
                redis.Redis.from_url(url).flushdb()
            with psycopg.connect(f"{self.args.postgres}/postgres", autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
                admin.execute(f"CREATE DATABASE {self.db_name}")
        (self.root / "media").mkdir(exist_ok=True)
        os.environ.clear()
        os.environ.update(self.env("bench"))
        import django

        django.setup()
        from django.core.management import call_command

        from bots.actions import ensure_house_bots

        call_command("migrate", verbosity=0, interactive=False)
        ensure_house_bots()
        self.match_worker = self.worker("matches", COMPUTED, "prefork", 2)
        self.open_worker = self.worker("open", OPEN_QUEUE, "threads", 32)
        self.port = free_port()
        web = Service("web", [str(BIN / "gunicorn"), "config.asgi:application", "--worker-class",
                              "config.web_worker.WebWorker", "--preload", "--bind", f"127.0.0.1:{self.port}",
                              "--workers", "1", "--error-logfile", "-"], self.env("web"), self.root / "web.log",
                      REPO / "platform", "Booting worker")
        self.bots_worker_slots = capacity.configured_slots()
        self.bots_worker = self.worker("bots", SANDBOXED_QUEUE, "threads", self.bots_worker_slots)
        self.services += [web, self.worker("maintenance", MAINTENANCE_QUEUE, "prefork", 1), self.match_worker,
                         self.open_worker, self.bots_worker, self.worker("quick", "validation,challenge", "threads", 4),
                         Service("beat", [str(BIN / "celery"), "-A", "config", "beat", "--schedule",
                                          str(self.root / "beat-schedule"), "--loglevel", "INFO"],
                                 self.env("beat"), self.root / "beat.log", REPO / "platform", "beat: Starting")]
        for service in self.services:
            if not service.alive():
                service.start()
        for service in self.services:
            service.wait_ready()
        say(f"site up ({self.args.stack}): database {'SQLite' if self.embedded else self.db_name}, logs in {self.root}")

    def stop(self) -> None:
        self.stop_people.set()
        for service in reversed(self.services):
            service.stop(grace=20)
        from django.db import connections

        connections.close_all()
        if not self.embedded:
            with psycopg.connect(f"{self.args.postgres}/postgres", autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")

    # -- load -------------------------------------------------------------------------------------------------------
    def upload(self, owner, name: str, mode: str, seconds: float):
        from bots.actions import do_create_bot
        from bots.models import Bot
        from bots.upload import check_upload
        from matches.validation import do_upload_version

        bot = Bot.objects.filter(name=name).first() or do_create_bot(owner, game="bura", name=name, presets=["bura"])
        return do_upload_version(bot, check_upload(f"{name}.py", THINKER.format(mode=mode, seconds=seconds).encode()))

    def remote_bots(self, count: int) -> list:
        """``count`` remote versions (two a user, within the per-user connections), each played by the real
        `arena connect` running bench/bots/first_legal.py (the first legal action at once)."""
        from accounts.models import User
        from bots.actions import do_create_bot
        from bots.remote import do_make_remote_version

        versions = []
        for k in range(count):
            owner = (User.objects.filter(username=f"fair-remote-{k // 2}").first()
                     or User.objects.create_user(f"fair-remote-{k // 2}", password="x" * 20))
            bot = do_create_bot(owner, game="bura", name=f"fair-remote-{k}", presets=["bura"])
            version, token = do_make_remote_version(bot)
            env = {**self.env(f"connect-{k}"), "XDG_CONFIG_HOME": str(self.root / f"config-{k}")}
            connect = Service(f"connect-{k}", [str(BIN / "arena"), "connect", "--site", f"http://127.0.0.1:{self.port}",
                                               "--bot", bot.name, "--token", token, "--", sys.executable,
                                               str(REPO / "bench" / "bots" / "first_legal.py")],
                              env, self.root / f"connect-{k}.log", self.root, None)
            connect.start()
            self.services.append(connect)
            versions.append(version)
        return versions

    def person(self, user, seed: int) -> None:
        from django.db import connection
        from django.test import Client

        from bots.models import Bot
        from matches.casual import start_casual

        client, rng = Client(), random.Random(seed)
        client.force_login(user)
        opponent = Bot.objects.get(name="greedy-bura")
        try:
            while not self.stop_people.is_set():
                match = start_casual(user, opponent, "bura")
                after = 0
                while not self.stop_people.is_set():
                    answer = client.get(f"/play/{match.pk}/lines/?after={after}")
                    if answer.status_code == 503:  # the relay away a moment: the page asks again, so does this
                        self.relay_away += 1
                        time.sleep(1)
                        continue
                    body = answer.json()
                    for entry in body["lines"]:
                        message = entry["m"]
                        if message["type"] == "hello":
                            client.post(f"/play/{match.pk}/answer/", b'{"type":"ready"}',
                                        content_type="application/json")
                        elif message["type"] == "request":
                            if self.stop_people.wait(rng.uniform(2, 10)):
                                return
                            action = rng.choice(message["legal_actions"])
                            client.post(f"/play/{match.pk}/answer/", json.dumps(
                                {"type": "action", "id": message["id"], "action": action}),
                                content_type="application/json")
                    after += len(body["lines"])
                    if body["status"] not in ("queued", "running"):
                        break
                    time.sleep(0.5)
        except Exception as err:  # reported with the figures
            self.people_errors.append(f"{type(err).__name__}: {err}")
        finally:
            connection.close()

    # -- figures ----------------------------------------------------------------------------------------------------
    def remote_figures(self, versions: list, since: float) -> dict:
        from datetime import UTC, datetime

        from bots.models import BotVersion
        from matches.models import Match, Seat

        statuses = list(BotVersion.objects.filter(pk__in=[v.pk for v in versions]).values_list("status", flat=True))
        played = Match.objects.filter(seats__version__in=versions, finished__gte=datetime.fromtimestamp(since, UTC))
        seats = Seat.objects.filter(version__in=versions, match__status="finished")
        return {"bots": len(versions), "ready": statuses.count("ready"), "statuses": sorted(set(statuses)),
                "matches_finished": played.filter(status="finished").distinct().count(),
                "ladder_matches_finished": played.filter(status="finished", kind="ladder").distinct().count(),
                "moves": sum(s.decisions for s in seats), "timeouts": seats.filter(verdict="timeout").count()}

    def ladder_per_minute(self, since: float, until: float) -> float:
        from datetime import UTC, datetime

        from matches.models import Match

        window = Match.objects.filter(kind="ladder", status="finished",
                                      finished__gte=datetime.fromtimestamp(since, UTC),
                                      finished__lt=datetime.fromtimestamp(until, UTC))
        house = window.exclude(seats__version__bot__owner__username__startswith="fair-")
        return house.distinct().count() / ((until - since) / 60)

    def shares(self, since: float) -> list[dict]:
        from datetime import UTC, datetime

        from django.db.models import Count, Sum

        from matches.models import Seat

        finished = datetime.fromtimestamp(since, UTC)
        rows = list(Seat.objects.filter(match__status="finished", match__finished__gte=finished)
                    .values("version__bot__name", "version__number")
                    .annotate(ms=Sum("worker_ms"), matches=Count("match", distinct=True)).order_by("-ms"))
        total = sum(r["ms"] or 0 for r in rows) or 1
        return [{"version": f"{r['version__bot__name']} v{r['version__number']}", "matches": r["matches"],
                 "worker_s": round((r["ms"] or 0) / 1000, 1), "share": round((r["ms"] or 0) / total, 3),
                 "even": round(1 / len(rows), 3)} for r in rows]

    def run(self) -> dict:
        from datetime import UTC, datetime

        from accounts.models import User
        from matches.models import Match, Seat

        args = self.args
        say(f"phase 1: the house ladder alone for {args.seconds:.0f} s")
        time.sleep(min(20, args.seconds / 4))  # the ladder fills and the workers warm their caches
        one = time.time()
        time.sleep(args.seconds)
        alone = self.ladder_per_minute(one, time.time())
        idle = psutil.Process(self.open_worker.proc.pid)
        baseline = (idle.memory_info().rss / 2**20, idle.num_threads())  # the open worker with nothing to play
        say(f"  {alone:.1f} house ladder matches a minute")

        say(f"phase 2: with a sleeping thinker, a CPU-bound thinker and {args.people} people")
        owner = User.objects.create_user("fair-owner", password="x" * 20)
        thinkers = [self.upload(owner, "fair-sleeper", "sleep", 0.5), self.upload(owner, "fair-cpu", "cpu", 0.9)]
        remotes = self.remote_bots(args.remote_bots)
        people = [User.objects.create_user(f"fair-person-{k}", password="x" * 20) for k in range(args.people)]
        threads = [threading.Thread(target=self.person, args=(user, k), daemon=True) for k, user in enumerate(people)]
        for thread in threads:
            thread.start()
        two = time.time()
        uploads, waiting_samples, bots_samples = 0, [], []
        while time.time() < two + args.seconds:
            time.sleep(15)
            uploads += 1
            self.upload(owner, f"fair-upload-{uploads}", "sleep", 0.0)
            open_running = Match.objects.filter(status="running", open_seats=True).count()
            process = psutil.Process(self.open_worker.proc.pid)
            waiting_samples.append((open_running, process.memory_info().rss / 2**20, process.num_threads(),
                                    len(self.match_worker.pool())))
            bots = psutil.Process(self.bots_worker.proc.pid)
            sandboxed_running = Match.objects.filter(status="running", sandboxed_seats=True, open_seats=False).exclude(
                kind="validation").count()
            bots_samples.append({"sandboxed_matches": sandboxed_running, "processes": 1 + len(bots.children()),
                                 "rss_mib": round(bots.memory_info().rss / 2**20, 1), "threads": bots.num_threads()})
        mixed = self.ladder_per_minute(two, time.time())
        self.stop_people.set()
        validations = [(m.started - m.created).total_seconds() for m in Match.objects.filter(
            kind="validation", started__isnull=False, created__gte=datetime.fromtimestamp(two, UTC))]
        thinker_seats = Seat.objects.filter(version__in=thinkers, match__status="finished")
        busy = [s for s in waiting_samples if s[0]]
        figures = {
            "seconds_per_phase": args.seconds,
            "ladder_per_minute_alone": round(alone, 1),
            "ladder_per_minute_mixed": round(mixed, 1),
            "ladder_share_of_alone": round(mixed / alone, 3) if alone else None,
            "validation_wait_p95_s": round(statistics.quantiles(validations, n=20)[-1], 2) if len(validations) > 1
            else (validations[0] if validations else None),
            "validations": len(validations),
            "open_worker": {"processes": 1, "idle_rss_mib": round(baseline[0], 1), "idle_threads": baseline[1],
                            "samples": [{"waiting_matches": n, "rss_mib": round(rss, 1), "threads": t}
                                        for n, rss, t, _ in waiting_samples],
                            "mib_per_waiting_match": round(statistics.mean(
                                (rss - baseline[0]) / n for n, rss, _, _ in busy), 2) if busy else None,
                            "threads_per_waiting_match": round(statistics.mean(
                                (t - baseline[1]) / n for n, _, t, _ in busy), 2) if busy else None},
            "match_worker_processes": max((p for *_, p in waiting_samples), default=None),
            # the uploaded bots' matches: threads of one worker process (its children are the bots' sandboxes)
            "bots_worker": {"admission": self.bots_worker_slots, "samples": bots_samples},
            "thinkers": {seat.version.bot.name: {} for seat in thinker_seats.select_related("version__bot")},
            "shares": self.shares(two),
            "people_errors": self.people_errors,
            "people_polls_relay_away": self.relay_away,
            "remote_bots": self.remote_figures(remotes, two),
        }
        for name in list(figures["thinkers"]):
            seats = thinker_seats.filter(version__bot__name=name)
            figures["thinkers"][name] = {"matches": seats.count(), "moves": sum(s.decisions for s in seats),
                                         "timeouts": seats.filter(verdict="timeout").count()}
        return figures


def main() -> int:
    args = parse()
    bench = Bench(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped bench stops its site too (finally)
    try:
        bench.start()
        figures = bench.run()
    finally:
        bench.stop()
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
