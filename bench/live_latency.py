"""Live tables, measured: how long a person's move takes to reach the referee, and how far behind the play
a spectator sees each move.

    .venv/bin/python bench/live_latency.py [--matches 2] [--stack both|postgres|embedded] [--delay 3]

Each stack runs in a child process of its own (as bench/platform_throughput.py does): "postgres" is
PostgreSQL + Redis, "embedded" is the `make run` default (SQLite + the embedded Redis on its socket). A real
Celery worker plays casual `bura` matches of a person against the house bot `greedy-bura`; the person is
this process, answering through the table's own endpoints (Django's test client: the views, the relay and
the database, without an HTTP server in front) with a random legal action ``--think`` seconds after a
request shows (a person looks first; without it a match ends before the first move is old enough to show).

* **move to referee**: from the moment the person's answer is posted to the moment the referee applied it
  (the relayed action's own time stamp, taken by the worker right after the rules accepted it). Goal
  (issue 22): under 200 ms.
* **spectator lag**: a second, anonymous client follows the match's live view as the viewer does (a
  request every 0.7 s); for every move, the time from its being played to its first showing in that view.
  Goal: within the delay plus 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from platform_throughput import QUEUES, REPO, prepare_stack, stack_env, wait

VIEWER_POLL_S = 0.7  # what platform/web/static/web/viewer.js asks at (LIVE_POLL_MS)


def run_stack(stack: str, matches: int, delay: int, think: float) -> dict:
    var = Path(tempfile.mkdtemp(prefix=f"kz-live-{stack}-"))
    env = {**stack_env(stack, var), "KOZYR_LIVE_DELAY_SECONDS": str(delay), "KOZYR_LADDER_QUEUE_DEPTH": "0"}
    os.environ.update(env)
    prepare_stack(stack)
    subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, check=True,
                   capture_output=True)
    broker = None
    if stack == "embedded":
        broker = subprocess.Popen([sys.executable, "-m", "config.embedded_broker"], cwd=REPO / "platform", env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait(lambda: (var / "run" / "broker.sock").exists(), 30, "the embedded broker")
    log = open(var / "worker.log", "wb")  # noqa: SIM115
    worker = subprocess.Popen([str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker", "--queues", QUEUES,
                               "--concurrency", "1", "--loglevel", "WARNING", "--without-heartbeat",
                               "--without-mingle", "--without-gossip"], cwd=REPO / "platform", env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        time.sleep(6)  # the worker boots (not part of any figure)
        return measure(stack, matches, delay, think)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)
        log.close()
        if broker is not None:
            broker.terminate()
            broker.wait(timeout=30)


def follow(client, match_id: int, seat: str, played_at: dict[int, float], lags: list[float], stop) -> None:
    """A spectator: the live view once a second; each newly shown step's lag behind its being played."""
    shown = 0
    while not stop.is_set():
        body = client.get(f"/matches/{match_id}/live/?seat={seat}&start={shown}&count=200&viewer=bench").json()
        status = body.get("live", {}).get("status")
        if status == "queued":  # no worker has dealt yet
            stop.wait(VIEWER_POLL_S)
            continue
        if status != "running":
            if status is None:
                print(f"the live view answered {body}", file=sys.stderr)
            return
        now = time.time()
        for step in range(shown + 1, body["steps"] + 1):
            if step in played_at:
                lags.append(now - played_at[step])
        shown = body["steps"]
        stop.wait(VIEWER_POLL_S)


def measure(stack: str, matches: int, delay: int, think: float) -> dict:
    import django

    django.setup()
    from django.test import Client

    from accounts.models import User
    from matches import relay
    from matches.models import Match

    user = User.objects.create_user("bench-person", password="a-long-password-1")
    person = Client()
    person.force_login(user)
    rng = random.Random(1)
    to_referee: list[float] = []
    lags: list[float] = []
    decisions = 0
    for _ in range(matches):
        answer = person.post("/play/", {"opponent": "greedy-bura", "preset": "bura"})
        match_id = int(answer["Location"].strip("/").split("/")[-1])
        # The relay's name for the match is its attempt's: known once a worker has claimed it.
        match = wait(lambda match_id=match_id: Match.objects.filter(pk=match_id, attempts__gte=1).first(), 60,
                     "a worker to claim the match")
        name = relay.attempt_name(match)
        played_at: dict[int, float] = {}
        stop = threading.Event()
        # a spectator sees the public view: the person's own seat is the person's alone
        spectator = threading.Thread(target=follow, args=(Client(), match_id, "public", played_at, lags, stop))
        spectator.start()
        after = 0
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            body = person.get(f"/play/{match_id}/lines/?after={after}").json()
            for entry in body["lines"]:
                message = entry["m"]
                if message["type"] == "hello":
                    person.post(f"/play/{match_id}/answer/", b'{"type":"ready"}', content_type="application/json")
                elif message["type"] == "request":
                    known = len(relay.actions(name))
                    action = rng.choice(message["legal_actions"])
                    time.sleep(think)  # a person looks at the cards first; the spectator has moves to see
                    sent = time.time()
                    person.post(f"/play/{match_id}/answer/", json.dumps(
                        {"type": "action", "id": message["id"], "action": action}), content_type="application/json")
                    relayed = wait(lambda name=name, known=known: relay.actions(name)[known:] or None, 30,
                                   "the referee to apply the move")
                    to_referee.append(relayed[0]["t"] - sent)
                    decisions += 1
            after += len(body["lines"])
            for step, entry in enumerate(relay.actions(name), start=1):
                played_at.setdefault(step, entry["t"])
            if body["status"] in ("finished", "aborted") or body["closed"]:
                break
            time.sleep(0.01)
        stop.set()
        spectator.join(timeout=10)
        wait(lambda match_id=match_id: Match.objects.get(pk=match_id).status in ("finished", "aborted"), 60,
             "the match to end")
    ms = sorted(1000 * t for t in to_referee)
    return {"stack": stack, "matches": matches, "person_decisions": decisions, "think_s": think,
            "move_to_referee_median_ms": round(statistics.median(ms), 1),
            "move_to_referee_p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
            "move_to_referee_max_ms": round(ms[-1], 1),
            "delay_s": delay, "spectator_moves": len(lags),
            "spectator_lag_median_s": round(statistics.median(lags), 2), "spectator_lag_max_s": round(max(lags), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--delay", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.4, help="seconds the person waits before each answer")
    parser.add_argument("--stack", choices=("both", "postgres", "embedded"), default="both")
    parser.add_argument("--child", choices=("postgres", "embedded"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_stack(args.child, args.matches, args.delay, args.think)))
        return
    for stack in ("postgres", "embedded") if args.stack == "both" else (args.stack,):
        done = subprocess.run([sys.executable, __file__, "--child", stack, "--matches", str(args.matches),
                               "--delay", str(args.delay), "--think", str(args.think)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{stack}: {done.stderr[-3000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        print("  ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
