"""Sandbox overhead: start-up to the first protocol reply, and the per-decision round trip, bwrap vs bare.

    .venv/bin/python bench/isolation.py [--runs 30] [--lines 1000]

Goals: start-up under bwrap <= 1.3x bare; round trip within 10% of bare. Prints medians (ms).
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from arena.games import new_match
from sandbox import Limits, start

PYTHON = "/usr/bin/python3"
# A real protocol bot (it parses every line as JSON and answers with its first legal action), so both
# figures are what a bot author's Python bot pays, not an echo loop's.
BOT = (Path(__file__).resolve().parent / "bots" / "first_legal.py").read_text()


def sample_messages() -> tuple[bytes, bytes]:
    """A real hello and a real request of a Bura deal, as the referee encodes them."""
    from arena import protocol
    from arena.games import resolve
    from arena.games.options import rules_to_dict

    game, rules = resolve("burkozel")
    state = new_match(rules, 1)
    seat = state.to_move()
    hello = protocol.hello(game=game, preset="burkozel", rules=rules_to_dict(rules), seat=seat, players=2,
                           teams=[[0], [1]], time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000})
    request = protocol.request(request_id=1, decision="lead", observation=state.observation(seat),
                               legal_actions=state.legal_actions(seat), time_left_ms=11000)
    return protocol.encode(hello), protocol.encode(request)


def read_line(fd: int) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        select.select([fd], [], [], 10)
        chunk = os.read(fd, 65536)
        if not chunk:
            raise RuntimeError("bot closed stdout")
        data += chunk
    return data


class Bare:
    def __init__(self, folder: Path):
        self.popen = subprocess.Popen([PYTHON, "bot.py"], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, bufsize=0, env={"PATH": "/usr/bin"})  # fmt: skip
        self.stdin, self.stdout = self.popen.stdin, self.popen.stdout

    def finish(self):
        self.stdin.close()
        self.popen.wait()


class Boxed:
    def __init__(self, folder: Path):
        self.proc = start([PYTHON, "bot.py"], folder, Limits())
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def finish(self):
        self.proc.finish()
        self.proc.close()


def startup(kind, folder: Path, runs: int, hello: bytes) -> float:
    """From asking for the process to the bot's 'ready' answering the hello."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        bot = kind(folder)
        bot.stdin.write(hello)
        read_line(bot.stdout.fileno())
        times.append(time.perf_counter() - began)
        bot.finish()
    return statistics.median(times) * 1000


def round_trip(kind, folder: Path, lines: int, hello: bytes, line: bytes) -> float:
    """One request with a real observation and legal actions, to the bot's action."""
    bot = kind(folder)
    bot.stdin.write(hello)
    read_line(bot.stdout.fileno())
    times = []
    for _ in range(lines):
        began = time.perf_counter()
        bot.stdin.write(line)
        read_line(bot.stdout.fileno())
        times.append(time.perf_counter() - began)
    bot.finish()
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    hello, request = sample_messages()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bot.py").write_text(BOT)
        os.chmod(folder, 0o755)
        startup(Boxed, Path(folder), 2, hello)  # warm caches (seccomp program, cgroup detection, page cache)
        bare_start = startup(Bare, Path(folder), args.runs, hello)
        boxed_start = startup(Boxed, Path(folder), args.runs, hello)
        bare_trip = round_trip(Bare, Path(folder), args.lines, hello, request)
        boxed_trip = round_trip(Boxed, Path(folder), args.lines, hello, request)
    print(f"start-up to 'ready'     bare {bare_start:7.2f} ms   bwrap {boxed_start:7.2f} ms   "
          f"ratio {boxed_start / bare_start:.2f}x (goal <= 1.3x), median of {args.runs}")  # fmt: skip
    print(f"request → action        bare {bare_trip:7.3f} ms   bwrap {boxed_trip:7.3f} ms   "
          f"ratio {boxed_trip / bare_trip:.2f}x (goal <= 1.1x), median of {args.lines}")  # fmt: skip


if __name__ == "__main__":
    main()
