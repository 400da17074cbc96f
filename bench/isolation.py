"""Sandbox overhead, side by side in one run: start-up to the first protocol reply for a bare subprocess,
plain `bwrap` with minimal binds, `sandbox.start` with the bwrap backend and with the unsafe backend; the time
`start()` itself takes; teardown (finish + close); and the per-decision round trip, bwrap vs bare.

    .venv/bin/python bench/isolation.py [--runs 30] [--lines 1000]

Goals: sandbox bwrap start-up <= 1.3x plain bwrap; unsafe no slower than bwrap; teardown < 2 ms per bot;
round trip within 10% of bare. Prints medians (ms).
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


class PlainBwrap(Bare):
    """bubblewrap alone with minimal binds: what any bwrap sandbox pays, with nothing of ours around it."""

    def __init__(self, folder: Path):
        links = [arg for name in ("bin", "lib", "lib64", "sbin") if os.path.islink(f"/{name}")
                 for arg in ("--symlink", os.readlink(f"/{name}"), f"/{name}")]  # fmt: skip
        argv = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", *links, "--proc", "/proc",
                "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", str(folder), "/bot", "--chdir", "/bot", PYTHON,
                "bot.py"]  # fmt: skip
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      bufsize=0, env={"PATH": "/usr/bin"})  # fmt: skip
        self.stdin, self.stdout = self.popen.stdin, self.popen.stdout


TEARDOWNS: dict[str, list[float]] = {}
STARTS: dict[str, list[float]] = {}


class Boxed:
    backend = "bwrap"

    def __init__(self, folder: Path):
        self.proc = start([PYTHON, "bot.py"], folder, Limits(), backend=self.backend, allow_unsafe=True)
        STARTS.setdefault(self.backend, []).append(self.proc.startup_seconds)
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def finish(self):
        self.stdin.close()
        self.proc.poll()
        while self.proc.poll() is None:  # the bot leaves on EOF: time only what finish() adds after that
            time.sleep(0.0005)
        began = time.perf_counter()
        self.proc.finish()
        self.proc.close()
        TEARDOWNS.setdefault(self.backend, []).append(time.perf_counter() - began)


class Unsafe(Boxed):
    backend = "unsafe"


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
        for kind in (Boxed, Unsafe, PlainBwrap):  # warm caches (seccomp program, cgroup detection, page cache)
            startup(kind, Path(folder), 2, hello)
        STARTS.clear()
        TEARDOWNS.clear()
        kinds = {"bare": Bare, "plain bwrap": PlainBwrap, "sandbox bwrap": Boxed, "sandbox unsafe": Unsafe}
        samples: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(args.runs):  # interleaved, so load on a shared machine hits every kind alike
            for name, kind in kinds.items():
                samples[name].append(startup(kind, Path(folder), 1, hello))
        bare_trip = round_trip(Bare, Path(folder), args.lines, hello, request)
        boxed_trip = round_trip(Boxed, Path(folder), args.lines, hello, request)
    starts = {name: statistics.median(values) for name, values in samples.items()}
    # On a shared, loaded machine the median mostly measures how long each of the 5-6 processes of a start
    # waits for a CPU; the 10th percentile comes closest to the cost itself.
    fast = {name: statistics.quantiles(values, n=10)[0] for name, values in samples.items()}
    print(f"start-up to 'ready', {args.runs} interleaved runs (median, 10th percentile):")
    for name, value in starts.items():
        print(f"  {name:15} {value:7.2f} ms  {value / starts['plain bwrap']:.2f}x plain bwrap   "
              f"p10 {fast[name]:7.2f} ms  {fast[name] / fast['plain bwrap']:.2f}x")  # fmt: skip
    print("  goals: sandbox bwrap <= 1.30x plain bwrap; sandbox unsafe <= sandbox bwrap")
    for backend in ("bwrap", "unsafe"):
        print(f"start() itself ({backend:6})  {statistics.median(STARTS[backend]) * 1000:7.2f} ms   "
              f"teardown (finish + close after the bot left) {statistics.median(TEARDOWNS[backend]) * 1000:6.2f} ms "
              f"(goal < 2 ms)")  # fmt: skip
    print(f"request → action        bare {bare_trip:7.3f} ms   bwrap {boxed_trip:7.3f} ms   "
          f"ratio {boxed_trip / bare_trip:.2f}x (goal <= 1.1x), median of {args.lines}")  # fmt: skip


if __name__ == "__main__":
    main()
