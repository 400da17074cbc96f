"""The platform's engine room, measured: upload check, upload to ready, ready to the first ladder match,
scheduling cost per match, and matches per minute through a real worker beside `arena play` on the same
matches.

    .venv/bin/python bench/platform_throughput.py [--matches 60] [--stack both|postgres|embedded]

Each stack runs in a child process of its own (Django is configured once per process): "postgres" is
PostgreSQL + Redis, "embedded" is the `make run` default (SQLite + the embedded Redis). The worker has
concurrency 2; the bots are two uploaded copies of bench/bots/first_legal.py in the bwrap sandbox; the
matches are `bura` with `--rule match=deals:10`. Goals (issues 8 and 11): upload check of a 1 MiB zip under
200 ms, upload to ready under 5 s, ready to first ladder match under 10 s, scheduling under 5 ms per match,
platform throughput at least 0.8x the runner's.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOT = REPO / "bench" / "bots" / "first_legal.py"
OVERRIDES = {"match": "deals:10"}
sys.path.insert(0, str(REPO / "platform"))
from config.celery_settings import QUEUE_ORDER  # noqa: E402

QUEUES = ",".join(QUEUE_ORDER)


def stack_env(stack: str, var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_"))
           and k not in ("DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")}
    env.update({"KOZYR_VAR_DIR": str(var), "KOZYR_LADDER_QUEUE_DEPTH": "1",
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "KOZYR_SEPARATE_ROTATIONS": os.environ.get("KOZYR_SEPARATE_ROTATIONS", "true")})
    if stack == "postgres":
        env.update({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/kozyr_bench_tp",
                    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/14"})
    return env


def prepare_stack(stack: str) -> None:
    if stack != "postgres":
        return
    import psycopg
    import redis

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS kozyr_bench_tp WITH (FORCE)")
        conn.execute("CREATE DATABASE kozyr_bench_tp")
    redis.Redis.from_url("redis://127.0.0.1:6379/14").flushdb()


def one_mib_zip() -> bytes:
    rng = random.Random(1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("main.py", BOT.read_bytes())
        for i in range(16):  # incompressible data: the zip itself is about 1 MiB
            archive.writestr(f"data/table{i:02d}.bin", rng.randbytes(64 * 1024))
    return buffer.getvalue()


def wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def run_stack(stack: str, matches: int) -> dict:
    """Runs inside the child process for one stack."""
    var = Path(tempfile.mkdtemp(prefix=f"kozyr-bench-{stack}-"))
    env = stack_env(stack, var)
    os.environ.update(env)
    for key in [k for k in os.environ if k not in env]:
        if key.startswith(("KOZYR_", "DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT")):
            del os.environ[key]
    prepare_stack(stack)
    subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, check=True,
                   capture_output=True)
    broker = None
    if stack == "embedded":  # what make run starts first: Redis on the folder's socket
        broker = subprocess.Popen([sys.executable, "-m", "config.embedded_broker"], cwd=REPO / "platform", env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait(lambda: (var / "run" / "broker.sock").exists(), 30, "the embedded broker")
    try:
        return measure(stack, matches, var, env)
    finally:
        if broker is not None:
            broker.terminate()
            broker.wait(timeout=30)


def measure(stack: str, matches: int, var: Path, env: dict[str, str]) -> dict:
    import django

    django.setup()
    from accounts.models import User
    from bots.actions import do_create_bot
    from bots.models import Bot, BotVersion
    from bots.upload import check_upload
    from matches.actions import create_duplicate_set
    from matches.models import Match
    from matches.validation import do_upload_version

    figures: dict[str, float] = {"stack": stack}
    data = one_mib_zip()
    timings = []
    for _ in range(15):
        t0 = time.perf_counter()
        check_upload("bot.zip", data)
        timings.append((time.perf_counter() - t0) * 1000)
    figures["upload_check_1mib_ms"] = sorted(timings)[len(timings) // 2]
    figures["upload_zip_bytes"] = len(data)

    Bot.objects.filter(owner__username="kozyr").update(active=False)  # only our two bots on the ladder
    log = open(var / "worker.log", "wb")  # noqa: SIM115
    worker = subprocess.Popen([str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker", "--queues", QUEUES,
                               "--concurrency", "2", "--loglevel", "WARNING", "--without-heartbeat",
                               "--without-mingle", "--without-gossip"], cwd=REPO / "platform", env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        time.sleep(6)  # the worker boots (not part of any figure)
        owner = User.objects.create_user("bench", password="a-long-password-1")
        bots = [do_create_bot(owner, game="bura", name=f"bench-{k}") for k in range(2)]
        t0 = time.monotonic()
        first = do_upload_version(bots[0], check_upload("main.py", BOT.read_bytes()))
        wait(lambda: BotVersion.objects.get(pk=first.pk).status == "ready", 60, "the first validation")
        figures["upload_to_ready_s"] = time.monotonic() - t0
        ready_at = time.monotonic()
        second = do_upload_version(bots[1], check_upload("main.py", BOT.read_bytes() + b"\n"))
        wait(lambda: BotVersion.objects.get(pk=second.pk).status == "ready", 60, "the second validation")
        ready_at = time.monotonic()
        wait(lambda: Match.objects.filter(kind="ladder", seats__version=second, status__in=["running", "finished"])
             .exists(), 60, "the first ladder match")
        figures["ready_to_first_ladder_match_s"] = time.monotonic() - ready_at
        Bot.objects.update(active=False)
        wait(lambda: not Match.objects.filter(status__in=["queued", "running"]).exists(), 120, "the ladder to drain")
        versions = [BotVersion.objects.get(pk=first.pk), BotVersion.objects.get(pk=second.pk)]
        t0 = time.perf_counter()
        made = []
        for _ in range(matches // 2):
            made += create_duplicate_set(kind="challenge", preset="bura", versions=versions, overrides=OVERRIDES)
        figures["scheduling_ms_per_match"] = (time.perf_counter() - t0) * 1000 / len(made)
        ids = [m.pk for m in made]
        wait(lambda: Match.objects.filter(pk__in=ids, status="finished").count() == len(ids), 1800, "the matches")
        rows = Match.objects.filter(pk__in=ids)
        span = (max(m.finished for m in rows) - min(m.started for m in rows)).total_seconds()
        figures["platform_matches_per_minute"] = len(ids) / span * 60
        figures["matches"] = len(ids)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)
        log.close()
    staged = var / "bots"
    staged.mkdir()
    for k in range(2):
        shutil.copy(BOT, staged / f"bot{k}.py")
    t0 = time.monotonic()
    subprocess.run([str(REPO / ".venv" / "bin" / "arena"), "play", "bura", str(staged / "bot0.py"),
                    str(staged / "bot1.py"), "--games", str(matches // 2), "--duplicate", "--concurrency", "2",
                    "--rule", "match=deals:10", "--sandbox", "bwrap", "--quiet"], check=True, capture_output=True)
    figures["runner_matches_per_minute"] = matches / (time.monotonic() - t0) * 60
    figures["platform_vs_runner"] = figures["platform_matches_per_minute"] / figures["runner_matches_per_minute"]
    shutil.rmtree(var, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--stack", choices=("both", "postgres", "embedded"), default="both")
    parser.add_argument("--child", choices=("postgres", "embedded"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_stack(args.child, args.matches)))
        return
    stacks = ("postgres", "embedded") if args.stack == "both" else (args.stack,)
    results = []
    for stack in stacks:
        done = subprocess.run([sys.executable, __file__, "--child", stack, "--matches", str(args.matches)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{stack}: {done.stderr[-3000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    keys = [k for k in results[0] if k != "stack"]
    print(f"{'figure':34}" + "".join(f"{r['stack']:>14}" for r in results))
    for key in keys:
        print(f"{key:34}" + "".join(f"{r[key]:14.2f}" if isinstance(r[key], float) else f"{r[key]:>14}"
                                      for r in results))


if __name__ == "__main__":
    main()
