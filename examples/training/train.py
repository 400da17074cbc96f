"""Train a Bura bot from scratch against ``greedy``, measure it, and export it as an uploadable bot.

    .venv/bin/python examples/training/train.py --minutes 3 --out out/bura-learner

1. **Train**: REINFORCE (policy gradient with a running-mean baseline) on the linear softmax policy of
   ``policy.py``, weights starting at zero (a uniform random player), through ``arena.env.KozyrGymEnv``:
   one-deal episodes (``match=deals:1``) of ``bura`` against the built-in ``greedy``, the learner's seat
   rotating with the seed; the reward is the deal's result (+1 won, -1 lost, 0 void). The budget is
   ``--episodes`` deals, or else ``--minutes`` of this process's CPU time (``time.process_time``).
2. **Measure**: whole ``bura`` matches (penalty points to 12) against ``greedy`` on a duplicate set of
   deals: every seed is played twice, the learner in seat 0 and then in seat 1, so both sides hold the
   same cards. The win rate is the learner's mean match score (1 win, 0 loss); its 95% interval is
   over the seeds (each seed's two matches averaged), normal approximation.
3. **Export**: ``<out>/bot/`` holds ``main.py`` (the protocol loop), ``policy.py`` and ``weights.json``:
   python3's standard library only, ready for ``arena play bura <out>/bot builtin:greedy`` and upload.

Everything is seeded. With ``--episodes`` the same command gives the same weights and the same figures on
any build (compiled or Python engines, a fast or a busy machine): the engines deal and play alike on
both, and the episodes are numbered, not timed. With ``--minutes`` the number of deals depends on speed.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import policy  # noqa: E402  (this folder's module, shared with the exported bot)

from arena.bots import make_bot  # noqa: E402
from arena.cards import derive_seed  # noqa: E402
from arena.env import KozyrGymEnv  # noqa: E402
from arena.games import new_match, resolve  # noqa: E402
from arena.runner import BOT_SEED_LABEL  # noqa: E402

TRAIN_SEED = 1_000_000  # training episodes use seeds from here; the evaluation's start at 2026
EVAL_SEED = 2026


def train(minutes: float | None, *, learning_rate: float = 0.02, seed: int = 0, log_every: int = 2000,
          max_episodes: int | None = None) -> tuple[np.ndarray, dict]:
    """REINFORCE for ``minutes`` of CPU time or ``max_episodes`` deals, whichever ends first (``None``: no such
    limit; one must be given); returns the weights and a summary."""
    if minutes is None and max_episodes is None:
        raise ValueError("give a budget: minutes of CPU time, max_episodes deals, or both")
    if max_episodes is not None and max_episodes < 1:
        raise ValueError(f"max_episodes must be at least 1, not {max_episodes}")
    seconds = math.inf if minutes is None else minutes * 60
    env = KozyrGymEnv("bura", "builtin:greedy", rules={"match": "deals:1"})
    weights = np.zeros(policy.SIZE)
    rng = np.random.default_rng(seed)
    baseline = 0.0
    moment, second, steps = np.zeros(policy.SIZE), np.zeros(policy.SIZE), 0
    episodes = 0
    recent: list[float] = []
    start = time.process_time()
    while time.process_time() - start < seconds and (max_episodes is None or episodes < max_episodes):
        _, info = env.reset(seed=TRAIN_SEED + episodes)
        grads = np.zeros(policy.SIZE)
        reward, done = 0.0, False
        while not done:
            moves = sorted(info["legal_actions"].items())
            rows = np.array([policy.features(info["raw_observation"], a) for _, a in moves])
            s = rows @ weights
            p = np.exp(s - s.max())
            p /= p.sum()
            k = int(rng.choice(len(moves), p=p))
            grads += rows[k] - p @ rows
            _, reward, done, _, info = env.step(moves[k][0])
        # Adam on the policy gradient: rare decisions (a sure claim) move their weights as fast as common ones.
        g = (reward - baseline) * grads
        moment = 0.9 * moment + 0.1 * g
        second = 0.999 * second + 0.001 * g * g
        steps += 1
        weights += learning_rate * (moment / (1 - 0.9 ** steps)) / (np.sqrt(second / (1 - 0.999 ** steps)) + 1e-8)
        baseline += 0.01 * (reward - baseline)
        episodes += 1
        recent.append(reward)
        if log_every and episodes % log_every == 0:
            print(f"  {episodes:>7} deals, {time.process_time() - start:6.1f} s CPU, mean reward of the last "
                  f"{log_every}: {np.mean(recent[-log_every:]):+.3f}", flush=True)
    return weights, {"episodes": episodes, "cpu_seconds": time.process_time() - start,
                     "final_mean_reward": float(np.mean(recent[-min(len(recent), 2000):])) if recent else 0.0}


def match_score(learner, seat: int, seed: int) -> float:
    """One whole ``bura`` match, the learner in ``seat`` against greedy: 1 won, 0 lost, 0.5 a shared rank."""
    _, rules = resolve("bura")
    state = new_match(rules, seed)
    bots = [learner if s == seat else make_bot("bura", "greedy", s, rules, derive_seed(seed, BOT_SEED_LABEL, s))
            for s in range(state.num_seats)]
    while not state.is_over():
        s = state.to_move()
        state.apply(s, bots[s].act(state.observation(s), state.legal_actions(s)))
    ranks = state.outcome()["ranks"]
    other = 1 - seat
    return 1.0 if ranks[seat] < ranks[other] else 0.5 if ranks[seat] == ranks[other] else 0.0


def evaluate(weights, seeds: int, base_seed: int = EVAL_SEED) -> dict:
    """Duplicate evaluation over ``seeds`` deals sequences (two matches each, seats swapped)."""
    learner = policy.Policy([float(w) for w in weights])
    per_seed = []
    for g in range(seeds):
        seed = derive_seed(base_seed, g)
        per_seed.append((match_score(learner, 0, seed) + match_score(learner, 1, seed)) / 2)
    mean = float(np.mean(per_seed))
    half = 1.96 * float(np.std(per_seed, ddof=1)) / math.sqrt(len(per_seed)) if len(per_seed) > 1 else 1.0
    return {"matches": 2 * seeds, "win_rate": mean, "ci95": [mean - half, mean + half]}


BOT_MAIN = '''"""A Bura bot trained by examples/training/train.py: a linear policy (policy.py, weights.json).

Standard library only. Protocol: docs/protocol.md (one JSON object per line on stdin/stdout).
"""

import json
import sys
from pathlib import Path

from policy import Policy

WEIGHTS = json.loads((Path(__file__).resolve().parent / "weights.json").read_text())["weights"]


def main():
    bot = Policy(WEIGHTS)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            print(json.dumps({"type": "ready", "name": "bura-trained-linear"}), flush=True)
        elif kind == "request":
            action = bot.act(message["observation"], message["legal_actions"])
            print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
        elif kind == "goodbye":
            break


if __name__ == "__main__":
    main()
'''


def export(weights, directory: Path, summary: dict) -> Path:
    """Write the uploadable bot: main.py, policy.py and weights.json in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "main.py").write_text(BOT_MAIN)
    shutil.copyfile(HERE / "policy.py", directory / "policy.py")
    (directory / "weights.json").write_text(json.dumps(
        {"features": list(policy.NAMES), "weights": [round(float(w), 6) for w in weights], "training": summary},
        indent=1) + "\n")
    return directory


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, default=None,
                        help="training budget in CPU minutes (default 3 when --episodes is not given)")
    budget.add_argument("--episodes", type=int, default=None,
                        help="training budget in deals: the same seed gives the same weights on any build")
    parser.add_argument("--eval-seeds", type=int, default=200, help="duplicate deal sequences to measure on")
    parser.add_argument("--out", type=Path, default=Path("out/bura-learner"), help="where the model and bot go")
    parser.add_argument("--learning-rate", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.episodes is not None and args.episodes < 1:
        parser.error(f"--episodes must be at least 1, not {args.episodes}")
    if args.episodes is None:
        minutes = 3.0 if args.minutes is None else args.minutes
        print(f"training for {minutes:g} CPU minutes against builtin:greedy (one-deal episodes of bura)")
        weights, summary = train(minutes, learning_rate=args.learning_rate, seed=args.seed)
    else:
        print(f"training on {args.episodes} deals against builtin:greedy (one-deal episodes of bura)")
        weights, summary = train(None, learning_rate=args.learning_rate, seed=args.seed, max_episodes=args.episodes)
    print(f"trained on {summary['episodes']} deals in {summary['cpu_seconds']:.0f} s CPU")
    for name, w in zip(policy.NAMES, weights, strict=True):
        print(f"  {w:+7.3f}  {name}")
    result = evaluate(weights, args.eval_seeds)
    print(f"against greedy, {result['matches']} whole bura matches on {args.eval_seeds} duplicate deal sequences: "
          f"win rate {result['win_rate']:.3f}, 95% interval {result['ci95'][0]:.3f} to {result['ci95'][1]:.3f}")
    baseline = evaluate(np.zeros(policy.SIZE), min(args.eval_seeds, 50))
    print(f"(untrained weights, {baseline['matches']} matches: win rate {baseline['win_rate']:.3f})")
    bot = export(weights, args.out / "bot", {**summary, "evaluation": result})
    print(f"exported {bot}: try  .venv/bin/arena play bura {bot} builtin:greedy --games 20 --duplicate")


if __name__ == "__main__":
    main()
