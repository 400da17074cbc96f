"""arena.data's speed beside the environments': trajectories and decisions a second from replays, and the
PettingZoo AEC environment's steps a second over the same preset, measured in alternating rounds so that the
machine's other load weighs on both alike.

    .venv/bin/python bench/data_loader.py [--preset bura] [--replays 200] [--rounds 3]

The replays are ``arena play PRESET builtin:greedy builtin:random`` matches; the loader verifies each
(``arena.replay.rebuild``) and then re-runs it for the encodings, both counted. The environment plays the same
number of whole matches with uniformly random legal actions, observing every step (``observe`` + ``step``).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from arena import data
from arena.env.aec import RawEnv

REPO = Path(__file__).resolve().parent.parent


def loader_round(folder: Path) -> tuple[int, int, float]:
    started = time.perf_counter()
    trajectories = decisions = 0
    for trajectory in data.load(folder):
        trajectories += 1
        decisions += len(trajectory)
    return trajectories, decisions, time.perf_counter() - started


def env_round(preset: str, matches: int) -> tuple[int, float]:
    env = RawEnv(preset)
    rng = np.random.default_rng(0)
    steps = 0
    started = time.perf_counter()
    for seed in range(matches):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
    return steps, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--replays", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([str(REPO / ".venv/bin/arena"), "play", args.preset, "builtin:greedy", "builtin:random",
                        "--games", str(args.replays), "--seed", "39", "--replays", folder, "--quiet"], check=True)
        loader, env = [], []
        for _ in range(args.rounds):
            loader.append(loader_round(Path(folder)))
            env.append(env_round(args.preset, args.replays))
    best = max(loader, key=lambda r: r[1] / r[2])
    fastest = max(env, key=lambda r: r[0] / r[1])
    print(f"{args.preset}, {args.replays} replays, best of {args.rounds} alternating rounds")
    print(f"arena.data: {best[0] / best[2]:,.0f} trajectories/s, {best[1] / best[2]:,.0f} decisions/s "
          f"(verification and encoding included)")
    print(f"AEC environment: {fastest[0] / fastest[1]:,.0f} steps/s (observe and step, random legal actions)")


if __name__ == "__main__":
    main()
