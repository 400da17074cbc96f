"""Training-environment speed: steps per second of Kozyr's env against RLCard's, side by side in one run.

A *step* is one decision by the player to move, with the next observation encoded (what an agent
needs to choose again): for Kozyr, ``RawEnv.observe`` (vector and action mask) then ``step``; for
RLCard, ``env.step`` (which returns the next player's encoded state). Actions are uniform over the
legal ones, one ``rng.integers`` draw per step for both (a seeded generator), and a finished episode
is reset at once. ``kozyr-parallel`` rows step ``arena.env.parallel_env`` instead: one seat acts, every
seat's observation is encoded (PettingZoo's parallel form of a turn-based game). Pairs compared:

* ``bura`` (trick taking, claims) against RLCard's ``bridge`` (trick taking) and ``gin-rummy``;
* ``burraco`` and ``burraco-2p`` (rummy, with the per-turn meld candidates) against ``gin-rummy``.

**single**: one process, CPU time of that process (figures per core). **vector**: ``--workers``
processes, each running its own environment, for the same CPU budget; total steps over the wall time.

**--split**: how much of a Kozyr step is the engine. The same episodes (seeded random play) are run
twice: through ``RawEnv`` as above, and as the bare engine calls any environment needs per step
(``to_move``, ``observation`` of the seat to move, ``legal_actions``, ``apply``); the rest is the
environment's own layer (encoding, action mask and move list, Burraco's candidate search, bookkeeping)
and the driver's action choice.

    .venv/bin/python bench/env_speed.py --seconds 5 --workers 2
    .venv/bin/python bench/env_speed.py --split

RLCard comes with the ``bench`` extra. Installed apart instead (``pip install --target DIR rlcard==1.2.0
termcolor --no-deps``: termcolor is the one dependency its import needs beyond numpy), it is found through
``PYTHONPATH=DIR``, which the ``--workers`` processes inherit; ``--split`` does not need it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
import warnings

import numpy as np

KOZYR = ("bura", "burraco", "burraco-2p")
KOZYR_PARALLEL = ("bura", "burraco")
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
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps


def kozyr_parallel_steps(preset: str, seconds: float, seed: int) -> int:
    from arena.env import parallel_env

    env = parallel_env(preset)
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    steps, episode = 0, 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        if not env.agents:
            episode += 1
            observations, infos = env.reset(seed=seed + episode)
            continue
        mover = infos[env.agents[0]]["active_agent"]
        legal = np.flatnonzero(observations[mover]["action_mask"])
        observations, _, _, _, infos = env.step({mover: int(legal[rng.integers(legal.size)])})
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
    runner = {"kozyr": kozyr_steps, "kozyr-parallel": kozyr_parallel_steps, "rlcard": rlcard_steps}[kind]
    return runner(name, seconds, seed)


def warm_up(kind: str, name: str) -> None:
    run_one(kind, name, 0.05, 0)
    time.sleep(0.5)


def vector(kind: str, name: str, seconds: float, workers: int) -> float:
    """Total steps per wall second of ``workers`` processes, each with its own environment."""
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        # A short run in every process first (each holds its process a while, so none takes two), so that
        # starting the processes and importing the libraries is not timed.
        pool.starmap(warm_up, [(kind, name)] * workers)
        start = time.monotonic()
        counts = pool.starmap(run_one, [(kind, name, seconds, 1000 + w) for w in range(workers)])
        return sum(counts) / (time.monotonic() - start)


def split(preset: str, episodes: int) -> tuple[float, float]:
    """(microseconds per step through RawEnv, of them in the bare engine calls), best of three runs."""
    from arena.env import raw_env
    from arena.games import new_match

    env = raw_env(preset)

    def through_env() -> list[tuple[int, list]]:
        rng = np.random.default_rng(7)
        played = []
        for episode in range(episodes):
            env.reset(seed=100 + episode)
            while not env.state.is_over():
                legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
            played.append((env.match_seed, env.actions_played))
        return played

    played = through_env()
    steps = sum(len(actions) for _, actions in played)

    def engine_only() -> None:
        for seed, actions in played:
            state = new_match(env.rules, seed)
            for entry in actions:
                seat = state.to_move()
                state.observation(seat)
                state.legal_actions(seat)
                state.apply(entry["seat"], entry["action"])

    def best(run) -> float:
        times = []
        for _ in range(3):
            start = time.process_time()
            run()
            times.append(time.process_time() - start)
        return min(times) * 1e6 / steps

    return best(through_env), best(engine_only)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per figure (default 5)")
    parser.add_argument("--workers", type=int, default=2, help="processes for the vector figure (default 2)")
    parser.add_argument("--split", action="store_true", help="engine vs environment layer per Kozyr step")
    args = parser.parse_args(argv)
    if args.split:
        print(f"{'preset':<12} {'us/step':>8} {'engine':>8} {'env+driver':>11}")
        for preset, episodes in (("bura", 300), ("burraco", 10), ("burraco-2p", 10)):
            total, engine = split(preset, episodes)
            print(f"{preset:<12} {total:>8.1f} {engine:>8.1f} {total - engine:>8.1f} ({1 - engine / total:.0%})",
                  flush=True)
        return
    print(f"steps/s; single = one process per CPU second, vector = {args.workers} processes per wall second")
    print(f"{'environment':<28} {'single':>10} {'vector':>10}")
    for kind, names in (("kozyr", KOZYR), ("kozyr-parallel", KOZYR_PARALLEL), ("rlcard", RLCARD)):
        for name in names:
            single = run_one(kind, name, args.seconds, 7) / args.seconds
            print(f"{kind + ' ' + name:<28} {single:>10.0f} {vector(kind, name, args.seconds, args.workers):>10.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
