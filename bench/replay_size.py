"""Replay size: raw and gzip-compressed JSON of typical matches between built-in bots, per preset.

    .venv/bin/python bench/replay_size.py [--matches 20] [--presets bura,burraco]
"""

from __future__ import annotations

import argparse
import gzip
import statistics

from arena import replay as replays
from arena.bots import make_bot
from arena.cards import derive_seed
from arena.games import all_presets, new_match
from arena.players import BuiltinPlayer
from arena.referee import play_match


def sizes(preset: str, game: str, rules, matches: int) -> tuple[list[int], list[int], list[int]]:
    raw, packed, actions = [], [], []
    for m in range(matches):
        seed = derive_seed(4242, m)
        players = []
        n = new_match(rules, seed).num_seats
        for seat in range(n):
            name = "greedy" if seat % 2 == 0 else "random"
            players.append(BuiltinPlayer(f"builtin:{name}", make_bot(game, name, seat, rules, seed + seat), name))
        record = play_match(rules, seed, players, preset=preset)
        data = replays.dumps(record.replay)
        raw.append(len(data))
        packed.append(len(gzip.compress(data, compresslevel=9, mtime=0)))
        actions.append(len(record.replay["actions"]))
    return raw, packed, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--presets", default="")
    args = parser.parse_args()
    wanted = set(filter(None, args.presets.split(",")))
    print(f"{'preset':<16}{'actions':>9}{'raw KiB':>10}{'gzip KiB':>10}   (medians of {args.matches} matches, "
          f"greedy vs random)")
    for preset, (game, rules) in all_presets().items():
        if wanted and preset not in wanted:
            continue
        raw, packed, actions = sizes(preset, game, rules, args.matches)
        print(f"{preset:<16}{statistics.median(actions):>9.0f}{statistics.median(raw) / 1024:>10.1f}"
              f"{statistics.median(packed) / 1024:>10.1f}")


if __name__ == "__main__":
    main()
