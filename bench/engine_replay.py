"""The engine alone: recorded matches replayed through ``new_match`` + ``observation`` + ``apply``.

``bench/engine.py`` times the engine together with the random bots, and Burraco's random bot spends
most of that time searching melds. Here the bots run once, to record the actions of seeded matches
(``--deals`` deals per preset, whole matches); then only the engine is timed, replaying those actions:
for every decision the mover's observation (and, where the game lists them, its legal actions), then
``apply``. The recording is plain JSON, so the very same actions replay through another revision:

    .venv/bin/python bench/engine_replay.py --presets burraco,kozel --seconds 2
    .venv/bin/python bench/engine_replay.py --baseline a184830 --presets burraco,kozel --rounds 3

``--worker PRESET --recording FILE --repeat N --seconds S`` replays a recording N times, then on until S
seconds have passed, and prints JSON; it is what the side-by-side run starts in a fresh process per
figure, and with ``--seconds 0`` a fixed amount of work for ``valgrind --tool=callgrind`` (two runs with
different N give the instructions per replay, start-up subtracted). Time is CPU time of the replaying
process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import BUILDS, engine_build, extract
from selection import chosen_presets

from arena.bots import make_bot
from arena.cards import derive_seed
from arena.games import new_match, resolve

RECORD_SEED = 20261203


def record(game: str, rules, deals_wanted: int) -> list[dict]:
    """Seeded random-bot matches, whole, until ``deals_wanted`` deals were played: [{seed, actions}]."""
    matches = []
    deals = 0
    match_no = 0
    while deals < deals_wanted:
        seed = derive_seed(RECORD_SEED, match_no)
        match_no += 1
        state = new_match(rules, seed)
        bots = [make_bot(game, "random", seat, rules, derive_seed(seed, 7, seat)) for seat in range(state.num_seats)]
        actions = []
        while not state.is_over():
            seat = state.to_move()
            action = bots[seat].act(state.observation(seat), state.legal_actions(seat))
            state.apply(seat, action)
            actions.append(action)
        deals += len(state.outcome()["deals"])
        matches.append({"seed": seed, "actions": actions})
    return matches


def replay(rules, matches: list[dict]) -> int:
    """Every recorded match once through the engine; returns the number of decisions replayed."""
    decisions = 0
    for match in matches:
        state = new_match(rules, match["seed"])
        for action in match["actions"]:
            seat = state.to_move()
            state.observation(seat)
            state.legal_actions(seat)
            state.apply(seat, action)
        decisions += len(match["actions"])
    return decisions


def worker(preset: str, recording: str, repeat: int, seconds: float) -> dict:
    import arena

    _game, rules = resolve(preset)
    matches = json.loads(Path(recording).read_text())
    decisions = 0
    start = time.process_time()
    rounds = 0
    while rounds < repeat or (seconds and time.process_time() - start < seconds):
        decisions += replay(rules, matches)
        rounds += 1
    elapsed = time.process_time() - start
    return {"decisions": decisions, "elapsed": elapsed, "arena": str(Path(arena.__file__).parent),
            "engines": engine_build(_game)}


def measure_in(tree: str, preset: str, recording: str, seconds: float) -> float:
    """Decisions per second replayed in a fresh process importing ``arena`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": tree}
    out = subprocess.run([sys.executable, __file__, "--worker", preset, "--recording", recording,
                          "--repeat", "1", "--seconds", str(seconds)],
                         env=env, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    if Path(result["arena"]).resolve() != (Path(tree) / "arena").resolve():
        raise SystemExit(f"the worker imported arena from {result['arena']}, not from {tree}")
    BUILDS[tree] = result["engines"]
    return result["decisions"] / result["elapsed"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="burraco,burraco-2p,kozel,kozel-3p", help="comma-separated presets")
    parser.add_argument("--deals", type=int, default=300, help="deals recorded per preset (default 300)")
    parser.add_argument("--seconds", type=float, default=2.0, help="replay time per figure (default 2)")
    parser.add_argument("--baseline", metavar="REV", help="compare with the engines of this git revision")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds per figure with --baseline")
    parser.add_argument("--record", metavar="FILE", help="only record PRESET's matches into FILE")
    parser.add_argument("--worker", metavar="PRESET", help="replay --recording and print JSON")
    parser.add_argument("--recording", metavar="FILE")
    parser.add_argument("--repeat", type=int, default=1, help="replays of the recording in --worker")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.recording, args.repeat, args.seconds)))
        return
    chosen = chosen_presets(parser, args.presets)
    if args.record:
        for _name, game, rules in chosen:
            Path(args.record).write_text(json.dumps(record(game, rules, args.deals)))
        return
    with tempfile.TemporaryDirectory(prefix="engine-replay-") as tmp:
        trees = {"now": str(Path(__file__).resolve().parent.parent)}
        if args.baseline:
            trees = {"baseline": extract(args.baseline, tmp), **trees}
        print(f"replayed decisions/s (observation + legal actions + apply), best of {args.rounds} rounds of "
              f"{args.seconds:g} s; {args.deals} recorded deals per preset"
              + (f"; baseline = {args.baseline}" if args.baseline else ""))
        print(f"{'preset':<12} {'decisions':>9}" + "".join(f" {side:>10}" for side in trees)
              + (f" {'speed-up':>9}" if args.baseline else ""))
        for name, game, rules in chosen:
            recording = str(Path(tmp) / f"{name}.json")
            matches = record(game, rules, args.deals)
            Path(recording).write_text(json.dumps(matches))
            best = {side: 0.0 for side in trees}
            for _ in range(args.rounds):
                for side, tree in trees.items():
                    best[side] = max(best[side], measure_in(tree, name, recording, args.seconds))
            line = f"{name:<12} {sum(len(m['actions']) for m in matches):>9}"
            line += "".join(f" {best[side]:>10.0f}" for side in trees)
            if args.baseline:
                line += f" {best['now'] / best['baseline']:>8.2f}x"
            print(line + f"  (engines: {' / '.join(BUILDS[tree] for tree in trees.values())})", flush=True)


if __name__ == "__main__":
    main()
