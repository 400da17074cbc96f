"""What a bot's stderr flood costs the worker: worker CPU per bot CPU while a bot writes newlines to stderr.

A bot writes MiB of bare newlines (the costliest shape for a line-splitting reader) to stderr before its
`ready`, then plays fair; the referee's process CPU time (all its threads) is compared with the bot's own.

    .venv/bin/python bench/stderr_flood.py [--mib 24] [--sandbox unsafe|bwrap]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import sandbox
from arena.bots import make_bot
from arena.games import resolve
from arena.players import BuiltinPlayer, ExternalPlayer
from arena.referee import TimeControl, play_match

FLOODER = """
import json, os, sys
hello = sys.stdin.readline()
chunk = b"\\n" * 65536
for _ in range({chunks}):
    os.write(2, chunk)
print(json.dumps({{"type": "ready", "name": "flooder"}}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "request":
        print(json.dumps({{"type": "action", "id": message["id"], "action": message["legal_actions"][0]}}),
              flush=True)
"""


def measure(mib: int, backend: str) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "main.py").write_text(FLOODER.format(chunks=mib * 16))
        game, rules = resolve("bura")

        def launch():
            return sandbox.start(["python3", "main.py"], Path(folder), sandbox.Limits(), backend=backend,
                                 allow_unsafe=backend == "unsafe")

        players = [ExternalPlayer("flooder", launch),
                   BuiltinPlayer("builtin:random", make_bot(game, "random", 1, rules, 1), name="random")]
        before = time.process_time()
        record = play_match(rules, 1, players, preset="bura",
                            time_control=TimeControl(startup_ms=60_000, move_ms=1000, bank_ms=1000))
        worker = time.process_time() - before
    bot = record.reports[0].resources["cpu_seconds"]
    return worker, bot, record.reports[0].stderr_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=24)
    parser.add_argument("--sandbox", default="unsafe", choices=("unsafe", "bwrap"))
    args = parser.parse_args()
    worker, bot, read = measure(args.mib, args.sandbox)
    print(f"a bot wrote {args.mib} MiB of newlines to stderr (the referee read {read / 2**20:.1f} MiB), "
          f"sandbox {args.sandbox}")
    print(f"worker CPU {worker:.3f} s, bot CPU {bot:.3f} s: {worker / bot:.2f}x the bot's own")


if __name__ == "__main__":
    main()
