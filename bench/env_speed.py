"""Training-environment speed: steps per second of Kozyr's env against RLCard's, side by side in one run.

A *step* is one decision by the player to move, with the next observation encoded (what an agent
needs to choose again): for Kozyr, ``RawEnv.observe`` (vector and action mask) then ``step``; for
RLCard, ``env.step`` (which returns the next player's encoded state). Actions are uniform over the
legal ones, from a seeded generator, and a finished episode is reset at once. Pairs compared:

* ``bura`` (trick taking, claims) against RLCard's ``bridge`` (trick taking) and ``gin-rummy``;
* ``burraco`` and ``burraco-2p`` (rummy, with the per-turn meld candidates) against ``gin-rummy``.

**single**: one process, CPU time of that process (figures per core). **vector**: ``--workers``
processes, each running its own environment, for the same CPU budget; total steps over the wall time.

    .venv/bin/python bench/env_speed.py --seconds 5 --workers 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
import warnings

import numpy as np

KOZYR = ("bura", "burraco", "burraco-2p")
RLCARD = ("bridge", "gin-rummy")


def kozyr_steps(preset: str, seconds: float, seed: int) -> int:
    from arena.env import raw_env

    env = raw_env(preset)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps, episode = 0, 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        agent = env.agent_selection
        if env.terminations[agent]:
            episode += 1
            env.reset(seed=seed + episode)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return steps


def rlcard_steps(name: str, seconds: float, seed: int) -> int:
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    rng = np.random.default_rng(seed)
    state, _ = env.reset()
    steps = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        if env.is_over():
            state, _ = env.reset()
            continue
        legal = list(state["legal_actions"])
        state, _ = env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps


def run_one(kind: str, name: str, seconds: float, seed: int) -> int:
    warnings.simplefilter("ignore")
    return (kozyr_steps if kind == "kozyr" else rlcard_steps)(name, seconds, seed)


def vector(kind: str, name: str, seconds: float, workers: int) -> float:
    """Total steps per wall second of ``workers`` processes, each with its own environment."""
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        start = time.monotonic()
        counts = pool.starmap(run_one, [(kind, name, seconds, 1000 + w) for w in range(workers)])
        return sum(counts) / (time.monotonic() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per figure (default 5)")
    parser.add_argument("--workers", type=int, default=2, help="processes for the vector figure (default 2)")
    args = parser.parse_args(argv)
    print(f"steps/s; single = one process per CPU second, vector = {args.workers} processes per wall second")
    print(f"{'environment':<24} {'single':>10} {'vector':>10}")
    for kind, names in (("kozyr", KOZYR), ("rlcard", RLCARD)):
        for name in names:
            single = run_one(kind, name, args.seconds, 7) / args.seconds
            print(f"{kind + ' ' + name:<24} {single:>10.0f} {vector(kind, name, args.seconds, args.workers):>10.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
