"""The container backend beside bwrap and a bare subprocess, in one run: start-up to the bot's reply to the
hello ("ready"), the time finish() takes once the bot has left, and the per-decision round trip (a real
request with observation and legal actions, to the bot's action). Same protocol bot as bench/isolation.py.

    .venv/bin/python bench/container.py [--runs 20] [--lines 1000]

Needs a container engine and the bot image (sandbox/image/build-local.sh). Goals: container start-up under
250 ms per bot; round trip within 10% of bwrap. Prints medians and 10th percentiles (ms).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from isolation import BOT, STARTS, TEARDOWNS, Bare, Boxed, round_trip, sample_messages, startup

from sandbox.backends.container_engine import find_engine, image


class Container(Boxed):
    backend = "docker"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    engine, reason = find_engine()
    if engine is None:
        raise SystemExit(f"no container engine: {reason}")
    hello, request = sample_messages()
    kinds = {"bare": Bare, "sandbox bwrap": Boxed, "sandbox container": Container}
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bot.py").write_text(BOT)
        os.chmod(folder, 0o755)
        for kind in kinds.values():  # warm caches (image layers, seccomp programs, page cache)
            startup(kind, Path(folder), 2, hello)
        STARTS.clear()
        TEARDOWNS.clear()
        samples: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(args.runs):  # interleaved, so load on a shared machine hits every kind alike
            for name, kind in kinds.items():
                samples[name].append(startup(kind, Path(folder), 1, hello))
        trips = {name: round_trip(kind, Path(folder), args.lines, hello, request) for name, kind in kinds.items()}
    print(f"engine: {engine.describe()}, image {image()}")
    print(f"start-up to 'ready', {args.runs} interleaved runs (median, 10th percentile):")
    for name, values in samples.items():
        print(f"  {name:18} {statistics.median(values):7.1f} ms   p10 {statistics.quantiles(values, n=10)[0]:7.1f} ms")
    print("  goal: sandbox container < 250 ms")
    for backend in ("bwrap", "docker"):
        print(f"  start() itself ({backend:6}) {statistics.median(STARTS[backend]) * 1000:7.1f} ms   "
              f"finish() after the bot left {statistics.median(TEARDOWNS[backend]) * 1000:7.1f} ms")  # fmt: skip
    print(f"request → action, median of {args.lines}:")
    for name, value in trips.items():
        print(f"  {name:18} {value:7.3f} ms   {value / trips['sandbox bwrap']:.2f}x bwrap")
    print("  goal: sandbox container <= 1.10x bwrap")


if __name__ == "__main__":
    main()
