"""``arena analyse``'s cost and stability: CPU seconds per match, and how far two search seeds agree.

Plays ``--matches`` matches of a preset between two built-in bots (seeded, so the same matches every run),
analyses every seat of each with two search seeds, and prints per match the decisions analysed, the CPU
seconds of one analysis, and the blunders each seed marked. Agreement is the share of decisions marked a
blunder by either seed that both marked (the intersection over the union, over all matches), and the
share of all analysed decisions on whose mark (any of the three, or none) the two seeds agree.

    .venv/bin/python bench/analysis.py --preset bura --matches 5 --bots greedy,greedy-p75 --budget 40

``--par`` also times ``arena.par`` (the strongest search level in each seat against the same built-in bots),
the other half of the site's analysis job, and prints the CPU seconds of one seat's whole job.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena import cli
from arena import replay as replays
from arena.analysis import DEFAULT_BUDGET, analyse
from arena.par import par


def replays_of(preset: str, names: list[str], matches: int, folder: Path) -> list[Path]:
    """``matches`` seeded matches between built-in bots, played by ``arena play`` (so real replays)."""
    code = cli.main(["play", preset, *(f"builtin:{n}" for n in names), "--games", str(matches), "--seed", "77",
                     "--replays", str(folder), "--quiet"])
    if code != 0:
        raise SystemExit(f"arena play failed ({code})")
    return sorted(folder.iterdir())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--bots", default="greedy,greedy-p75", help="comma-separated built-in bots, seated in turn")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="playouts per candidate action")
    parser.add_argument("--par", action="store_true", help="time par too, and the site's job for one seat")
    args = parser.parse_args(argv)
    names = args.bots.split(",")
    union = both = decisions = same_mark = 0
    seconds = []
    par_seconds = []  # one seat's par run each
    print(f"{'match':>5} {'decisions':>9} {'CPU s':>6} {'blunders (seed 1 / seed 2 / both)':>34}")
    with tempfile.TemporaryDirectory(prefix="kozyr-analysis-") as folder:
        loaded = [replays.load(p) for p in replays_of(args.preset, names, args.matches, Path(folder))]
    for i, replay in enumerate(loaded):
        start = time.process_time()
        first = analyse(replay, budget=args.budget, seed=1)
        seconds.append(time.process_time() - start)
        second = analyse(replay, budget=args.budget, seed=2)
        marks = [{d["index"]: d["mark"] for d in run["decisions"]} for run in (first, second)]
        blunders = [{k for k, mark in m.items() if mark == "blunder"} for m in marks]
        union += len(blunders[0] | blunders[1])
        both += len(blunders[0] & blunders[1])
        decisions += len(marks[0])
        same_mark += sum(marks[0][k] == marks[1].get(k) for k in marks[0])
        if args.par:
            for seat in range(len(replay["seats"])):
                start = time.process_time()
                par(replay, seat, names, seed=1)
                par_seconds.append(time.process_time() - start)
        print(f"{i:>5} {len(marks[0]):>9} {seconds[-1]:>6.1f} "
              f"{f'{len(blunders[0])} / {len(blunders[1])} / {len(blunders[0] & blunders[1])}':>34}")
    print(f"{args.preset}, budget {args.budget}: {sum(seconds) / len(seconds):.1f} CPU s per match analysed "
          f"({decisions / args.matches:.0f} decisions); blunders agreed {100 * both / max(1, union):.0f}% "
          f"({both} of {union}); marks agreed on {100 * same_mark / max(1, decisions):.0f}% of decisions")
    if par_seconds:
        seats = len(par_seconds) / len(loaded)
        per_seat = sum(seconds) / len(seconds) / seats
        print(f"par: {sum(par_seconds) / len(par_seconds):.1f} CPU s a seat; the site's job for one seat (its "
              f"analysis and its par): {per_seat + sum(par_seconds) / len(par_seconds):.1f} CPU s")


if __name__ == "__main__":
    main()
