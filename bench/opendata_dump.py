"""Time and peak memory of building one open-data dump of a million matches (issue 39: under 10 minutes and
500 MiB on the 2-core machine).

    .venv/bin/python bench/opendata_dump.py [--bots 10000] [--matches 1000000] [--replays 200] [--keep]

Builds a database ``kozyr_bench_opendata`` with bench/platform_load.py's fixture (users, bots, finished ranked
bura matches with two seats, ratings), plays ``--replays`` real bura matches with built-in bots and stores their
replays as blobs, points every match at one of them (a dump copies each match's stored replay, so the bytes
moved are a real month's), adds an official rating snapshot per version, then builds the dump of the month
(opendata.build.build, as the beat job's task does) and prints its wall time, the process's peak resident
memory (before and after), the files' sizes and the throughput.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import platform_load  # bench/ is a folder of scripts, not a package

DB = "kozyr_bench_opendata"
REPO = Path(__file__).resolve().parent.parent


def peak_mib() -> float:
    """This process's peak resident memory. VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over
    fork and exec, so a process started by the fixture's would report the fixture's peak."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status: this figure needs Linux")


def recreate(keep: bool) -> bool:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB,)).fetchone()
        if exists and keep:
            return False
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    return True


def database_defaults() -> None:
    """Every NOT NULL column of the fixture's tables gets its model field's default in the database too, so that
    platform_load's COPY of the columns it names keeps working as the models gain fields."""
    from django.apps import apps
    from django.db import connection
    from psycopg import sql
    from psycopg.types.json import Jsonb

    raw = connection.cursor().cursor.connection
    with connection.cursor() as cur:
        for label in ("accounts.User", "bots.Bot", "bots.BotVersion", "matches.Match", "matches.Seat"):
            model = apps.get_model(label)
            for field in model._meta.concrete_fields:
                if field.null or field.primary_key:
                    continue
                value = field.get_default()  # a text field without one: ""
                if value is None:
                    continue
                literal = Jsonb(value) if field.get_internal_type() == "JSONField" else value
                cur.execute(sql.SQL("ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {}").format(
                    sql.Identifier(model._meta.db_table), sql.Identifier(field.column),
                    sql.Literal(literal)).as_string(raw))


def attach_replays(count: int) -> None:
    """Real replays for the fixture's matches: ``count`` bura matches played here, match i gets replay i % count."""
    from django.db import connection

    from bots import blobs
    from bots.models import BotVersion
    from ratings.models import RatingSnapshot, Refit

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([str(REPO / ".venv/bin/arena"), "play", "bura", "builtin:greedy", "builtin:random", "--games",
                        str(count), "--seed", "39", "--replays", folder, "--quiet"], check=True)
        stored = [(i, blobs.put("replays", path.read_bytes()), path.stat().st_size)
                  for i, path in enumerate(sorted(Path(folder).glob("*.json.gz")))]
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE bench_replays (k integer, sha text, size integer)")
        cur.executemany("INSERT INTO bench_replays VALUES (%s, %s, %s)", stored)
        cur.execute("UPDATE matches_match m SET replay_sha256 = r.sha, replay_size = r.size FROM bench_replays r "
                    "WHERE r.k = m.id %% %s", [len(stored)])
        cur.execute("ANALYZE")
    refit = Refit.objects.create(preset="bura", matches=0, rated=0, seconds=0)
    at = datetime(2026, 11, 30, tzinfo=UTC)
    RatingSnapshot.objects.bulk_create(
        (RatingSnapshot(refit=refit, version_id=v, bot_id=b, preset="bura", at=at, rating=1500.0, low=1450.0,
                        high=1550.0, games=10) for v, b in BotVersion.objects.values_list("pk", "bot_id")),
        batch_size=5000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--replays", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="reuse kozyr_bench_opendata if it exists")
    args = parser.parse_args()
    os.environ.setdefault("KOZYR_VAR_DIR", "/tmp/kozyr-bench-opendata-var")
    fresh = recreate(args.keep)
    platform_load.setup_django(DB)
    if fresh:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        database_defaults()
        platform_load.generate(args.bots, args.matches)
        started = time.perf_counter()
        attach_replays(args.replays)
        print(f"attached {args.replays} real replays in {time.perf_counter() - started:.0f} s")
        # The build in a process of its own: its peak memory is then the build's, not the fixture's.
        sys.stdout.flush()
        raise SystemExit(subprocess.run([sys.executable, __file__, "--keep"]).returncode)
    from opendata import build
    from opendata.models import Dump

    Dump.objects.all().delete()
    dump = Dump.objects.create(preset="bura", month=date(2026, 12, 1))
    before = peak_mib()
    started, cpu = time.perf_counter(), time.process_time()
    assert build.build(dump.pk) == "ready"
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    dump.refresh_from_db()
    print(f"dump of {dump.matches:,} matches: {seconds:.0f} s ({dump.matches / seconds:,.0f} matches/s); peak RSS "
          f"{before:.0f} MiB before the build (Django loaded), {peak_mib():.0f} MiB after; this process's CPU "
          f"{cpu:.0f} s (PostgreSQL's apart), load average {os.getloadavg()[0]:.1f}")
    print(f"replays {dump.replays_size / 2**20:,.0f} MiB, index {dump.index_size / 2**20:,.1f} MiB, "
          f"withheld {dump.withheld}")


if __name__ == "__main__":
    main()
