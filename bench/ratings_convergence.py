"""How many ladder games each rating method needs to recover the true order of 16 graded bots.

The bots are greedy with probability p and random otherwise (arena/bots/graded.py; p = 0 is ``random``,
p = 1 ``greedy``), so their true order is known. Step 1 calibrates a model from real engine matches:
a round robin of duplicate pairs between the 16 bots, played in-process by the real engine, is fitted with
the official fit; a quadratic Elo(p) through those ratings (made non-decreasing) is the strength curve,
and the 16 bots of the simulation are the p values whose strengths are evenly spaced along it, so their
order is the order of p. The draw rate is measured too. Step 2 simulates the continuous ladder from
that model many times: every game pairs the bot with the fewest games with a random other bot
(``--matchmaking close``: one of the three closest by live rating), and its result is drawn from the
Bradley–Terry odds. After every ``--every`` games each method's ratings are compared with the true order
(Kendall tau). A method has converged at the first checkpoint from which tau stays ≥ 0.9 to the end of
the run; also reported: the first checkpoint at tau ≥ 0.9, and the share of the second half of the run
spent at tau ≥ 0.9 (a noisy method reaches the order early and then keeps losing it).

Methods: the official fit (ratings/fit.py) on all games so far; incremental Elo with K = 16 and K = 32
(the usual ladder update, ratings starting at 1500); and the live OpenSkill rating (ratings/live.py).

    .venv/bin/python bench/ratings_convergence.py --preset bura --runs 20 --games 6000
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "platform"))

from arena.bots import bots_for
from arena.bots.graded import GradedBot
from arena.cards import derive_seed
from arena.games import all_presets, new_match
from ratings import live
from ratings.fit import fit
from ratings.outcomes import Outcomes
from ratings.scale import expected_score

LEVELS = 16
TAU = 0.9


def play(game: str, rules, seed: int, grades: list[float]) -> list[int]:
    """One real match between graded bots (one per seat), in-process; the seats' ranks."""
    base = bots_for(game)
    state = new_match(rules, seed)
    bots = [GradedBot(base, p, seat, rules, derive_seed(seed, 7, seat)) for seat, p in enumerate(grades)]
    while not state.is_over():
        seat = state.to_move()
        state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))
    return state.outcome()["ranks"]


def calibrate(preset: str, pairs: int) -> tuple[np.ndarray, float, int]:
    """(true Elo per level, draw rate, matches played) from a round robin of real duplicate pairs."""
    game, rules = all_presets()[preset]
    if rules.players != 2:
        raise SystemExit(f"{preset} has {rules.players} seats; calibrate on a two-seat preset")
    grades = [k / (LEVELS - 1) for k in range(LEVELS)]
    ids, first, second, score = [], [], [], []
    for i in range(LEVELS):
        for j in range(i + 1, LEVELS):
            for k in range(pairs):
                seed = derive_seed(2026, i, j, k)
                for a, b in ((i, j), (j, i)):  # the same deal with the seats swapped
                    ranks = play(game, rules, seed, [grades[a], grades[b]])
                    ids.append(len(ids))
                    first.append(a)
                    second.append(b)
                    score.append(1.0 if ranks[0] < ranks[1] else 0.5 if ranks[0] == ranks[1] else 0.0)
    ratings = fit(Outcomes.from_pairs(ids, first, second, score))
    measured = np.array([ratings.rating(k).rating for k in range(LEVELS)])
    # Strength grows faster near p = 1 (greedy's moves matter most when all of them are greedy's): a
    # quadratic in p, made non-decreasing, then the 16 bots are the p values evenly spaced in strength.
    grid = np.linspace(0, 1, 1001)
    curve = np.maximum.accumulate(np.polyval(np.polyfit(grades, measured, 2), grid))
    if curve[-1] - curve[0] <= 0:
        raise SystemExit("the calibration found no strength gradient; play more pairs")
    true = np.linspace(curve[0], curve[-1], LEVELS)
    levels = np.interp(true, curve, grid)
    levels[0] = 0.0  # the weakest strength on the curve is random's (p below where the curve rises is no better)
    print(f"calibration on {preset}: {len(ids)} real matches; fitted Elo at p = k/15: "
          + " ".join(f"{v:.0f}" for v in measured))
    print(f"  bots: greedy with p = {' '.join(f'{p:.2f}' for p in levels)}")
    print(f"  true strengths {true[1] - true[0]:.0f} Elo apart ({true[-1] - true[0]:.0f} from the weakest to greedy); "
          f"draws {100 * score.count(0.5) / len(score):.1f}%")
    return true, score.count(0.5) / len(score), len(ids)


def simulate(true: np.ndarray, draw_rate: float, games: int, every: int, seed: int, close: bool) -> dict:
    rng = random.Random(seed)
    n = len(true)
    truth_order = np.arange(n)
    played = [0] * n
    elo = {16: [1500.0] * n, 32: [1500.0] * n}
    skills = {k: live.initial() for k in range(n)}
    first, second, score = [], [], []
    taus: dict[str, list[float]] = {"official fit": [], "Elo K=16": [], "Elo K=32": [], "live OpenSkill": []}
    for g in range(1, games + 1):
        low = min(played)
        a = rng.choice([k for k in range(n) if played[k] == low])
        others = [k for k in range(n) if k != a]
        if close:  # issue 11's matchmaking: one of the three nearest by live rating
            others = sorted(others, key=lambda k: abs(skills[k].mu - skills[a].mu))[:3]
        b = rng.choice(others)
        p = expected_score(true[a] - true[b])
        draw = 2 * draw_rate * min(p, 1 - p)  # draws likelier between close bots; the expected score stays p
        u = rng.random()
        s = 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0
        played[a] += 1
        played[b] += 1
        first.append(a)
        second.append(b)
        score.append(s)
        for k, ratings in elo.items():
            e = expected_score(ratings[a] - ratings[b])
            ratings[a] += k * (s - e)
            ratings[b] -= k * (s - e)
        ranks = [1, 2] if s == 1 else [2, 1] if s == 0 else [1, 1]
        skills.update(live.rate_match(skills, [a, b], ranks))
        if g % every == 0:
            official = fit(Outcomes.from_pairs(np.arange(g), first, second, score))
            values = {"official fit": [official.rating(k).rating if k in official else 1500.0 for k in range(n)],
                      "Elo K=16": elo[16], "Elo K=32": elo[32],
                      "live OpenSkill": [skills[k].mu for k in range(n)]}
            for name, v in values.items():
                taus[name].append(kendalltau(truth_order, v).statistic)
    result = {}
    for name, series in taus.items():
        converged = None
        for i in range(len(series) - 1, -1, -1):
            if series[i] < TAU:
                break
            converged = (i + 1) * every
        first = next(((i + 1) * every for i, tau in enumerate(series) if tau >= TAU), None)
        late = series[len(series) // 2:]
        result[name] = (converged, first, sum(t >= TAU for t in late) / len(late))
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bura", help="two-seat preset the model is calibrated on")
    parser.add_argument("--pairs", type=int, default=6, help="duplicate pairs per pair of levels (calibration)")
    parser.add_argument("--runs", type=int, default=20, help="simulated ladders")
    parser.add_argument("--games", type=int, default=6000, help="games per simulated ladder")
    parser.add_argument("--every", type=int, default=32, help="games between two checks of the order")
    parser.add_argument("--matchmaking", choices=["random", "close"], default="random",
                        help="opponent of the bot with the fewest games: any other bot, or one of the three "
                             "closest by live rating")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    true, draw_rate, _ = calibrate(args.preset, args.pairs)
    print(f"  ({time.perf_counter() - start:.0f} s)")
    start = time.perf_counter()
    close = args.matchmaking == "close"
    results = [simulate(true, draw_rate, args.games, args.every, seed, close) for seed in range(args.runs)]
    print(f"{args.runs} simulated ladders ({args.matchmaking} opponents) of {args.games} games, "
          f"order checked every {args.every} games "
          f"({time.perf_counter() - start:.0f} s); games until Kendall tau stays >= {TAU}:")
    print(f"  {'method':<16} {'converged':>10} {'median':>8} {'25%':>7} {'75%':>7}   {'first reached (median)':>22}"
          f"   {'2nd half at tau>=0.9':>20}")
    for name in results[0]:
        values = [r[name][0] for r in results]
        done = sorted(v for v in values if v is not None)
        # a run that never converged counts as more than the whole run, so it sorts last
        ranked = np.array(done + [math.inf] * (len(values) - len(done)))
        q = [np.percentile(ranked, x, method="lower") for x in (50, 25, 75)]
        cells = [f">{args.games}" if math.isinf(v) else f"{v:.0f}" for v in q]
        firsts = np.array([math.inf if r[name][1] is None else r[name][1] for r in results])
        first = np.percentile(firsts, 50, method="lower")
        late = np.mean([r[name][2] for r in results])
        print(f"  {name:<16} {len(done):>4}/{len(values):<5} {cells[0]:>8} {cells[1]:>7} {cells[2]:>7}   "
              f"{'never' if math.isinf(first) else f'{first:.0f}':>22}   {100 * late:>19.0f}%")


if __name__ == "__main__":
    main()
