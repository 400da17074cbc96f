"""Sandbox overhead: start-up to the first reply line, and the per-decision round trip, bwrap vs bare.

    .venv/bin/python bench/sandbox.py [--runs 30] [--lines 1000]

Goals: start-up under bwrap <= 1.3x bare; round trip within 10% of bare. Prints medians (ms).
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sandbox import Limits, start

PYTHON = "/usr/bin/python3"
BOT = """import sys
print('{"type":"ready"}', flush=True)
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"""


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


def startup(kind, folder: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        bot = kind(folder)
        read_line(bot.stdout.fileno())
        times.append(time.perf_counter() - began)
        bot.finish()
    return statistics.median(times) * 1000


def round_trip(kind, folder: Path, lines: int) -> float:
    bot = kind(folder)
    read_line(bot.stdout.fileno())
    line = b'{"type":"act","legal":[{"type":"play","card":"AS"}]}\n'
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
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bot.py").write_text(BOT)
        os.chmod(folder, 0o755)
        startup(Boxed, Path(folder), 2)  # warm caches (seccomp program, cgroup detection, page cache)
        bare_start = startup(Bare, Path(folder), args.runs)
        boxed_start = startup(Boxed, Path(folder), args.runs)
        bare_trip = round_trip(Bare, Path(folder), args.lines)
        boxed_trip = round_trip(Boxed, Path(folder), args.lines)
    print(f"start-up to first line  bare {bare_start:7.2f} ms   bwrap {boxed_start:7.2f} ms   "
          f"ratio {boxed_start / bare_start:.2f}x (goal <= 1.3x), median of {args.runs}")  # fmt: skip
    print(f"round trip per line     bare {bare_trip:7.3f} ms   bwrap {boxed_trip:7.3f} ms   "
          f"ratio {boxed_trip / bare_trip:.2f}x (goal <= 1.1x), median of {args.lines}")  # fmt: skip


if __name__ == "__main__":
    main()
