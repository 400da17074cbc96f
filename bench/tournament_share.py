"""A big double round robin beside the ladder and validations, on a real worker: the share of the worker
each kind of match gets while the tournament runs, how long a new version's validation waits, and how many
of the tournament's matches are ever in the broker or running at once.

    .venv/bin/python bench/tournament_share.py [--seconds 120] [--entrants 64] [--concurrency 2]
                                               [--no-tournament]

PostgreSQL + Redis (``BENCH_REDIS``, default redis://127.0.0.1:6379/13), one worker consuming the
site's queues in the site's order (``config.celery_settings.QUEUE_ORDER``), built-in bots in the tournament
and on the ladder (so the figures are about scheduling, not bots); the beat's jobs run here on the beat's own
schedule. A new version is uploaded, waited for and uploaded again every 2 s; its validation plays a
sandboxed Python bot. A sampler counts the tournament's messages in Redis plus its running matches every
50 ms. ``--no-tournament`` runs the same window without the tournament, for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOT = REPO / "bench" / "bots" / "first_legal.py"
REDIS_URL = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/13")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--entrants", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--no-tournament", action="store_true")
    args = parser.parse_args()
    import psycopg
    import redis

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS kozyr_bench_share WITH (FORCE)")
        conn.execute("CREATE DATABASE kozyr_bench_share")
    broker = redis.Redis.from_url(REDIS_URL)
    broker.flushdb()
    var = Path(tempfile.mkdtemp(prefix="kozyr-share-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_"))}
    env.update({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/kozyr_bench_share",
                "CELERY_BROKER_URL": REDIS_URL, "KOZYR_VAR_DIR": str(var),
                "DJANGO_SETTINGS_MODULE": "config.settings", "KOZYR_LADDER_QUEUE_DEPTH": "4",
                "KOZYR_SANDBOX_ALLOW_WEAK": "true", "KOZYR_MAX_BOTS_PER_USER": "100000"})
    for name in [n for n in os.environ if n.startswith(("KOZYR_", "DJANGO_"))]:
        del os.environ[name]  # the settings refuse KOZYR_* names they do not know
    os.environ.update(env)
    subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, check=True, capture_output=True)
    sys.path.insert(0, str(REPO / "platform"))
    import django

    django.setup()
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from bots.actions import do_create_bot
    from bots.models import BotVersion
    from bots.upload import check_upload
    from config.celery_settings import CELERY_BEAT_SCHEDULE, QUEUE_ORDER
    from ladder.tasks import fill_ladder
    from matches.models import Match
    from matches.validation import do_upload_version
    from play.tasks import recover_matches
    from tournaments import lifecycle
    from tournaments.actions import do_create_tournament
    from tournaments.models import Entry, Tournament
    from tournaments.tasks import drive

    host = User.objects.create_user("host", password="a-long-password-1")
    entrants = []
    for k in range(args.entrants):
        bot = do_create_bot(host, game="bura", name=f"entrant-{k:02d}")
        version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy" if k % 2 else "random",
                                            runtime="builtin", status="ready")
        bot.current_version = version
        bot.save(update_fields=["current_version"])
        entrants.append(bot)
    t = do_create_tournament(host, name="Big DRR", preset="bura", overrides={"match": "deals:1"},
                             format="double_round_robin", rounds=None, deals=1, time_control={}, entry="private",
                             max_entries=1024, starts_at=timezone.now() + timedelta(hours=1), entry_deadline=None)
    Entry.objects.bulk_create([Entry(tournament=t, bot=b) for b in entrants])
    pairings = args.entrants * (args.entrants - 1)
    log = open(var / "worker.log", "wb")  # noqa: SIM115
    worker = subprocess.Popen([str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker",
                               "--queues", ",".join(QUEUE_ORDER), "--concurrency", str(args.concurrency),
                               "--loglevel", "WARNING", "--without-heartbeat", "--without-mingle",
                               "--without-gossip"], cwd=REPO / "platform", env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    uploader = User.objects.create_user("uploader", password="a-long-password-1")
    beat = {"play.tasks.recover_matches": recover_matches, "ladder.tasks.fill_ladder": fill_ladder,
            "tournaments.tasks.drive": drive}
    schedule = [(beat[job["task"]], float(job["schedule"])) for job in CELERY_BEAT_SCHEDULE.values()
                if job["task"] in beat]
    due = [0.0] * len(schedule)
    peak = {"in_flight": 0, "in_broker": 0}
    sampling = threading.Event()

    def sample() -> None:  # the tournament's matches queued in the broker or running, every 50 ms
        try:
            while not sampling.is_set():
                # every priority step of the queue is a Redis list of its own
                in_broker = sum(broker.llen(key) for key in broker.scan_iter(match="tournament*"))
                running_now = Match.objects.filter(kind="tournament", status="running").count()
                peak["in_broker"] = max(peak["in_broker"], in_broker)
                peak["in_flight"] = max(peak["in_flight"], in_broker + running_now)
                time.sleep(0.05)
        finally:
            connection.close()

    def run_beat() -> None:
        for k, (job, every) in enumerate(schedule):
            if time.monotonic() >= due[k]:
                job()
                due[k] = time.monotonic() + every

    waits, ahead = [], []
    sampler = threading.Thread(target=sample, daemon=True)
    try:
        time.sleep(6)
        sampler.start()
        if not args.no_tournament:
            lifecycle.start(Tournament.objects.get(pk=t.pk))
        begin = timezone.now()
        deadline = time.monotonic() + args.seconds
        k = 0
        while time.monotonic() < deadline:
            run_beat()
            bot = do_create_bot(uploader, game="bura", name=f"upload-{k:03d}")
            version = do_upload_version(bot, check_upload("main.py", BOT.read_bytes() + f"\n# {k}\n".encode()))
            asked = time.monotonic()
            while BotVersion.objects.get(pk=version.pk).status == "pending" and time.monotonic() < deadline + 60:
                time.sleep(0.05)
                run_beat()
            waits.append(time.monotonic() - asked)
            validation = Match.objects.get(pk=version.validation_match_id)
            if validation.started:
                ahead.append(Match.objects.filter(kind="tournament", started__gt=validation.created,
                                                  started__lt=validation.started).count())
            k += 1
            time.sleep(2)
        end = timezone.now()
    finally:
        sampling.set()
        os.killpg(worker.pid, signal.SIGKILL)  # the window is over: what it was playing does not count
        worker.wait(timeout=60)
        log.close()
    window = Match.objects.filter(status="finished", finished__gte=begin, finished__lte=end)
    total = window.count()
    what = ("no tournament" if args.no_tournament else
            f"{args.entrants}-entrant double round robin ({pairings} pairings)")
    print(f"{what}, {args.seconds} s, one worker of concurrency {args.concurrency}, queues {','.join(QUEUE_ORDER)}")
    for kind in ("tournament", "validation", "ladder"):
        n = window.filter(kind=kind).count()
        print(f"  {kind:<11} {n:6d} matches finished  {100 * n / max(1, total):5.1f}%")
    waits.sort()
    print(f"  validations: {len(waits)}, wait for ready median {statistics.median(waits):.2f} s, "
          f"max {waits[-1]:.2f} s; tournament matches started ahead of one: median "
          f"{statistics.median(ahead or [0]):g}, max {max(ahead or [0])}")
    print(f"  tournament matches at once: at most {peak['in_flight']} queued in the broker or running "
          f"(at most {peak['in_broker']} waiting in the broker)")
    rounds = Tournament.objects.get(pk=t.pk).round_set.count()
    print(f"  tournament: {rounds} of {2 * (args.entrants - 1)} rounds paired so far")
    print(json.dumps({"total": total, "peak": peak, "validations": len(waits)}))


if __name__ == "__main__":
    main()
