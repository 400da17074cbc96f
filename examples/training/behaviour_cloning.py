"""Clone the top bots of a preset from their matches, fine-tune against greedy, measure, export an uploadable bot.

    .venv/bin/arena episodes --bot TOP-BOT --preset bura --since 2026-11-01 --out data/top   # or a dump file
    .venv/bin/python examples/training/behaviour_cloning.py --data data/top --bots TOP-BOT --out out/bura-clone

1. **Data**: the replays in ``--data`` (a folder from ``arena episodes``, or a dump's ``.jsonl.gz`` from
   ``/data/``), read by ``arena.data`` with ``raw=True``: every decision of the ``--bots`` seats, re-run
   through the engine, with the observation the seat had, its legal actions and the one it chose. Without
   ``--data`` the example makes its own: ``--demo-matches`` bura matches of the built-in ``search-2`` (the
   strongest built-in Bura bot, standing in for the ladder's top) against ``greedy``, written as replays.
2. **Cloning**: the linear softmax policy of ``policy.py`` (24 action features), fitted by maximum likelihood
   to the chosen actions: full-batch gradient steps with Adam on the mean negative log-likelihood (numpy).
3. **Fine-tuning**: REINFORCE from the cloned weights, one-deal episodes against ``greedy`` through
   ``arena.env.KozyrGymEnv`` (as ``train.py`` does from zero), for ``--finetune-minutes`` of CPU.
4. **Measure**: whole bura matches against ``greedy`` on ``--eval-seeds`` duplicate deal sequences (each
   twice, seats swapped), the cloned and the fine-tuned weights alike; 95% intervals over the seeds.
5. **Export**: ``<out>/bot/`` (``main.py``, ``policy.py``, ``weights.json``; standard library only), ready for
   ``arena play bura <out>/bot builtin:greedy`` and for upload.

Everything is seeded: the same command gives the same clone and the same figures for it; the fine-tuning's
budget is CPU time, so how many episodes it plays (and its weights) varies with the machine's speed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import policy  # noqa: E402  (this folder's module, shared with the exported bot)
import train  # noqa: E402  (the evaluation, the export and the REINFORCE loop's conventions)

from arena import data  # noqa: E402
from arena.env import KozyrGymEnv  # noqa: E402

DEMO_BOT = "search-2"
DEMO_SEED = 39


def demo_replays(folder: Path, matches: int) -> set[str]:
    """``matches`` bura matches of builtin:search-2 against builtin:greedy, seats rotated, as replays in
    ``folder``; the bot names to clone."""
    subprocess.run([str(REPO / ".venv/bin/arena"), "play", "bura", f"builtin:{DEMO_BOT}", "builtin:greedy",
                    "--games", str(matches), "--duplicate", "--seed", str(DEMO_SEED), "--replays", str(folder),
                    "--quiet"], check=True)
    return {f"builtin:{DEMO_BOT}"}


def decisions(source: Path, bots: set[str]) -> tuple[list[np.ndarray], np.ndarray, int]:
    """Per decision of the ``bots`` seats: the feature rows of its legal actions and the index of the chosen
    one; and how many matches they came from."""
    rows: list[np.ndarray] = []
    chosen: list[int] = []
    matches = set()
    for trajectory in data.load(source, bots=bots, raw=True):
        matches.add(trajectory.source)
        for observation, moves, action in zip(trajectory.raw_observations, trajectory.legal_moves,
                                              trajectory.engine_actions, strict=True):
            actions = [move for _, move in moves]
            if len(actions) < 2:
                continue  # a forced move teaches nothing
            rows.append(np.array([policy.features(observation, a) for a in actions]))
            chosen.append(next(i for i, a in enumerate(actions) if data._key(a) == data._key(action)))
    return rows, np.array(chosen), len(matches)


def clone(rows: list[np.ndarray], chosen: np.ndarray, steps: int = 300, learning_rate: float = 0.05
          ) -> tuple[np.ndarray, list[float]]:
    """Maximum likelihood of the chosen actions under the linear softmax policy; the weights and the loss
    every 50 steps."""
    # One matrix of every legal action's features, with each decision's slice: the whole batch in a few numpy
    # calls per step.
    flat = np.concatenate(rows)
    bounds = np.cumsum([0] + [len(r) for r in rows])
    starts = bounds[:-1]
    picked = flat[starts + chosen]
    weights = np.zeros(policy.SIZE)
    moment, second = np.zeros(policy.SIZE), np.zeros(policy.SIZE)
    losses = []
    for step in range(1, steps + 1):
        s = flat @ weights
        peak = np.maximum.reduceat(s, starts)
        e = np.exp(s - np.repeat(peak, np.diff(bounds)))
        total = np.add.reduceat(e, starts)
        p = e / np.repeat(total, np.diff(bounds))
        loss = float(np.mean(np.log(total) + peak - picked @ weights))
        expected = np.add.reduceat(flat * p[:, None], starts)
        grad = (expected - picked).mean(axis=0)
        moment = 0.9 * moment + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        weights -= learning_rate * (moment / (1 - 0.9 ** step)) / (np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
        if step % 50 == 0:
            losses.append(loss)
    return weights, losses


def agreement(weights: np.ndarray, rows: list[np.ndarray], chosen: np.ndarray) -> float:
    """How often the policy's best action is the one the cloned bot chose."""
    return float(np.mean([int(np.argmax(r @ weights)) == c for r, c in zip(rows, chosen, strict=True)]))


def finetune(weights: np.ndarray, minutes: float, *, learning_rate: float = 0.01, seed: int = 0) -> tuple[
        np.ndarray, dict]:
    """REINFORCE from ``weights`` against greedy (train.py's loop, started from the clone instead of zero)."""
    env = KozyrGymEnv("bura", "builtin:greedy", rules={"match": "deals:1"})
    weights = weights.copy()
    rng = np.random.default_rng(seed)
    baseline = 0.0
    moment, second, steps, episodes = np.zeros(policy.SIZE), np.zeros(policy.SIZE), 0, 0
    start = time.process_time()
    while time.process_time() - start < minutes * 60:
        _, info = env.reset(seed=train.TRAIN_SEED + episodes)
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
        g = (reward - baseline) * grads
        moment = 0.9 * moment + 0.1 * g
        second = 0.999 * second + 0.001 * g * g
        steps += 1
        weights += learning_rate * (moment / (1 - 0.9 ** steps)) / (np.sqrt(second / (1 - 0.999 ** steps)) + 1e-8)
        baseline += 0.01 * (reward - baseline)
        episodes += 1
    return weights, {"episodes": episodes, "cpu_seconds": time.process_time() - start}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="replays: a folder (arena episodes) or a dump's .jsonl.gz")
    parser.add_argument("--bots", help="the bots to clone, by name, comma-separated (with --data)")
    parser.add_argument("--demo-matches", type=int, default=400,
                        help=f"without --data: bura matches of builtin:{DEMO_BOT} against greedy to clone")
    parser.add_argument("--finetune-minutes", type=float, default=1.0, help="CPU minutes of REINFORCE after")
    parser.add_argument("--eval-seeds", type=int, default=1000, help="duplicate deal sequences to measure on")
    parser.add_argument("--out", type=Path, default=Path("out/bura-clone"))
    args = parser.parse_args(argv)
    if (args.data is None) != (args.bots is None):
        parser.error("--data and --bots go together: the replays, and whose play in them to clone")
    started = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        if args.data is None:
            print(f"no --data: playing {args.demo_matches} bura matches of builtin:{DEMO_BOT} against greedy")
            source, bots = Path(folder), demo_replays(Path(folder), args.demo_matches)
        else:
            source, bots = args.data, {name.strip() for name in args.bots.split(",") if name.strip()}
        rows, chosen, matches = decisions(source, bots)
    if not rows:
        raise SystemExit(f"no decision of {', '.join(sorted(bots))} in {source}: check the names (arena.data)")
    print(f"{len(rows)} decisions of {', '.join(sorted(bots))} from {matches} matches")
    clock = time.process_time()
    weights, losses = clone(rows, chosen)
    print(f"cloned in {time.process_time() - clock:.1f} s CPU: loss {losses[0]:.3f} -> {losses[-1]:.3f}, "
          f"agrees with the cloned bot on {agreement(weights, rows, chosen):.1%} of its decisions")
    cloned = train.evaluate(weights, args.eval_seeds)
    print(f"cloned, against greedy over {cloned['matches']} matches ({args.eval_seeds} duplicate deal sequences): "
          f"win rate {cloned['win_rate']:.3f}, 95% interval {cloned['ci95'][0]:.3f} to {cloned['ci95'][1]:.3f}")
    summary: dict = {"decisions": len(rows), "matches": matches, "cloned": cloned}
    if args.finetune_minutes > 0:
        weights, tuned = finetune(weights, args.finetune_minutes)
        result = train.evaluate(weights, args.eval_seeds)
        print(f"fine-tuned on {tuned['episodes']} deals in {tuned['cpu_seconds']:.0f} s CPU: win rate "
              f"{result['win_rate']:.3f}, 95% interval {result['ci95'][0]:.3f} to {result['ci95'][1]:.3f}")
        summary.update(finetune=tuned, evaluation=result)
    summary["cpu_seconds"] = round(time.process_time() - started, 1)
    bot = train.export(weights, args.out / "bot", summary)
    print(f"exported {bot} ({summary['cpu_seconds']:.0f} s CPU in all): try  .venv/bin/arena play bura {bot} "
          f"builtin:greedy --games 20 --duplicate")


if __name__ == "__main__":
    main()
