"""CleanRL-style PPO with invalid-action masking, in one file: bura against the house bots and itself.

    .venv/bin/pip install -e '.[env,train]'        # torch 2.13.0 (the CPU build); no RL library
    .venv/bin/python examples/training/cleanrl_ppo.py --episodes 150000 --out out/bura-cleanrl
    .venv/bin/arena play bura out/bura-cleanrl/bot builtin:greedy --games 500 --duplicate

Written after CleanRL's ``ppo.py`` (Huang et al., "CleanRL: High-quality Single-file Implementations of
Deep Reinforcement Learning Algorithms", JMLR 2022): the whole algorithm is readable top to bottom in this
file, in plain torch, with CleanRL's choices: orthogonally initialised actor and critic MLPs (tanh, the
actor's last layer at gain 0.01, the critic's at 1), fixed-length rollouts from several environments, GAE,
minibatch epochs of the clipped surrogate with a clipped value loss, an entropy bonus, advantage
normalisation, gradient clipping at 0.5 and a linearly annealed learning rate. CleanRL (on PyPI as
``cleanrl``) is a set of scripts, not a library to import, so this file is written in its style rather
than on top of it. Two changes for card games:

- **Invalid-action masking** (Huang and Ontañón, "A Closer Look at Invalid Action Masking in Policy
  Gradient Algorithms", 2022, as CleanRL's gridnet PPO does it): forbidden actions' logits are replaced by
  -1e8 before the softmax, in the rollout and in the update, so the policy never forfeits and its
  gradient ignores what it cannot play; the entropy counts the legal actions only.
- **An episode budget, not a step budget**: training stops at the end of the rollout in which the
  ``--episodes``-th deal ends, and the learning rate anneals with the share of the budget played. A
  run's episodes and every random draw (torch's sampling, the minibatch order, the self-play pool's
  choices, the deals) follow from ``--seed`` alone, and the engines deal and play alike compiled or as
  Python, so the same seed and budget give the same weights, bit for bit, on either build.

The environments are ``arena.env.KozyrGymEnv``s, one per entry of ``--opponents``, one-deal ``bura``
episodes (``match=deals:1``) with the learner's seat rotating, reset as soon as an episode ends
(CleanRL's classic loop). ``builtin:NAME`` is a house bot; ``self`` plays the pool: every
``--snapshot-every`` updates a numpy copy of the actor joins it (the last ``--pool`` kept), and each
self-play deal draws its opponent from the pool, so the learner meets its past selves, not only its
latest one (an ``arena.env.Snapshot``).

The export, ``<out>/bot/``, is an ordinary bot folder (bot_export.py): the actor runs in numpy, which
every Python bot has in the sandbox, while torch is not there (docs/protocol.md, "Packaging a bot").
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bot_export import write_bot  # noqa: E402  (this folder's modules)
from mlp import MaskedMlp  # noqa: E402  (shared with the exported bot)

from arena.env import KozyrGymEnv, Snapshot  # noqa: E402

SELF = "self"
TRAIN_SEED = 5_000_000  # the training deals' seeds start here, away from the seeds evaluations use


@dataclass
class Args:
    preset: str = "bura"
    """a Bura-family preset"""
    episodes: int = 150_000
    """the budget: deals to train on (training ends with the rollout in which the last one ends)"""
    seed: int = 0
    """seeds torch, numpy and the deals"""
    opponents: str = "builtin:greedy,builtin:greedy,builtin:greedy,self"
    """comma-separated, one environment each: builtin:NAME or self (the pool of past snapshots)"""
    num_steps: int = 128
    """learner decisions per environment per rollout"""
    hidden: int = 128
    """width of the actor's and the critic's two hidden layers"""
    learning_rate: float = 1e-3
    """CleanRL's Atari default is 2.5e-4; at 2.5e-4 and 64 units bura's learner stalled (docs/training.md)"""
    anneal_lr: bool = True
    gamma: float = 1.0
    """one deal is a handful of decisions with one reward at its end: no discount"""
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    snapshot_every: int = 5
    """updates between snapshots of the actor joining the self-play pool"""
    pool: int = 8
    """how many past snapshots the pool keeps"""
    out: Path = Path("out/bura-cleanrl")
    """where the bot goes (<out>/bot)"""


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, size: int, actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, actions), std=0.01))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        probs = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        # The entropy of the legal actions only: a forbidden one's p·log p would be 0 · -1e8.
        p_log_p = torch.where(mask, probs.probs * probs.logits, torch.zeros_like(logits))
        return action, probs.log_prob(action), -p_log_p.sum(1), self.critic(x)

    def numpy_actor(self) -> MaskedMlp:
        """A frozen copy of the actor in numpy: a self-play snapshot, and the exported bot's network."""
        linear = [m for m in self.actor if isinstance(m, nn.Linear)]
        return MaskedMlp([(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in linear])


class PoolSeat:
    """The self-play opponent of one environment: the pool member drawn for the deal it is playing."""

    def __init__(self):
        self.mlp: MaskedMlp | None = None

    def __call__(self, observation: dict) -> int:
        assert self.mlp is not None, "a pool member is drawn before each deal"
        return self.mlp(observation)


def train(args: Args, log=print) -> tuple[Agent, dict]:
    """PPO until ``args.episodes`` deals have ended; returns the agent and a summary of the run."""
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not opponents:
        raise ValueError("give at least one opponent ('builtin:NAME' or 'self')")
    if args.episodes < 1:
        raise ValueError(f"the episode budget must be at least 1, not {args.episodes}")
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: threads cost more than they give, and a thread pool's sums vary
    rng = np.random.default_rng(args.seed)
    started = time.process_time()

    seats = [PoolSeat() if o == SELF else None for o in opponents]
    envs = [KozyrGymEnv(args.preset, Snapshot(seat) if seat else o, rules={"match": "deals:1"})
            for o, seat in zip(opponents, seats, strict=True)]
    num_envs = len(envs)
    size, actions = envs[0].aec.encoder.size, envs[0].aec.encoder.actions
    agent = Agent(size, actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    pool = [agent.numpy_actor()]

    def reset(k: int, seed: int | None = None) -> dict:
        if seats[k] is not None:
            seats[k].mlp = pool[int(rng.integers(len(pool)))]
        observation, _ = envs[k].reset(seed=seed)  # later deals: the environment's own seeded sequence
        return observation

    batch_size = num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    obs = torch.zeros((args.num_steps, num_envs, size))
    masks = torch.zeros((args.num_steps, num_envs, actions), dtype=torch.bool)
    acts = torch.zeros((args.num_steps, num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, num_envs))
    rewards = torch.zeros((args.num_steps, num_envs))
    dones = torch.zeros((args.num_steps, num_envs))
    values = torch.zeros((args.num_steps, num_envs))

    first = [reset(k, args.seed + TRAIN_SEED + 100_003 * k) for k in range(num_envs)]
    next_obs = torch.tensor(np.stack([o["observation"] for o in first]))
    next_mask = torch.tensor(np.stack([o["action_mask"] for o in first]) > 0)
    next_done = torch.zeros(num_envs)
    episodes = updates = 0
    results = {o: [0, 0] for o in opponents}  # per opponent: reward sum, deals (this log period)

    while episodes < args.episodes:
        updates += 1
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - episodes / args.episodes) * args.learning_rate

        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            acts[step], logprobs[step] = action, logprob
            rows, done = [], []
            for k, env in enumerate(envs):
                observation, reward, terminated, truncated, _ = env.step(int(action[k]))
                rewards[step, k] = reward
                if terminated or truncated:
                    episodes += 1
                    results[opponents[k]][0] += reward
                    results[opponents[k]][1] += 1
                    observation = reset(k)
                rows.append(observation)
                done.append(terminated or truncated)
            next_obs = torch.tensor(np.stack([o["observation"] for o in rows]))
            next_mask = torch.tensor(np.stack([o["action_mask"] for o in rows]) > 0)
            next_done = torch.tensor(done, dtype=torch.float32)

        # Generalised advantage estimation, bootstrapped from the value of the state after the rollout.
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = torch.zeros(num_envs)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, size), masks.reshape(-1, actions)
        b_acts, b_logprobs = acts.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)

        clipfracs = []
        for _ in range(args.update_epochs):
            order = rng.permutation(batch_size)
            for start in range(0, batch_size, minibatch_size):
                mb = torch.from_numpy(order[start:start + minibatch_size])
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_acts[mb])
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

                mb_advantages = b_advantages[mb]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss = torch.max(-mb_advantages * ratio,
                                    -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()

                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb]) ** 2
                    v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                    v_loss = 0.5 * torch.max(v_loss_unclipped, (v_clipped - b_returns[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()

                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if updates % args.snapshot_every == 0:
            pool = [*pool, agent.numpy_actor()][-args.pool:]
            if log and updates % (args.snapshot_every * 4) == 0:
                scores = ", ".join(f"{o} {s / n:+.3f}" for o, (s, n) in results.items() if n)
                log(f"update {updates}: {episodes} deals, {time.process_time() - started:.0f} CPU s; "
                    f"mean reward per deal {scores}; kl {approx_kl.item():.4f}, clipped {np.mean(clipfracs):.3f}",
                    flush=True)
                results = {o: [0, 0] for o in opponents}

    for env in envs:
        env.close()
    summary = {"episodes": episodes, "updates": updates, "decisions": updates * batch_size, "pool": len(pool),
               "cpu_seconds": round(time.process_time() - started, 1),
               "args": {k: str(v) for k, v in dataclasses.asdict(args).items()}}
    return agent, summary


def weights_digest(agent: Agent) -> str:
    """SHA-256 of every parameter's bytes: equal digests are the same weights, bit for bit."""
    digest = hashlib.sha256()
    for name, tensor in agent.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()


def export(agent: Agent, directory: Path, preset: str, summary: dict) -> Path:
    """The uploadable bot folder: the actor in numpy (model.json, mlp.py), main.py and the encoder."""
    return write_bot(agent.numpy_actor(), directory, preset, summary, trainer="cleanrl_ppo.py", name="cleanrl-ppo")


def parse(argv: list[str] | None = None) -> Args:
    """Every field of ``Args`` as an option (CleanRL reads its dataclass with tyro; argparse does here)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        if field.type == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=field.default)
        else:
            kind = {"int": int, "float": float, "str": str, "Path": Path}[str(field.type)]
            parser.add_argument(flag, type=kind, default=field.default, help=f"(default {field.default})")
    return Args(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    print(f"CleanRL-style PPO on {args.preset} for {args.episodes} deals against {args.opponents} "
          f"(seed {args.seed})", flush=True)
    agent, summary = train(args)
    bot = export(agent, args.out / "bot", args.preset, summary)
    print(f"trained on {summary['episodes']} deals ({summary['decisions']} decisions) in "
          f"{summary['cpu_seconds']} CPU s", flush=True)
    print(f"exported {bot}: try  .venv/bin/arena play {args.preset} {bot} builtin:greedy --games 500 --duplicate")
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
