"""A 64-entrant double round robin (4,032 pairings) beside the ladder and validations, on a real worker:
the share of the worker each kind of match gets while the tournament runs.

    .venv/bin/python bench/tournament_share.py [--seconds 120] [--entrants 64]

PostgreSQL + Redis, one worker with concurrency 2, built-in bots (so the figure is about scheduling, not
about bots). The tournament publishes at most `tournaments.running.IN_FLIGHT` matches at a time; the ladder
keeps its usual queue; a new version is uploaded every few seconds and must still be validated promptly.
Prints the matches finished per kind in the window, and how long validations waited.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOT = REPO / "bench" / "bots" / "first_legal.py"
QUEUES = "tournament,validation,challenge,ladder,maintenance"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--entrants", type=int, default=64)
    args = parser.parse_args()
    import psycopg
    import redis

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS kozyr_bench_share WITH (FORCE)")
        conn.execute("CREATE DATABASE kozyr_bench_share")
    redis.Redis.from_url("redis://127.0.0.1:6379/13").flushdb()
    var = Path(tempfile.mkdtemp(prefix="kozyr-share-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_"))}
    env.update({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/kozyr_bench_share",
                "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13", "KOZYR_VAR_DIR": str(var),
                "DJANGO_SETTINGS_MODULE": "config.settings", "KOZYR_LADDER_QUEUE_DEPTH": "4"})
    os.environ.update(env)
    subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, check=True, capture_output=True)
    sys.path.insert(0, str(REPO / "platform"))
    import django

    django.setup()
    from django.utils import timezone

    from accounts.models import User
    from bots.actions import do_create_bot, do_upload_version
    from bots.models import BotVersion
    from bots.upload import check_upload
    from matches.ladder import fill_ladder
    from matches.models import Match
    from tournaments import running
    from tournaments.actions import do_create_tournament
    from tournaments.models import Entry, Tournament

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
    worker = subprocess.Popen([str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker", "--queues", QUEUES,
                               "--concurrency", "2", "--loglevel", "WARNING", "--without-heartbeat",
                               "--without-mingle", "--without-gossip"], cwd=REPO / "platform", env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    uploader = User.objects.create_user("uploader", password="a-long-password-1")
    waits = []
    try:
        time.sleep(6)
        running.start(Tournament.objects.get(pk=t.pk))
        begin = timezone.now()
        deadline = time.monotonic() + args.seconds
        k = 0
        while time.monotonic() < deadline:
            fill_ladder()
            running.drive()
            bot = do_create_bot(uploader, game="bura", name=f"upload-{k:03d}")
            version = do_upload_version(bot, check_upload("main.py", BOT.read_bytes() + f"\n# {k}\n".encode()))
            asked = time.monotonic()
            while BotVersion.objects.get(pk=version.pk).status == "pending" and time.monotonic() < deadline + 60:
                time.sleep(0.1)
                running.drive()
            waits.append(time.monotonic() - asked)
            k += 1
            time.sleep(2)
        end = timezone.now()
    finally:
        os.killpg(worker.pid, signal.SIGKILL)  # the window is over: what it was playing does not count
        worker.wait(timeout=60)
        log.close()
    window = Match.objects.filter(status="finished", finished__gte=begin, finished__lte=end)
    total = window.count()
    print(f"{args.entrants}-entrant double round robin ({pairings} pairings), {args.seconds} s, worker concurrency 2")
    for kind in ("tournament", "validation", "ladder"):
        n = window.filter(kind=kind).count()
        print(f"  {kind:<11} {n:6d} matches finished  {100 * n / max(1, total):5.1f}%")
    waits.sort()
    print(f"  validations: {len(waits)}, wait for ready median {waits[len(waits) // 2]:.2f} s, "
          f"max {waits[-1]:.2f} s")
    rounds = Tournament.objects.get(pk=t.pk).round_set.count()
    print(f"  tournament: {rounds} of {2 * (args.entrants - 1)} rounds paired so far")


if __name__ == "__main__":
    main()
