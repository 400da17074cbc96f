"""Training-environment speed: what docs/training.md tells users to call, against RLCard, interleaved in one process.

A *step* is one decision by the player to move, with the next observation encoded (what an agent
needs to choose again). Actions are uniform over the legal ones (one ``rng.integers`` draw per step
on both sides, a seeded generator) and a finished episode is followed by the next at once. The driver
picks from each environment's own list of legal action ids, alike on both sides: RLCard's
``state["legal_actions"]`` and Kozyr's ``info["legal_actions"]`` (``--driver mask`` reads Kozyr's
action mask with ``np.flatnonzero`` instead, which costs the driver about 3 µs more per step; the
environments do the same work either way, the mask is built and returned in both).

* ``kozyr env()``: PettingZoo's documented loop over ``arena.env.env(preset)`` —
  ``for agent in e.agent_iter(): observation, reward, terminated, truncated, info = e.last()``, then
  ``e.step(action)`` (``None`` for the finished agents at the end, which are not counted as steps) and
  ``e.reset(seed=...)`` for the next episode. This is the entry point the docs give.
* ``kozyr raw_env()``: the unwrapped environment (``last()`` and ``step``), for reference.
* ``kozyr parallel_env()``: the Parallel form (every seat's observation is encoded each step).
* ``rlcard NAME``: ``env.step`` (which returns the next player's encoded state), RLCard 1.2.0.

Pairs compared: ``bura`` (trick taking, claims) against RLCard's ``bridge``; ``burraco`` and
``burraco-2p`` (rummy, with the per-turn meld candidates) against ``gin-rummy``.

**Interleaved**: every environment of a pair lives in this one process and runs in turns of
``--slice`` CPU seconds, ``--rounds`` rounds, so load from elsewhere on the machine falls on every side
alike; each figure is its steps over its own CPU time (``time.process_time``), and the ratio is env()
over RLCard's. The engines are those ``arena`` chose at import (``KOZYR_ENGINES``); ``--engines both``
runs the whole measurement once per build, each in a fresh process (``KOZYR_ENGINES=compiled`` and
``python``), and prints both.

**--vector**: ``--workers`` processes, each running its own environment, for the same CPU budget;
total steps over the wall time.

**--batched**: learner steps per second of the Gymnasium view, one seat learning against
``--opponent``: ``KozyrGymEnv`` alone (a step, then the next observation and its info) against
``arena.env.vector.KozyrVectorEnv`` with ``--num-envs`` matches, stepped by this process and
``--batch-workers`` others (the env's default: one per core but this one). A batch step counts a learner
step for every match whose action was played (one that only starts its next match is not). Both run in
turns of ``--slice`` wall seconds, ``--rounds`` rounds, and are timed by the wall clock (the batch's
workers are other processes); one process's share of the batch also runs alone in this process and is
timed by CPU time, which shows what a core does whatever else runs on the machine.

**--batched --learner maskable-ppo**: the same comparison with Stable-Baselines3-contrib's MaskablePPO as the
learner, timing its own rollout collection (``collect_rollouts``: the policy's forward pass with the value and
the masked distribution, the env step, the rollout buffer): one ``KozyrGymEnv`` in SB3's ``DummyVecEnv`` (what a
user without the batch runs), the same ``DummyVecEnv`` over ``--num-envs`` of them (SB3's own batching: one
policy call for every match, the matches stepped one after another) and ``arena.env.sb3.KozyrSB3VecEnv`` with
``--num-envs`` matches. A rollout is
2,048 learner steps on both sides (one match for 2,048 steps; the batch's matches for 2,048 / N each); the
gradient updates that follow a rollout are left out: they cost the same per sample whatever the environment.

**--split**: how much of a Kozyr step is the engine (the bare engine
calls any environment needs per step: ``to_move``, ``observation``, ``legal_actions``, ``apply``).

    .venv/bin/python bench/env_speed.py --engines both
    .venv/bin/python bench/env_speed.py --vector --workers 2
    .venv/bin/python bench/env_speed.py --split

RLCard comes with the ``bench`` extra (``pip install -e '.[bench]'``). Without it the RLCard rows are
left out and the script says so; compare env() with the ``raw_env()`` row instead.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

PAIRS = (("bura", "bridge"), ("burraco", "gin-rummy"), ("burraco-2p", "gin-rummy"))


class KozyrEnvLoop:
    """PettingZoo's documented AEC loop over ``env()``, resumable between turns."""

    def __init__(self, preset: str, seed: int, mask: bool = False):
        from arena.env import env

        self.mask = mask
        self.env = env(preset)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.episode = 0
        self._start()

    def _start(self) -> None:
        self.env.reset(seed=self.seed + self.episode)
        self.loop = iter(self.env.agent_iter())

    def run(self, seconds: float) -> int:
        e, rng, steps = self.env, self.rng, 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            for _agent in self.loop:
                observation, _reward, terminated, truncated, info = e.last()
                if terminated or truncated:
                    e.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"]) if self.mask else list(info["legal_actions"])
                e.step(int(legal[rng.integers(len(legal))]))
                steps += 1
                break
            else:
                self.episode += 1
                self._start()
        return steps


class KozyrRawLoop:
    """``raw_env()``: ``last()`` then ``step``, no wrapper."""

    def __init__(self, preset: str, seed: int, mask: bool = False):
        from arena.env import raw_env

        self.mask = mask
        self.env = raw_env(preset)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.episode = 0
        self.env.reset(seed=seed)

    def run(self, seconds: float) -> int:
        e, rng, steps = self.env, self.rng, 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            observation, _reward, terminated, _truncated, info = e.last()
            if terminated:
                self.episode += 1
                e.reset(seed=self.seed + self.episode)
                continue
            legal = np.flatnonzero(observation["action_mask"]) if self.mask else list(info["legal_actions"])
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps


class KozyrParallelLoop:
    def __init__(self, preset: str, seed: int, mask: bool = False):
        from arena.env import parallel_env

        self.env = parallel_env(preset)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.episode = 0
        self.observations, self.infos = self.env.reset(seed=seed)

    def run(self, seconds: float) -> int:
        e, rng, steps = self.env, self.rng, 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            if not e.agents:
                self.episode += 1
                self.observations, self.infos = e.reset(seed=self.seed + self.episode)
                continue
            mover = self.infos[e.agents[0]]["active_agent"]
            legal = np.flatnonzero(self.observations[mover]["action_mask"])  # the Parallel infos list none
            self.observations, _, _, _, self.infos = e.step({mover: int(legal[rng.integers(legal.size)])})
            steps += 1
        return steps


class RLCardLoop:
    def __init__(self, name: str, seed: int, mask: bool = False):
        import rlcard

        self.env = rlcard.make(name, config={"seed": seed})
        self.rng = np.random.default_rng(seed)
        self.state, _ = self.env.reset()

    def run(self, seconds: float) -> int:
        e, rng, steps = self.env, self.rng, 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            if e.is_over():
                self.state, _ = e.reset()
                continue
            legal = list(self.state["legal_actions"])
            self.state, _ = e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps


LOOPS = {"env()": KozyrEnvLoop, "raw_env()": KozyrRawLoop, "parallel_env()": KozyrParallelLoop, "rlcard": RLCardLoop}


def have_rlcard() -> bool:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        return False
    return True


def interleaved(preset: str, rival: str | None, slice_seconds: float, rounds: int,
                mask: bool = False) -> dict[str, float]:
    """Steps per CPU second of each side, the sides taking turns of ``slice_seconds``."""
    sides = {kind: LOOPS[kind](preset, 7, mask) for kind in ("env()", "raw_env()", "parallel_env()")}
    if rival is not None:
        sides["rlcard"] = RLCardLoop(rival, 7)
    steps, _, spent = _interleave(sides, slice_seconds, rounds, warm_up=0.05)
    return {kind: steps[kind] / spent[kind] for kind in sides}


def report(slice_seconds: float, rounds: int, mask: bool) -> None:
    warnings.simplefilter("ignore")
    rlcard = have_rlcard()
    print(f"engines: {os.environ.get('KOZYR_ENGINES', 'auto')} ({describe_engines()}); steps per CPU second, "
          f"{rounds} interleaved turns of {slice_seconds:g} s each; Kozyr's driver reads "
          f"{'the action mask' if mask else 'info legal_actions'}")
    if not rlcard:
        print("rlcard is not installed (pip install -e '.[bench]'): no RLCard rows; compare env() with raw_env()")
    header = f"{'preset':<11} {'env()':>8} {'raw_env()':>10} {'parallel':>9}"
    print(header + (f"  {'RLCard':<10} {'steps/s':>8} {'env()/RLCard':>13}" if rlcard else ""))
    for preset, rival in PAIRS:
        figures = interleaved(preset, rival if rlcard else None, slice_seconds, rounds, mask)
        line = f"{preset:<11} {figures['env()']:>8.0f} {figures['raw_env()']:>10.0f} {figures['parallel_env()']:>9.0f}"
        if rlcard:
            line += f"  {rival:<10} {figures['rlcard']:>8.0f} {figures['env()'] / figures['rlcard']:>12.2f}x"
        print(line, flush=True)


def describe_engines() -> str:
    """Which build of each engine family runs (what ``arena engines`` prints)."""
    import arena.env  # noqa: F401  (the engines are chosen as arena's games are imported)
    from arena import compiled

    return ", ".join(f"{family} {how.split(' ')[0].rstrip(':')}" for family, how in compiled.status().items())


class Policy:
    """What a learner does between steps: ``none`` draws a uniform legal action; ``mlp`` runs a masked
    two-layer perceptron (64 tanh units each, random weights: MaskablePPO's default network's size) over
    the observations, in torch when it is installed (as Stable-Baselines3 does), numpy otherwise."""

    def __init__(self, kind: str, size: int, actions: int, seed: int):
        self.kind = kind
        self.rng = np.random.default_rng(seed)
        self.torch = None
        if kind == "mlp":
            try:
                import torch
            except ImportError:
                torch = None
            shapes = [(size, 64), (64, 64), (64, actions)]
            weights = [self.rng.normal(0, 0.1, s).astype(np.float32) for s in shapes]
            if torch is not None:
                torch.set_num_threads(1)
                self.torch = torch
                self.layers = [torch.from_numpy(w) for w in weights]
            else:
                self.layers = weights

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action index per row (rows with an all-zero mask get some index: their env ignores it)."""
        noise = self.rng.random(masks.shape)
        if self.kind == "none":
            return np.argmax(noise * masks, axis=1)
        if self.torch is not None:
            with self.torch.no_grad():
                hidden = self.torch.from_numpy(observations)
                hidden = self.torch.tanh(hidden @ self.layers[0])
                hidden = self.torch.tanh(hidden @ self.layers[1])
                logits = (hidden @ self.layers[2]).numpy()
        else:
            hidden = np.tanh(np.tanh(observations @ self.layers[0]) @ self.layers[1])
            logits = hidden @ self.layers[2]
        gumbel = -np.log(-np.log(noise + 1e-12) + 1e-12)  # a sample of the masked softmax, by the Gumbel trick
        return np.argmax(np.where(masks > 0, logits + gumbel, -np.inf), axis=1)


class GymLoop:
    """``KozyrGymEnv`` alone: the policy, a step, the next observation and its info, reset at the end."""

    def __init__(self, preset: str, opponent: str, seed: int, policy: str):
        from arena.env import KozyrGymEnv

        self.env = KozyrGymEnv(preset, opponent)
        encoder = self.env.aec.encoder
        self.policy = Policy(policy, encoder.size, encoder.actions, seed)
        self.observation, _ = self.env.reset(seed=seed)

    def run(self, seconds: float, clock=time.perf_counter) -> int:
        e, policy, steps = self.env, self.policy, 0
        deadline = clock() + seconds
        while clock() < deadline:
            o = self.observation
            action = policy(o["observation"][None], o["action_mask"][None])[0]
            self.observation, _, terminated, _, _ = e.step(int(action))
            steps += 1
            if terminated:
                self.observation, _ = e.reset()
        return steps


class BatchedLoop:
    """``KozyrVectorEnv``: the policy over the batch, then one batch step. A step counts the matches whose action
    was played: a match that has just ended spends its next step starting the next one (Gymnasium's
    ``NEXT_STEP`` autoreset ignores that action), which is not a learner step."""

    def __init__(self, preset: str, opponent: str, seed: int, policy: str, num_envs: int, workers: int | None):
        from arena.env.vector import KozyrVectorEnv

        self.env = KozyrVectorEnv(preset, num_envs, opponent, workers=workers)
        space = self.env.single_observation_space["observation"]
        self.policy = Policy(policy, space.shape[0], self.env.single_action_space.n, seed)
        self.observations, _ = self.env.reset(seed=seed)
        self.ended = np.zeros(num_envs, dtype=bool)

    def run(self, seconds: float, clock=time.perf_counter) -> int:
        e, policy, steps = self.env, self.policy, 0
        deadline = clock() + seconds
        while clock() < deadline:
            o = self.observations
            self.observations, _, terminated, _, _ = e.step(policy(o["observation"], o["action_mask"]))
            steps += e.num_envs - int(self.ended.sum())
            self.ended = terminated
        return steps


class RolloutLoop:
    """MaskablePPO's ``collect_rollouts`` over a vector environment, one rollout of 2,048 learner steps at a time."""

    STEPS = 2048

    def __init__(self, env, seed: int):
        from sb3_contrib import MaskablePPO

        self.env = env
        self.model = MaskablePPO("MlpPolicy", env, n_steps=self.STEPS // env.num_envs, seed=seed)
        _, self.callback = self.model._setup_learn(10**12)

    def run(self, seconds: float, clock=time.perf_counter) -> int:
        model, steps = self.model, 0
        deadline = clock() + seconds
        while clock() < deadline:
            model.collect_rollouts(self.env, self.callback, model.rollout_buffer, model.n_steps)
            steps += model.n_steps * self.env.num_envs
        return steps


def rollouts(preset: str, opponent: str, num_envs: int, workers: int | None, slice_seconds: float,
             rounds: int) -> None:
    """``--learner maskable-ppo``: MaskablePPO's rollouts on one single environment against the batch."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from arena.env import KozyrGymEnv
    from arena.env.sb3 import KozyrSB3VecEnv

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "training"))
    from maskable_ppo import VectorOnly

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)  # as Policy: small networks, and the batch's processes have a core each
    batch = KozyrSB3VecEnv(preset, num_envs, opponent, workers=workers)
    def single():
        return VectorOnly(KozyrGymEnv(preset, opponent))

    sides = {"DummyVecEnv, 1 match": RolloutLoop(DummyVecEnv([single]), 7),
             # SB3's own way to batch: the policy runs on N rows at once, the matches one after another here
             f"DummyVecEnv, {num_envs} matches": RolloutLoop(DummyVecEnv([single] * num_envs), 7),
             f"KozyrSB3VecEnv, {num_envs} matches": RolloutLoop(batch, 7)}
    steps, wall, _ = _interleave(sides, slice_seconds, rounds)
    for side in sides.values():
        side.env.close()
    base = steps["DummyVecEnv, 1 match"] / wall["DummyVecEnv, 1 match"]
    print(f"{preset} against {opponent}, learner MaskablePPO (MlpPolicy, torch): learner steps per second of its "
          f"rollouts, {rounds} interleaved turns of {slice_seconds:g} s; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores, the batch in {batch.batch.workers + 1} processes")
    print(f"{'environment':<28} {'per wall s':>11} {'x single':>9}")
    for name in sides:
        per_wall = steps[name] / wall[name]
        print(f"{name:<28} {per_wall:>11.0f} {per_wall / base:>8.2f}x", flush=True)


def _interleave(sides: dict, slice_seconds: float, rounds: int, warm_up: float = 0.2
                ) -> tuple[dict[str, int], dict[str, float], dict[str, float]]:
    """Each side's steps, wall seconds and this process's CPU seconds over ``rounds`` turns of ``slice_seconds``
    each, after a warm-up turn (imports, first-call costs, the engines' caches)."""
    for side in sides.values():
        side.run(warm_up)
    steps = dict.fromkeys(sides, 0)
    wall = dict.fromkeys(sides, 0.0)
    cpu = dict.fromkeys(sides, 0.0)
    for _ in range(rounds):
        for name, side in sides.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            steps[name] += side.run(slice_seconds)
            wall[name] += time.perf_counter() - start
            cpu[name] += time.process_time() - start_cpu
    return steps, wall, cpu


def batched(preset: str, opponent: str, num_envs: int, workers: int | None, slice_seconds: float, rounds: int,
            policy: str) -> None:
    warnings.simplefilter("ignore")
    whole = BatchedLoop(preset, opponent, 7, policy, num_envs, workers)
    processes = whole.env.workers + 1
    sides = {"KozyrGymEnv": GymLoop(preset, opponent, 7, policy),
             f"batch {num_envs}, {processes} processes": whole,
             # One process's share of the batch, alone in this process: its CPU time is what one core does.
             f"batch {num_envs // processes} in-process": BatchedLoop(preset, opponent, 7, policy,
                                                                    num_envs // processes, 0)}
    steps, wall, cpu = _interleave(sides, slice_seconds, rounds)
    for side in sides.values():
        side.env.close()
    base = steps["KozyrGymEnv"] / wall["KozyrGymEnv"]
    base_cpu = steps["KozyrGymEnv"] / cpu["KozyrGymEnv"]
    torch = "torch" if sides["KozyrGymEnv"].policy.torch is not None else "numpy"
    print(f"{preset} against {opponent}, policy {policy if policy == 'none' else 'mlp (' + torch + ')'}: learner "
          f"steps per second, {rounds} interleaved turns of {slice_seconds:g} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'environment':<28} {'per wall s':>11} {'x single':>9} {'per CPU s':>10} {'x single':>9}")
    for name in sides:
        per_wall = steps[name] / wall[name]
        line = f"{name:<28} {per_wall:>11.0f} {per_wall / base:>8.2f}x"
        if "processes" not in name:  # a worker's CPU time is not this process's
            per_cpu = steps[name] / cpu[name]
            line += f" {per_cpu:>10.0f} {per_cpu / base_cpu:>8.2f}x"
        print(line, flush=True)


def run_one(kind: str, name: str, seconds: float, seed: int) -> int:
    warnings.simplefilter("ignore")
    return LOOPS[kind](name, seed).run(seconds)


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
    parser.add_argument("--slice", type=float, default=0.5, help="CPU seconds per turn (default 0.5)")
    parser.add_argument("--rounds", type=int, default=8, help="turns of each side (default 8)")
    parser.add_argument("--engines", choices=("current", "both"), default="current",
                        help="both: once on the compiled engines and once on the Python ones, each in its own process")
    parser.add_argument("--driver", choices=("list", "mask"), default="list",
                        help="Kozyr's driver picks from info['legal_actions'] (default, as RLCard's from its "
                             "state's) or from the action mask")
    parser.add_argument("--vector", action="store_true", help="steps per wall second of --workers processes")
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per --vector figure (default 5)")
    parser.add_argument("--workers", type=int, default=2, help="processes for --vector (default 2)")
    parser.add_argument("--split", action="store_true", help="engine vs environment layer per Kozyr step")
    parser.add_argument("--batched", action="store_true", help="KozyrVectorEnv against KozyrGymEnv alone")
    parser.add_argument("--preset", default="bura", help="--batched: the preset (default bura)")
    parser.add_argument("--opponent", default="builtin:greedy", help="--batched: the opponents (default greedy)")
    parser.add_argument("--num-envs", type=int, default=16, help="--batched: matches in the batch (default 16)")
    parser.add_argument("--batch-workers", type=int, default=None,
                        help="--batched: KozyrVectorEnv's workers beside this process (default: its own, one per "
                             "core but this one's)")
    parser.add_argument("--policy", choices=("mlp", "none"), default="mlp",
                        help="--batched: the learner's policy between steps (default mlp; none: uniform legal)")
    parser.add_argument("--learner", choices=("policy", "maskable-ppo"), default="policy",
                        help="--batched: time --policy between steps (default), or MaskablePPO's own rollouts")
    args = parser.parse_args(argv)
    if args.batched and args.learner == "maskable-ppo":
        rollouts(args.preset, args.opponent, args.num_envs, args.batch_workers, args.slice, args.rounds)
        return
    if args.batched:
        batched(args.preset, args.opponent, args.num_envs, args.batch_workers, args.slice, args.rounds,
                args.policy)
        return
    if args.split:
        print(f"{'preset':<12} {'us/step':>8} {'engine':>8} {'env+driver':>11}")
        for preset, episodes in (("bura", 300), ("burraco", 10), ("burraco-2p", 10)):
            total, engine = split(preset, episodes)
            print(f"{preset:<12} {total:>8.1f} {engine:>8.1f} {total - engine:>8.1f} ({1 - engine / total:.0%})",
                  flush=True)
        return
    if args.vector:
        kinds = ["env()", "parallel_env()"] + (["rlcard"] if have_rlcard() else [])
        print(f"steps per wall second, {args.workers} processes of {args.seconds:g} CPU s each")
        for preset, rival in PAIRS:
            for kind in kinds:
                name = rival if kind == "rlcard" else preset
                print(f"{kind + ' ' + name:<28} {vector(kind, name, args.seconds, args.workers):>10.0f}", flush=True)
        return
    if args.engines == "both":
        for engines in ("compiled", "python"):
            child = [sys.executable, __file__, "--slice", str(args.slice), "--rounds", str(args.rounds),
                     "--driver", args.driver]
            subprocess.run(child, env={**os.environ, "KOZYR_ENGINES": engines}, check=True)
        return
    report(args.slice, args.rounds, args.driver == "mask")


if __name__ == "__main__":
    main()
