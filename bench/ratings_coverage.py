"""How often the official 95% intervals cover the true ratings, by table size: simulated matches, known truth.

Every run is one preset's worth of ranked matches among 16 versions whose true ratings are evenly spaced
over 600 Elo; each version plays about ``--games`` matches against random opponents, and the official fit
(ratings/fit.py) is asked for each version's rating and 95% interval. An interval covers when it holds
the version's true rating relative to the mean of the 16 (the fit's anchor). Table shapes:

- 2 seats: Bradley–Terry results, draws up to 20% (likelier between close versions, the expected score
  stays the Bradley–Terry odds);
- 2 seats, duplicate pairs: the same deal twice with the seats swapped; 70% of deals decide both games
  against one seat (the set splits unless the versions differ), each game still won with the Bradley–Terry
  odds, so the luck cancels within the set, the unit;
- 3, 4 and 6 seats, free for all: each seat's performance is its rating plus Gumbel noise and the ranks
  follow it (a Plackett–Luce ranking, so every pair of seats is ordered with the Bradley–Terry odds);
- 3 seats, duplicate sets: the same three versions in the three rotations of their seats, one unit;
- 2 × 2 teams: four versions, the team with the higher mean rating wins with the Bradley–Terry odds of the
  means.

Estimators: the official one (dispersion clustered by unit, the match or duplicate set), the per-comparison
one it replaced (every outcome row its own unit, as if a match's comparisons were separate games), and,
for the record, a per-version sandwich H⁻¹JH⁻¹ (the data's information H, the units' score products J),
which the fit does not use. Outcomes do not record each row's unit, so the bench recovers it with the real
builder (every version gets a key of its own in each unit, then the keys are folded back).

    .venv/bin/python bench/ratings_coverage.py --runs 200 --games 12 50
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import linalg, sparse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "platform"))

from ratings.fit import fit
from ratings.outcomes import Outcomes
from ratings.scale import BASE, ELO_PER_NAT, Z95

VERSIONS = 16
SPREAD = 600.0  # Elo from the weakest version to the strongest
DRAW_RATE = 0.2  # two seats: the draw probability between equal versions
DECIDED = 0.7  # duplicate pairs: the share of deals that decide both games against one seat

# name → (seats per match, matches per unit)
SETUPS = {
    "2 seats": (2, 1),
    "2 seats, duplicate pairs": (2, 2),
    "3 seats": (3, 1),
    "4 seats": (4, 1),
    "6 seats": (6, 1),
    "3 seats, duplicate sets": (3, 3),
    "2 × 2 teams": (4, 1),
}


def simulate(setup: str, games: int, rng: np.random.Generator):
    """Seat arrays (match id, version, rank, team, unit per seat) of one run; ``games`` matches per version."""
    seats, per_unit = SETUPS[setup]
    true = np.linspace(-SPREAD / 2, SPREAD / 2, VERSIONS) / ELO_PER_NAT
    units = max(1, round(games * VERSIONS / (seats * per_unit)))
    table = np.argsort(rng.random((units, VERSIONS)), axis=1)[:, :seats]  # distinct versions per unit
    if per_unit == 3:  # the three rotations of the seats
        table = np.stack([np.roll(table, r, axis=1) for r in range(3)], axis=1).reshape(-1, seats)
    elif per_unit == 2:  # the same deal with the seats swapped
        table = np.stack([table, table[:, ::-1]], axis=1).reshape(-1, seats)
    matches = len(table)
    strength = true[table]
    team = np.broadcast_to(np.arange(seats), table.shape)
    if setup == "2 × 2 teams":
        team = np.broadcast_to(np.arange(seats) % 2, table.shape)
        p = 1 / (1 + np.exp(strength[:, 1::2].mean(axis=1) - strength[:, 0::2].mean(axis=1)))
        first_won = rng.random(matches) < p
        ranks = np.where(first_won[:, None], 1 + team, 2 - team)
    elif seats == 2:
        p = 1 / (1 + np.exp(strength[:, 1] - strength[:, 0]))
        u = rng.random(matches)
        if per_unit == 2:  # a decided deal: the second game's draw is the mirror of the first's
            mirrored = np.repeat(rng.random(matches // 2) < DECIDED, 2) & (np.arange(matches) % 2 == 1)
            u = np.where(mirrored, np.roll(u, 1), u)  # the same deal: seat 0's hand is as good
            draw = np.zeros(matches)
        else:
            draw = 2 * DRAW_RATE * np.minimum(p, 1 - p)
        score = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
        ranks = np.stack([np.where(score == 0, 2, 1), np.where(score == 1, 2, 1)], axis=1)  # a draw: 1, 1
    else:
        performance = strength + rng.gumbel(size=table.shape)
        ranks = 1 + np.argsort(np.argsort(-performance, axis=1), axis=1)
    match_ids = np.repeat(np.arange(matches), seats)
    unit = np.repeat(np.arange(matches) // per_unit, seats)
    return true, (match_ids, table.ravel(), ranks.ravel(), np.asarray(team).ravel(), unit)


def outcomes_with_units(match_ids, players, ranks, teams, units) -> tuple[Outcomes, np.ndarray]:
    """The builder's outcomes with each row's unit, which Outcomes does not record.

    Every version gets a key of its own in every unit (unit · VERSIONS + version): no row merges across
    units and each row's unit is read off its columns. Folding the keys back onto the versions gives the
    builder's rows exactly; their patterns (rows comparing the same versions the same way) are recounted.
    """
    built = Outcomes.from_seats(match_ids, units * VERSIONS + players, ranks, teams, units)
    keys = np.asarray(built.players)
    design = built.design.tocsr()
    row_unit = keys[design.indices[design.indptr[:-1]]] // VERSIONS
    fold = sparse.csr_matrix((np.ones(len(keys)), (np.arange(len(keys)), keys % VERSIONS)),
                             shape=(len(keys), VERSIONS))
    folded = (design @ fold).tocsr()
    pattern = np.unique(folded.toarray(), axis=0, return_inverse=True)[1].ravel()
    return Outcomes(tuple(range(VERSIONS)), folded, built.score, built.weight, pattern), row_unit


def per_version_sandwich(outcomes: Outcomes, units: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Standard errors (nats) of θ − mean θ from H⁻¹JH⁻¹ at the fitted ratings (no prior): for comparison."""
    x = outcomes.design.toarray()
    p = 1 / (1 + np.exp(-(x @ theta)))
    information = x.T @ (x * (outcomes.weight * p * (1 - p))[:, None])
    by_unit = np.zeros((units.max() + 1, x.shape[1]))
    np.add.at(by_unit, units, x * (outcomes.weight * (outcomes.score - p))[:, None])
    centre = np.eye(len(theta)) - 1 / len(theta)
    inverse = centre @ linalg.inv(information + 1 / len(theta)) @ centre  # on mean-zero ratings
    return np.sqrt(np.diag(inverse @ (by_unit.T @ by_unit) @ inverse))


def run(setup: str, games: int, runs: int, seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    covered: dict[str, list[float]] = {"clustered (official)": [], "per comparison (before)": [],
                                       "per-version sandwich": []}
    width = {name: [] for name in covered}
    dispersion = {"clustered (official)": [], "per comparison (before)": []}
    done = 0
    while done < runs:
        true, seats = simulate(setup, games, rng)
        outcomes, units = outcomes_with_units(*seats)
        official = fit(outcomes, units=units)
        if any(official.rating(v) is None for v in range(VERSIONS)):
            continue  # a version that met nobody (only with very few games)
        before = fit(outcomes, units=np.arange(outcomes.rows))  # every row its own unit, as before
        target = BASE + ELO_PER_NAT * (true - true.mean())
        theta = np.array([(official.rating(v).rating - BASE) / ELO_PER_NAT for v in range(VERSIONS)])
        estimate = BASE + ELO_PER_NAT * theta
        half = {"clustered (official)": np.array([official.rating(v).half_width for v in range(VERSIONS)]),
                "per comparison (before)": np.array([before.rating(v).half_width for v in range(VERSIONS)]),
                "per-version sandwich": Z95 * ELO_PER_NAT * per_version_sandwich(outcomes, units, theta)}
        for name, h in half.items():
            covered[name].append(float(np.mean(np.abs(estimate - target) <= h)))
            width[name].append(float(h.mean()))
        dispersion["clustered (official)"].append(official.dispersion)
        dispersion["per comparison (before)"].append(before.dispersion)
        done += 1
    return {name: {"coverage": float(np.mean(c)), "se": float(np.std(c) / np.sqrt(len(c))),
                   "width": float(np.mean(width[name])),
                   "dispersion": float(np.mean(dispersion[name])) if name in dispersion else float("nan")}
            for name, c in covered.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="simulated presets per table shape and size")
    parser.add_argument("--games", type=int, nargs="+", default=[12, 50], help="matches per version")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    names = ["clustered (official)", "per comparison (before)", "per-version sandwich"]
    for games in args.games:
        print(f"\n{VERSIONS} versions {SPREAD:.0f} Elo apart end to end, about {games} matches each, "
              f"{args.runs} runs per shape: coverage of the 95% intervals (± standard error over runs), "
              "mean half-width (Elo), mean dispersion φ")
        print(f"  {'table':<26}" + "".join(f"{name:>34}" for name in names))
        for k, setup in enumerate(SETUPS):
            figures = run(setup, games, args.runs, args.seed + 1000 * games + k)
            cells = []
            for name in names:
                f = figures[name]
                phi = "" if np.isnan(f["dispersion"]) else f" φ {f['dispersion']:.2f}"
                cells.append(f"{f['coverage']:.3f} ±{f['se']:.3f}  ±{f['width']:3.0f}{phi}")
            print(f"  {setup:<26}" + "".join(f"{c:>34}" for c in cells), flush=True)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
