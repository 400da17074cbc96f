"""Protocol overhead: per-decision round trip through the referee vs. the same bytes over bare pipes.

Both seats are the same external Python bot (bench/bots/first_legal.py). First the referee plays whole
matches, and every line it sends each bot is recorded, with the time between consecutive answers
(which covers everything the referee does per decision: observation, legal actions, events, encoding,
reading, validation, applying). Then the recorded lines are replayed to fresh bot processes over plain
pipes with no referee, and the same interval is timed. Goal (issue 9): the median within 1.1x of the bare one.

    .venv/bin/python bench/protocol.py [--matches 20] [--preset bura] [--sandbox unsafe|bwrap]
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import sandbox
from arena import protocol
from arena.cards import derive_seed
from arena.games import resolve
from arena.players import ExternalPlayer
from arena.referee import TimeControl, play_match

BOT_DIR = Path(__file__).resolve().parent / "bots"
COMMAND = ["python3", "first_legal.py"]


class Recording:
    """Wraps a player: records every message sent to it and when each answer arrived."""

    def __init__(self, player, clock: list[float]):
        self._player = player
        self.label = player.label
        self.sent: list[list[bytes]] = [[]]  # per decision: the lines sent before and including the request
        self._clock = clock

    def launch(self, hello, deadline):
        self.hello = protocol.encode(hello)
        self._player.launch(hello, deadline)

    def wait_ready(self, deadline):
        return self._player.wait_ready(deadline)

    def start(self, hello, deadline):  # a referee from before launch/wait_ready (for before/after figures)
        self.hello = protocol.encode(hello)
        return self._player.start(hello, deadline)

    def send(self, message, deadline):
        self._player.send(message, deadline)

    def ask(self, request, deadline, before=()):
        reply = self._player.ask(request, deadline, before)
        self._clock.append(time.perf_counter())
        self.sent[-1] = [*before, request]  # encoded later, so recording costs the referee nothing
        self.sent.append([])
        return reply

    def hang_up(self, farewell):
        if hasattr(self._player, "hang_up"):  # a referee from before hang_up (for before/after figures)
            self._player.hang_up(farewell)

    def close(self, farewell=()):
        return self._player.close(farewell)


def launcher(backend: str):
    limits = sandbox.Limits()
    return lambda: sandbox.start(COMMAND, BOT_DIR, limits, backend=backend, allow_unsafe=backend == "unsafe")


def intervals(stamps: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(stamps)]


def through_referee(preset: str, seed: int, backend: str):
    _, rules = resolve(preset)
    clock: list[float] = []
    seats = [Recording(ExternalPlayer(f"bot{s}", launcher(backend)), clock) for s in range(2)]
    record = play_match(rules, seed, seats, preset=preset, time_control=TimeControl())
    assert all(s["verdict"] == "ok" for s in record.result["seats"]), record.result["seats"]
    order = [a["seat"] for a in record.replay["actions"]]
    return intervals(clock), seats, order


def over_bare_pipes(seats, order: list[int]) -> list[float]:
    # the interpreter the sandbox runs, not a PATH shim's (another build could be faster or slower)
    command = [shutil.which(COMMAND[0], path="/usr/local/bin:/usr/bin:/bin") or COMMAND[0], *COMMAND[1:]]
    procs = [subprocess.Popen(command, cwd=BOT_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in seats]
    for proc, seat in zip(procs, seats, strict=True):
        proc.stdin.write(seat.hello)
        proc.stdin.flush()
        proc.stdout.readline()
    cursor = [0, 0]
    clock = []
    for s in order:
        proc = procs[s]
        proc.stdin.write(b"".join(map(protocol.encode, seats[s].sent[cursor[s]])))
        proc.stdin.flush()
        cursor[s] += 1
        proc.stdout.readline()
        clock.append(time.perf_counter())
    for proc in procs:
        proc.stdin.close()
        proc.wait()
    return intervals(clock)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--sandbox", default="unsafe", choices=("unsafe", "bwrap"))
    args = parser.parse_args()
    referee, bare = [], []
    for m in range(args.matches):
        through, seats, order = through_referee(args.preset, derive_seed(77, m), args.sandbox)
        referee += through
        bare += over_bare_pipes(seats, order)
    r, b = statistics.median(referee), statistics.median(bare)
    print(f"preset {args.preset}, {args.matches} matches, {len(referee)} decisions, bot launcher {args.sandbox}")
    print(f"median per-decision round trip through the referee: {r * 1e6:8.1f} µs")
    print(f"median per-decision round trip over bare pipes:     {b * 1e6:8.1f} µs")
    print(f"ratio: {r / b:.2f}x (goal: at most 1.1x)")


if __name__ == "__main__":
    main()
