"""Swiss pairing speed: time to pair each round of an N-entrant Swiss with random results, for Kozyr's
weighted pairer (what `auto` uses above 64 entrants) and the FIDE Dutch engine of py4swiss.

    .venv/bin/python bench/pairing.py [--entrants 512] [--rounds 9] [--dutch-entrants 64,128,512] [--dutch-rounds 3]

Also times the weighted pairer as one matching over the whole field (no blocks), for comparison.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "platform"))

from tournaments.pairing import weighted
from tournaments.pairing.records import Result, bye
from tournaments.pairing.swiss import pair_round


def round_times(entrants: int, rounds: int, engine: str, seed: int) -> list[float]:
    rng = random.Random(seed)
    field = [f"bot{i:04d}" for i in range(entrants)]
    results: list[Result] = []
    times = []
    for r in range(1, rounds + 1):
        start = time.perf_counter()
        paired = pair_round(field, results, total_rounds=rounds, engine=engine)
        times.append(time.perf_counter() - start)
        # win/draw/loss in the proportions of a card game with few draws
        results += [Result(r, p.first, p.second, rng.choices([1.0, 0.5, 0.0], [45, 10, 45])[0])
                    for p in paired.pairings]
        results += [bye(r, b) for b in paired.byes]
    return times


def report(label: str, entrants: int, times: list[float]) -> None:
    ms = [t * 1000 for t in times]
    print(f"| {label} | {entrants} | {len(ms)} | {statistics.median(ms):.0f} | {max(ms):.0f} | "
          f"{' '.join(f'{t:.0f}' for t in ms)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entrants", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--dutch-entrants", default="64,128,512")
    parser.add_argument("--dutch-rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("| engine | entrants | rounds | median ms/round | worst ms/round | each round (ms) |")
    print("|---|---:|---:|---:|---:|---|")
    report("weighted", args.entrants, round_times(args.entrants, args.rounds, "weighted", args.seed))
    block, weighted.BLOCK = weighted.BLOCK, 10**9
    report("weighted, one matching (no blocks)", args.entrants,
           round_times(args.entrants, args.dutch_rounds, "weighted", args.seed))
    weighted.BLOCK = block
    for n in (int(x) for x in args.dutch_entrants.split(",") if x):
        report("dutch (py4swiss)", n, round_times(n, args.dutch_rounds, "dutch", args.seed))


if __name__ == "__main__":
    main()
