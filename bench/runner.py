"""Runner throughput: matches per second between two external Python bots, concurrency 1 vs 2.

    .venv/bin/python bench/runner.py [--games 40] [--preset bura] [--sandbox unsafe|bwrap]

Goal on the 2-core machine: concurrency 2 gives at least 1.8x the throughput of concurrency 1.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena.botspec import parse_bot
from arena.referee import TimeControl
from arena.runner import build_schedule, run_schedule

BOT = Path(__file__).resolve().parent / "bots" / "first_legal.py"


def throughput(preset: str, games: int, concurrency: int, backend: str) -> float:
    with tempfile.TemporaryDirectory() as staging:
        bots = [parse_bot(str(BOT), Path(staging), []), parse_bot(str(BOT), Path(staging), [])]
        schedule = build_schedule(preset=preset, overrides={}, bots=bots, games=games, base_seed=5,
                                  duplicate=False, time_control=TimeControl(), sandbox=backend)
        started = time.perf_counter()
        results = list(run_schedule(schedule, concurrency))
        elapsed = time.perf_counter() - started
    assert all(s["verdict"] == "ok" for r, _ in results for s in r["seats"])
    return games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--sandbox", default="unsafe", choices=("unsafe", "bwrap"))
    args = parser.parse_args()
    one = throughput(args.preset, args.games, 1, args.sandbox)
    two = throughput(args.preset, args.games, 2, args.sandbox)
    print(f"preset {args.preset}, {args.games} matches, two external Python bots, sandbox {args.sandbox}")
    print(f"concurrency 1: {one:6.2f} matches/s")
    print(f"concurrency 2: {two:6.2f} matches/s")
    print(f"speed-up: {two / one:.2f}x (goal: at least 1.8x)")


if __name__ == "__main__":
    main()
