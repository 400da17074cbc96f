"""Replay viewer: the server time of the frames endpoint per chunk on the longest Burraco replay.

Plays Burraco (4 players and 2) between the greedy and random built-in bots over a few seeds, plus matches
to a higher target (more deals, so a longer replay), keeps the longest, and times what
/matches/<id>/frames/ does: the first request of a view computes all its frames and stores them (media
storage), later ones slice the stored frames and gzip them. The browser's time to interactive is measured by
tests/e2e/test_long_replay.py (written to tests/e2e/artifacts/timings.json).

    .venv/bin/python bench/replay_viewer.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")


def longest_burraco(seeds: int) -> tuple[dict, str]:
    from arena.bots import make_bot
    from arena.games import resolve
    from arena.games.options import with_options
    from arena.players import BuiltinPlayer
    from arena.referee import play_match

    best, label = None, ""
    for preset, overrides in (("burraco", {}), ("burraco-2p", {}), ("burraco", {"target": "6000"}),
                              ("burraco-2p", {"target": "6000"})):
        game, rules = resolve(preset)
        rules = with_options(rules, overrides)
        for seed in range(1, seeds + 1):
            players = [BuiltinPlayer(f"builtin:{name}", make_bot(game, name, s, rules, seed), name=name)
                       for s, name in zip(range(rules.players), ["greedy", "random"] * 2, strict=False)]
            replay = play_match(rules, seed, players, preset=preset).replay
            if best is None or len(replay["actions"]) > len(best["actions"]):
                best, label = replay, f"{preset} {overrides or ''} seed {seed}".replace("  ", " ")
    return best, label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--count", type=int, default=100, help="frames per chunk (the viewer asks for 100)")
    args = parser.parse_args()
    import django

    django.setup()
    from bots import blobs
    from web import replay_views

    replay, label = longest_burraco(args.seeds)
    steps = len(replay["actions"])
    print(f"longest replay: {label}: {steps} actions, {len(replay['outcome']['deals'])} deals")
    sha = blobs.put("replays", gzip.compress(orjson.dumps(replay)))
    for seat in (None, 0):
        began = time.perf_counter()
        data = replay_views.stored_slice(sha, seat, 0, args.count)  # computes and stores the whole view
        cold = (time.perf_counter() - began) * 1000
        packed = gzip.compress(data, compresslevel=6)  # as the endpoint's gzip_page does
        times = []
        for start in range(0, steps + 1, args.count):
            began = time.perf_counter()
            gzip.compress(replay_views.stored_slice(sha, seat, start, args.count), compresslevel=6)
            times.append((time.perf_counter() - began) * 1000)
        name = "all" if seat is None else f"seat {seat}"
        print(f"  seat={name:<7} first request (the whole view computed and stored, then sliced): {cold:6.1f} ms, "
              f"{len(data) / 1024:.0f} KiB JSON, {len(packed) / 1024:.0f} KiB gzip")
        print(f"  seat={name:<7} later chunks of {args.count} (sliced from storage + gzip): median "
              f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms over {len(times)} chunks")


if __name__ == "__main__":
    main()
