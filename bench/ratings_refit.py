"""Official rating refit at scale: 1,000,000 generated two-player matches among 10,000 versions.

Strengths are drawn from N(0, 300 Elo); each match is won, drawn or lost with an expected score given by
the Bradley–Terry odds (draws up to 10%, likelier between close versions). Two schedules: opponents drawn
at random (a well-mixed pool), and a ladder where every match pairs versions at most ±50 places apart in
true strength (the way matchmaking by rating pairs them).
Per schedule: building the compact outcomes from id arrays, a cold fit, a warm-started fit (the beat
job's refit, from the previous ratings), the peak resident memory, and how well the fit recovers the
true strengths. ``--general`` also times the general builders (for team and multi-seat presets) on the
same matches: from seat arrays (one row per seat, as a query of seat rows returns) and from one
MatchResult object per match.

    .venv/bin/python bench/ratings_refit.py --matches 1000000 --versions 10000
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "platform"))

from ratings.fit import fit
from ratings.outcomes import MatchResult, Outcomes
from ratings.scale import ELO_PER_NAT


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate(matches: int, versions: int, ladder: bool, seed: int):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 300 / ELO_PER_NAT, versions)
    order = np.argsort(strength)
    if ladder:
        place = rng.integers(0, versions, matches)
        other = np.clip(place + rng.integers(-50, 51, matches), 0, versions - 1)
        first, second = order[place], order[other]
    else:
        first, second = rng.integers(0, versions, matches), rng.integers(0, versions, matches)
    p = 1 / (1 + np.exp(strength[second] - strength[first]))
    # draws are likelier between close versions; a draw is half a win, so the expected score stays p
    draw = 0.2 * np.minimum(p, 1 - p)
    u = rng.random(matches)
    score = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
    return strength, first, second, score


def run(label: str, matches: int, versions: int, ladder: bool, general: bool) -> None:
    strength, first, second, score = generate(matches, versions, ladder, seed=7)
    ids = np.arange(matches)
    start, cpu = time.perf_counter(), time.process_time()
    outcomes = Outcomes.from_pairs(ids, first, second, score)
    built, built_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    cold = fit(outcomes)
    cold_s, cold_cpu = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    warm = fit(outcomes, previous=cold.elo())
    warm_s = time.perf_counter() - start
    elo = cold.elo()
    rated = np.array(sorted(elo))
    estimate = np.array([elo[v] for v in rated])
    truth = strength[rated] * ELO_PER_NAT
    error = estimate - estimate.mean() - (truth - truth.mean())
    widths = np.array([cold.rating(v).half_width for v in rated])
    covered = np.mean(np.abs(error) <= widths)
    print(f"{label:<8} build {built:5.2f} s  cold fit {cold_s:5.2f} s ({cold.iterations} Newton steps)  "
          f"warm refit {warm_s:5.2f} s ({warm.iterations})  total cold {built + cold_s:5.2f} s "
          f"(CPU {built_cpu + cold_cpu:5.2f} s)  peak RSS {peak_mb():6.0f} MB")
    print(f"{'':<8} rated {len(rated)}  rms error {np.sqrt(np.mean(error ** 2)):5.1f} Elo  "
          f"median ±{np.median(widths):4.1f}  95% intervals cover {100 * covered:4.1f}%  "
          f"dispersion {cold.dispersion:.3f}")
    if general:
        start = time.perf_counter()
        seats = Outcomes.from_seats(np.repeat(ids, 2), np.stack([first, second], axis=1).ravel(),
                                    np.stack([np.where(score == 0, 2, 1), np.where(score == 1, 2, 1)], axis=1).ravel())
        print(f"{'':<8} general builders: seat arrays {time.perf_counter() - start:5.2f} s for {2 * matches} seat rows",
              end="")
        start = time.perf_counter()
        results = {int(i): MatchResult(seats=(int(a), int(b)), ranks=(1, 2) if s == 1 else (2, 1) if s == 0 else (1, 1))
                   for i, a, b, s in zip(ids, first, second, score, strict=True)}
        made = time.perf_counter() - start
        start = time.perf_counter()
        same = Outcomes.from_results(results)
        print(f"; MatchResults {time.perf_counter() - start:5.2f} s (making them {made:.2f} s)  "
              f"peak RSS {peak_mb():6.0f} MB; same outcomes: {bool(np.array_equal(same.score, seats.score))}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--versions", type=int, default=10_000)
    parser.add_argument("--general", action="store_true", help="also time the general MatchResult builder")
    args = parser.parse_args(argv)
    print(f"{args.matches} matches among {args.versions} versions")
    run("random", args.matches, args.versions, ladder=False, general=args.general)
    run("ladder", args.matches, args.versions, ladder=True, general=False)


if __name__ == "__main__":
    main()
