"""Long matches: is the cost per deal constant? A bura match of 256 and of 1,024 deals between built-in bots,
through the referee, with the garbage collector on and paused (as the runner pauses it), plus the size of
the replay a pool worker ships back (as a dict, pickled, and as the .json.gz bytes the runner now sends).

    .venv/bin/python bench/long_match.py [--preset bura] [--deals 256 1024]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import time

from arena.bots import make_bot
from arena.games import resolve
from arena.players import BuiltinPlayer
from arena.referee import play_match
from arena.runner import replay_gzip


def one(preset: str, deals: int, collect: bool) -> tuple[float, int, dict]:
    game, rules = resolve(preset, {"match": f"deals:{deals}", "deal_limit": str(max(deals, 200))})
    players = [BuiltinPlayer(f"builtin:greedy{s}", make_bot(game, "greedy", s, rules, s), name="greedy")
               for s in range(2)]
    gc.collect()
    if not collect:
        gc.disable()
    started = time.process_time()  # CPU time: other load on the machine moves it far less than wall time
    try:
        record = play_match(rules, 3, players, preset=preset)
    finally:
        gc.enable()
    return time.process_time() - started, record.result["deals"], record.replay


def best_of(repeats: int, preset: str, deals: int, collect: bool) -> tuple[float, int, dict]:
    runs = [one(preset, deals, collect) for _ in range(repeats)]
    return min(runs, key=lambda run: run[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--deals", type=int, nargs=2, default=[256, 1024])
    parser.add_argument("--repeats", type=int, default=3, help="the best of this many runs counts")
    args = parser.parse_args()
    short, long = args.deals
    print(f"preset {args.preset}: built-in greedy vs greedy, a match of {short} and one of {long} deals, CPU time, "
          f"best of {args.repeats}")
    for collect in (True, False):
        t_short, d_short, r_short = best_of(args.repeats, args.preset, short, collect)
        t_long, d_long, r_long = best_of(args.repeats, args.preset, long, collect)
        per_short, per_long = t_short / d_short * 1e3, t_long / d_long * 1e3
        print(f"gc {'on    ' if collect else 'paused'}: {per_short:.3f} ms/deal at {d_short} deals, {per_long:.3f} "
              f"ms/deal at {d_long} deals: {per_long / per_short:.2f}x per deal (1.00 = linear)")
    for deals, replay in ((d_short, r_short), (d_long, r_long)):
        print(f"replay of {deals} deals shipped from a worker: pickled dict {len(pickle.dumps(replay)) / 1024:.0f} "
              f"KiB, .json.gz {len(replay_gzip(replay)) / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
