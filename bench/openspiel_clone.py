"""What an OpenSpiel state's clone costs, and what that does to MCTS: the presets as pyspiel games.

OpenSpiel's algorithms clone the state at every step (MCTS once per simulation and rollout, the random
simulation checks at every move), and pyspiel clones a Python game's state by deep-copying its fields,
the engine's match among them. Per preset, a seeded random match is played and the state at a quarter,
half and nine tenths of it is cloned repeatedly (microseconds per clone, median of five batches); then
an ``MCTSBot`` (``--simulations`` simulations, one random rollout each) chooses every decision of seat 0
for ``--seconds`` (decisions per second, CPU time of this process).

The MCTS figure is a speed figure, not a player: OpenSpiel's ``MCTSBot`` searches the state it is given,
which is the true deal, so it sees every card. The honest search is ISMCTS over resampled states, and its
strength against ``greedy`` is bench/openspiel_ismcts.py's.

``--baseline REV`` runs the same in a fresh process on the ``arena`` of git revision REV (``git archive``)
and on this checkout, both on the Python engines (``KOZYR_ENGINES=python``: an archived revision has no
compiled build), and prints the two side by side.

    .venv/bin/python bench/openspiel_clone.py
    .venv/bin/python bench/openspiel_clone.py --baseline ea0bf02
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import engine_build, extract

GAMES = (  # (pyspiel name, parameters, engine family)
    ("python_kozyr_bura", {}, "bura"),
    ("python_kozyr_kozel", {}, "kozel"),
    ("python_kozyr_burraco_2p", {"rules": "target:300"}, "burraco"),
    ("python_kozyr_burraco", {"rules": "target:300"}, "burraco"),
)
POINTS = (0.25, 0.5, 0.9)


def clone_micros(game, fraction: float) -> float:
    import numpy as np

    rng = np.random.RandomState(11)
    actions = []
    state = game.new_initial_state()
    state.apply_action(1)
    while not state.is_terminal():
        actions.append(int(rng.choice(state.legal_actions())))
        state.apply_action(actions[-1])
    state = game.new_initial_state()
    state.apply_action(1)
    for action in actions[:int(len(actions) * fraction)]:
        state.apply_action(action)
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(50):
            state.clone()
        batches.append((time.perf_counter() - start) / 50 * 1e6)
    return statistics.median(batches)


def mcts_rate(game, simulations: int, seconds: float) -> float:
    import numpy as np
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(3)
    bot = mcts.MCTSBot(game, uct_c=1.4, max_simulations=simulations,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng)
    decisions, spent = 0, 0.0
    while spent < seconds:
        state = game.new_initial_state()
        while not state.is_terminal() and spent < seconds:
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            elif state.current_player() == 0:
                start = time.process_time()
                state.apply_action(bot.step(state))
                spent += time.process_time() - start
                decisions += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
    return decisions / spent


def worker(simulations: int, seconds: float) -> dict:
    import pyspiel

    import arena
    from arena.env.openspiel import register_openspiel

    register_openspiel()
    rows = {}
    for name, params, family in GAMES:
        game = pyspiel.load_game(name, params)
        rows[name] = {"clone_us": [clone_micros(game, f) for f in POINTS],
                      "mcts_per_s": mcts_rate(game, simulations, seconds), "engines": engine_build(family)}
    return {"rows": rows, "arena": str(Path(arena.__file__).parent)}


def run_in(tree: str, simulations: int, seconds: float, env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", "--simulations", str(simulations),
                          "--seconds", str(seconds)], env={**env, "PYTHONPATH": tree}, check=True,
                         capture_output=True, text=True)
    result = json.loads(out.stdout)
    if Path(result["arena"]).resolve() != (Path(tree) / "arena").resolve():
        raise SystemExit(f"the worker imported arena from {result['arena']}, not from {tree}")
    return result["rows"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=20, help="MCTS simulations per decision (default 20)")
    parser.add_argument("--seconds", type=float, default=5.0, help="MCTS time per preset (default 5)")
    parser.add_argument("--baseline", metavar="REV", help="compare with the arena of this git revision")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.simulations, args.seconds)))
        return
    repo = str(Path(__file__).resolve().parent.parent)
    points = "/".join(f"{p:.0%}" for p in POINTS)
    with tempfile.TemporaryDirectory(prefix="openspiel-clone-") as tmp:
        sides = {"now": (repo, dict(os.environ))}
        if args.baseline:
            python = {**os.environ, "KOZYR_ENGINES": "python"}
            sides = {"baseline": (extract(args.baseline, tmp), python), "now": (repo, python)}
        results = {side: run_in(tree, args.simulations, args.seconds, env) for side, (tree, env) in sides.items()}
    print(f"pyspiel clone (µs, at {points} of a seeded random match) and MCTS decisions/s "
          f"({args.simulations} simulations, CPU time; MCTS searches the true deal: a speed figure only)"
          + (f"; baseline = {args.baseline}" if args.baseline else ""))
    for name, _params, _family in GAMES:
        for side, rows in results.items():
            row = rows[name]
            clones = " / ".join(f"{us:,.0f}" for us in row["clone_us"])
            print(f"{name:<26} {side:<9} clone {clones:>22} µs   MCTS {row['mcts_per_s']:7.1f}/s   "
                  f"(engines: {row['engines']})")


if __name__ == "__main__":
    main()
