"""Server time of the API and the pages with 10,000 bots and 1,000,000 matches in PostgreSQL.

    .venv/bin/python bench/platform_load.py [--bots 10000] [--matches 1000000] [--requests 60] [--keep]

Builds a database ``kozyr_bench`` (dropped and re-created unless --keep and it exists), fills it with
generated rows by COPY (users, bots with one ready version each, finished ranked bura matches with two seats,
ratings), then times requests in-process through Django's test client (server time: routing, queries,
serialisation, templates; no network) and prints p50/p95 per endpoint, with the query count of one request.
Goals: API lists under 50 ms (issue 8), leaderboard and head-to-head p95 under 50 ms (issue 12), leaderboard,
bot and match pages p95 under 100 ms (issue 14), the match list (/matches/, issue 36) as fast as the other lists.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DB = "kozyr_bench"


def setup_django(db_name: str) -> None:
    sys.path.insert(0, str(REPO / "platform"))
    os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{db_name}"
    os.environ.setdefault("KOZYR_VAR_DIR", "/tmp/kozyr-bench-var")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()


def recreate_database(keep: bool) -> bool:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB,)).fetchone()
        if exists and keep:
            return False
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    return True


def copy_rows(cursor, table: str, columns: list[str], rows) -> None:
    buffer = io.StringIO()
    for row in rows:
        buffer.write("\t".join("\\N" if v is None else str(v) for v in row) + "\n")
    buffer.seek(0)
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        while chunk := buffer.read(1 << 20):
            copy.write(chunk)


def generate(bots: int, matches: int) -> None:
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from bots.actions import ensure_house_bots

    ensure_house_bots()
    rng = random.Random(7)
    now = "2026-12-01 00:00:00+00"
    started = time.perf_counter()
    with connection.cursor() as cur:
        raw = cur.cursor
        cur.execute("SELECT COALESCE(MAX(id), 0) FROM accounts_user")
        base_user = cur.fetchone()[0] + 1
        users = max(1, bots // 10)
        copy_rows(raw, "accounts_user", ["id", "password", "is_superuser", "username", "first_name", "last_name",
                                         "email", "is_staff", "is_active", "date_joined", "suspended_reason"],
                  ((base_user + i, "!", "f", f"user{i}", "", "", "", "f", "t", now, "") for i in range(users)))
        cur.execute("SELECT COALESCE(MAX(id), 0) FROM bots_bot")
        base_bot = cur.fetchone()[0] + 1
        cur.execute("SELECT COALESCE(MAX(id), 0) FROM bots_botversion")
        base_version = cur.fetchone()[0] + 1
        copy_rows(raw, "bots_bot", ["id", "owner_id", "game", "name", "description", "presets", "active",
                                    "suspended_reason", "suspended_by", "created", "updated", "kind", "open_data"],
                  ((base_bot + i, base_user + i % users, "bura", f"bot{i:05d}", "generated", "[]", "t", "", "", now,
                    now, "bot", "t") for i in range(bots)))
        copy_rows(raw, "bots_botversion", ["id", "bot_id", "number", "sha256", "size", "filename", "builtin", "entry",
                                           "runtime", "status", "retired", "reason", "created", "language",
                                           "build_sha256", "build_size"],
                  ((base_version + i, base_bot + i, 1, f"{i:064x}", 1000, "main.py", "", '["python3", "main.py"]',
                    "python3", "ready", "f", "", now, "python", "", 0) for i in range(bots)))
        cur.execute("UPDATE bots_bot SET current_version_id = id - %s + %s WHERE id >= %s",
                    [base_bot, base_version, base_bot])
        strength = [rng.gauss(0, 1) for _ in range(bots)]
        cur.execute("SELECT COALESCE(MAX(id), 0) FROM matches_match")
        base_match = cur.fetchone()[0] + 1
        pairs = []
        for _ in range(matches):
            a = rng.randrange(bots)
            b = (a + 1 + min(bots - 2, int(abs(rng.gauss(0, 40))))) % bots
            pairs.append((a, b, 1 if rng.random() < 1 / (1 + 10 ** (strength[b] - strength[a])) else 2))
        copy_rows(raw, "matches_match", ["id", "kind", "status", "ranked", "game", "preset", "overrides",
                                         "time_control", "base_seed", "duplicate_set", "rotation", "attempts",
                                         "lease_owner", "created", "started", "finished", "result",
                                         "replay_sha256", "replay_size", "failure", "published_at", "open_seats",
                                         "sandboxed_seats"],
                  ((base_match + m, "ladder", "finished", "t", "bura", "bura", "{}", "{}", rng.getrandbits(62),
                    uuid.UUID(int=rng.getrandbits(128)), 0, 1, "", now, now, now,
                    '{"ended_by": "rules", "teams": [[0], [1]], "points": [0, 12], "points_kind": "penalty"}', "", 0,
                    "", now, "f", "t") for m, _ in enumerate(pairs)))
        copy_rows(raw, "matches_seat", ["match_id", "seat", "version_id", "verdict", "code", "detail", "rank",
                                        "score", "decisions", "log_sha256", "log_size", "think_ms", "worker_ms"],
                  (row for m, (a, b, winner) in enumerate(pairs) for row in (
                      (base_match + m, 0, base_version + a, "ok", "", "", 1 if winner == 1 else 2, 0, 20, "", 0,
                       20, 40),
                      (base_match + m, 1, base_version + b, "ok", "", "", 1 if winner == 2 else 2, 12, 20, "", 0,
                       20, 40))))
        wins = [0] * bots
        games = [0] * bots
        for a, b, winner in pairs:
            games[a] += 1
            games[b] += 1
            wins[a if winner == 1 else b] += 1
        copy_rows(raw, "ratings_rating", ["version_id", "bot_id", "preset", "live_mu", "live_sigma", "games", "wins",
                                          "draws", "losses", "score", "last_played", "official", "official_low",
                                          "official_high", "provisional", "los_next", "fitted_at", "is_current",
                                          "board"],
                  ((base_version + i, base_bot + i, "bura", 25 + 3 * strength[i], 1.0, games[i], wins[i], 0,
                    games[i] - wins[i], wins[i], now, 1500 + 200 * strength[i], 1480 + 200 * strength[i],
                    1520 + 200 * strength[i], "f", 0.6, now, "t", 1500 + 200 * strength[i]) for i in range(bots)))
        cur.execute("ANALYZE")
    print(f"generated {bots} bots and {matches} matches in {time.perf_counter() - started:.0f} s")


def timed(client, path: str, requests: int) -> tuple[float, float, int]:
    from django.db import connection

    client.get(path)  # warm
    captured = []

    def count(execute, sql, params, many, context):
        captured.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        client.get(path)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], len(captured)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--keep", action="store_true", help="reuse kozyr_bench if it exists")
    args = parser.parse_args()
    fresh = recreate_database(args.keep)
    setup_django(DB)
    if fresh:
        generate(args.bots, args.matches)
    from django.test import Client

    from matches.models import Match

    client = Client()
    middle = Match.objects.order_by("id").values_list("id", flat=True)[Match.objects.count() // 2]
    paths = [
        ("API bots, page 1", "/api/v1/bots/"),
        ("API bots, search", "/api/v1/bots/?search=bot012"),
        ("API bots, by game", "/api/v1/bots/?game=bura&page=20"),
        ("API matches, page 1", "/api/v1/matches/"),
        ("API matches of a bot", "/api/v1/matches/?bot=bot00042"),
        ("API leaderboard", "/api/v1/leaderboards/bura/"),
        ("API leaderboard, page 20", "/api/v1/leaderboards/bura/?page=20"),
        ("API head-to-head", "/api/v1/head-to-head/?a=bot00042&b=bot00043&preset=bura"),
        ("page: leaderboard", "/games/bura/"),
        ("page: leaderboard, search", "/games/bura/?q=bot0999"),
        ("page: bot", "/bots/bot00042/"),
        ("page: match", f"/matches/{middle}/"),
        ("page: matches, first page", "/matches/"),
        ("page: matches, older page", f"/matches/?before={middle}"),
        ("page: matches of a bot", "/matches/?bot=bot00042"),
        ("page: matches of a bot, won", "/matches/?bot=bot00042&result=won"),
        ("page: matches, bot v opponent", "/matches/?bot=bot00042&opponent=bot00043"),
        ("page: matches, preset and date", "/matches/?preset=bura&kind=ladder&since=2026-11-30&until=2026-12-01"),
    ]
    print(f"{'request':30} {'p50 ms':>8} {'p95 ms':>8} {'queries':>8}")
    for label, path in paths:
        p50, p95, queries = timed(client, path, args.requests)
        print(f"{label:30} {p50:8.1f} {p95:8.1f} {queries:8d}")


if __name__ == "__main__":
    main()
