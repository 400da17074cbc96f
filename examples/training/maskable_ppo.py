"""Train a bot with Stable-Baselines3-contrib's MaskablePPO, against the house bots and in self-play, and export it.

    .venv/bin/pip install -e '.[env,train]'        # sb3-contrib and torch 2.13.0 (the CPU build)
    .venv/bin/python examples/training/maskable_ppo.py --timesteps 300000 --opponents builtin:greedy,self \\
        --out out/bura-ppo
    .venv/bin/arena play bura out/bura-ppo/bot builtin:greedy --games 200 --duplicate

1. **Environments**: one ``arena.env.KozyrGymEnv`` per opponent listed in ``--opponents`` (one-deal
   episodes of ``--preset``, the learner's seat rotating with the seed), stepped together by
   Stable-Baselines3's ``DummyVecEnv``. An opponent is a house bot (``builtin:greedy``,
   ``builtin:random``, …) or ``self``: an ``arena.env.Snapshot`` of the learner's own policy, refreshed
   every ``--refresh`` rollouts, so the learner also plays against a recent copy of itself.
2. **Learning**: MaskablePPO with its default ``MlpPolicy`` (two tanh layers of 64) on the observation
   vector; ``action_masks()`` keeps it to legal actions, so it never forfeits. The budget is
   ``--timesteps`` learner decisions; everything is seeded (``--seed``).
3. **Export**: ``<out>/bot/`` is an ordinary bot folder: ``main.py`` (the protocol loop), ``mlp.py`` and
   ``model.json`` (the actor's weights, run by numpy, which the sandbox's Python has; no torch), and the
   game's encoder: a copy of ``arena/env/encoding.py`` and of the ``arena`` package it imports (the
   engines' sources, without ``arena.env``), so the bot encodes exactly what the environment encoded.
   ``arena play`` runs it and the site takes it as an upload.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import action_features  # noqa: E402  (this folder's modules)
from bot_export import write_bot  # noqa: E402
from mlp import MaskedMlp  # noqa: E402  (shared with the exported bot)

from arena.env import KozyrGymEnv, Snapshot  # noqa: E402

SELF = "self"


FEATURES = ("actions", "none")


class VectorOnly(gymnasium.ObservationWrapper):
    """The observation vector alone (the mask reaches MaskablePPO through ``action_masks()``)."""

    def __init__(self, env: KozyrGymEnv):
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation: dict) -> np.ndarray:
        return observation["observation"]

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


class WithActionRows(VectorOnly):
    """The observation vector, then what each legal action would do (action_features.py), one row per index."""

    def __init__(self, env: KozyrGymEnv):
        super().__init__(env)
        encoder = env.aec.encoder
        vector = env.observation_space["observation"]
        rows = encoder.actions * action_features.ROW
        self.observation_space = gymnasium.spaces.Box(
            np.concatenate((vector.low, np.zeros(rows, np.float32))),
            np.concatenate((vector.high, np.full(rows, np.inf, np.float32))), dtype=np.float32)

    def observation(self, observation: dict) -> np.ndarray:
        env: KozyrGymEnv = self.env  # type: ignore[assignment]
        aec = env.aec
        moves = env.legal_moves()  # none once the deal is over: the rows stay zero
        raw = aec.infos[aec.possible_agents[env.seat]]["raw_observation"] if moves else {}
        return action_features.network_input(observation["observation"], aec.encoder.actions, raw, moves)


def actor_of(model) -> MaskedMlp:
    """The policy's actor as numpy layers: MlpPolicy's policy network (Linear, Tanh, …) and its action head."""
    import torch

    linear = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linear.append(model.policy.action_net)
    return MaskedMlp([(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
                      for m in linear])


class _SelfPlay:
    """The learner's snapshot that the ``self`` opponents play: refreshed in place, shared by their envs."""

    def __init__(self):
        self.mlp: MaskedMlp | None = None

    def __call__(self, observation: dict) -> int:
        assert self.mlp is not None, "the snapshot is taken before training starts"
        return self.mlp(observation)

    def best(self, vector: np.ndarray, mask: np.ndarray) -> int:
        assert self.mlp is not None, "the snapshot is taken before training starts"
        return self.mlp.best(vector, mask)


def make_envs(preset: str, opponents: list[str], snapshot: _SelfPlay, seed: int, rules: dict, features: str):
    from stable_baselines3.common.vec_env import DummyVecEnv

    if features not in FEATURES:
        raise ValueError(f"features is one of {', '.join(FEATURES)}, not {features!r}")
    wrapper = WithActionRows if features == "actions" else VectorOnly

    def self_play(encoder):
        # With action rows the snapshot must see them too: it plays as a bot, through the engine's observation.
        return action_features.FeatureBot(snapshot, encoder) if features == "actions" else Snapshot(snapshot)

    def make(k: int, opponent: str):
        def build():
            if opponent == SELF:
                probe = KozyrGymEnv(preset, "builtin:random", rules=rules)
                env = wrapper(KozyrGymEnv(preset, self_play(probe.aec.encoder), rules=rules))
            else:
                env = wrapper(KozyrGymEnv(preset, opponent, rules=rules))
            # No match starts here: Stable-Baselines3 resets env k with seed + k once the model exists
            # (MaskablePPO(seed=...)), and a ``self`` seat that moves first then has a snapshot to play.
            return env
        return build

    return DummyVecEnv([make(k, opponent) for k, opponent in enumerate(opponents)])


def train(preset: str = "bura", timesteps: int = 100_000, opponents: tuple[str, ...] = ("builtin:greedy", SELF), *,
          seed: int = 0, n_steps: int = 512, batch_size: int = 256, refresh: int = 4, features: str = "actions",
          gamma: float = 1.0, rules: dict | None = None, verbose: int = 0):
    """MaskablePPO for ``timesteps`` learner decisions; returns the model (``model.kozyr_features`` says
    what its network reads: ``actions``, the vector and the action rows, or ``none``, the vector alone)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    if not opponents:
        raise ValueError("give at least one opponent ('builtin:NAME' or 'self')")
    torch.set_num_threads(1)  # small networks: threads cost more than they give, and runs stay reproducible
    snapshot = _SelfPlay()
    rules = {"match": "deals:1"} if rules is None else rules
    envs = make_envs(preset, list(opponents), snapshot, seed, rules, features)
    # gamma 1: a deal is a score at its end, and an early card matters as much as the last one.
    model = MaskablePPO("MlpPolicy", envs, n_steps=n_steps, batch_size=batch_size, gamma=gamma, seed=seed,
                        device="cpu", verbose=verbose)
    model.kozyr_features = features
    snapshot.mlp = actor_of(model)

    class Refresh(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rollouts = 0

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            if self.rollouts % refresh == 0:
                snapshot.mlp = actor_of(self.model)

        def _on_step(self) -> bool:
            return True

    model.learn(total_timesteps=timesteps, callback=Refresh() if SELF in opponents else None)
    envs.close()
    return model


def weights_digest(model) -> str:
    """SHA-256 of the actor's weights: the same seed and ``--timesteps`` give the same digest on any build."""
    digest = hashlib.sha256()
    for weight, bias in actor_of(model).layers:
        digest.update(weight.tobytes())
        digest.update(bias.tobytes())
    return digest.hexdigest()


def export(model, directory: Path, preset: str, summary: dict) -> Path:
    """Write the uploadable bot folder (bot_export.py): main.py, mlp.py, model.json and the encoder."""
    return write_bot(actor_of(model), directory, preset, summary, trainer="maskable_ppo.py", name="maskable-ppo",
                     features=getattr(model, "kozyr_features", None))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bura", help="a Bura-family preset (default bura)")
    parser.add_argument("--timesteps", type=int, default=100_000, help="learner decisions to train on")
    parser.add_argument("--opponents", default="builtin:greedy,self",
                        help="comma-separated, one environment each: builtin:NAME or self "
                             "(default builtin:greedy,self)")
    parser.add_argument("--refresh", type=int, default=4, help="rollouts between self-play snapshots (default 4)")
    parser.add_argument("--n-steps", type=int, default=512, help="MaskablePPO's n_steps per environment")
    parser.add_argument("--features", choices=FEATURES, default="actions",
                        help="what the network reads: actions, the observation vector and what each legal action "
                             "would do (action_features.py; default), or none, the vector alone")
    parser.add_argument("--gamma", type=float, default=1.0, help="discount (default 1: one score per deal)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("out/bura-ppo"), help="where the bot goes")
    args = parser.parse_args(argv)
    if args.timesteps < 1:
        parser.error(f"--timesteps must be at least 1, not {args.timesteps}")
    opponents = tuple(o.strip() for o in args.opponents.split(",") if o.strip())
    print(f"MaskablePPO on {args.preset} for {args.timesteps} decisions against {', '.join(opponents)} "
          f"(features: {args.features})", flush=True)
    started = time.process_time()
    model = train(args.preset, args.timesteps, opponents, seed=args.seed, n_steps=args.n_steps,
                  batch_size=min(256, args.n_steps * len(opponents)), refresh=args.refresh, features=args.features,
                  gamma=args.gamma, verbose=1)
    cpu = time.process_time() - started
    print(f"trained on {model.num_timesteps} decisions in {cpu:.0f} s of CPU time", flush=True)
    bot = export(model, args.out / "bot", args.preset,
                 {"timesteps": args.timesteps, "opponents": list(opponents), "seed": args.seed,
                  "features": args.features, "gamma": args.gamma, "cpu_seconds": round(cpu, 1)})
    print(f"exported {bot}: try  .venv/bin/arena play {args.preset} {bot} builtin:greedy --games 100 --duplicate")


if __name__ == "__main__":
    main()
