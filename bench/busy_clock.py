"""Fair clocks on a saturated host (issue "Fair share of the workers"): a sandboxed bot that thinks half its move
time on the CPU, played move after move while other processes keep every core busy, is never timed out.

    .venv/bin/python bench/busy_clock.py [--moves 1000] [--move-ms 200] [--hogs-per-core 3] [--backend bwrap]

The bot is a Python program in the sandbox (bwrap by default) that spins on its own CPU clock for half the move
time at every request, against the house bot `greedy` at bura, through arena's referee with the platform's clock
rules (no bank: every move must fit its move time). Beside it, ``--hogs-per-core`` spinning processes per core,
each in a session of its own as other matches' bots are (the kernel shares the CPU between sessions first).
Matches are played until the bot has made ``--moves`` decisions. Reported: decisions, timeouts (goal: none), the
wall time of a decision (p50, p95, max: on a busy host many take longer than the move time), the time the
referee forgave as waiting for the CPU (sandbox.schedstat), and the most a decision was charged (at most the move
time, or it would have been a timeout).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import sandbox  # noqa: E402
from arena.bots import make_bot  # noqa: E402
from arena.games import resolve  # noqa: E402
from arena.players import BuiltinPlayer, ExternalPlayer  # noqa: E402
from arena.referee import TimeControl, play_match  # noqa: E402
from sandbox import schedstat  # noqa: E402

THINKER = """import json, os, sys, time
HALF_S = int(os.environ["THINK_MS"]) / 1000
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        until = time.process_time() + HALF_S  # its own CPU time, however long the wall
        while time.process_time() < until:
            pass
        print(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}), flush=True)
"""


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=1000, help="the bot's decisions to play (default 1000)")
    parser.add_argument("--move-ms", type=int, default=200, help="the move time; the bot thinks half of it")
    parser.add_argument("--hogs-per-core", type=int, default=3, help="spinning processes per core beside the match")
    parser.add_argument("--backend", default="bwrap", help="the sandbox backend (bwrap, docker, unsafe)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def walls_at(record) -> str:
    """The bot's seat's clock as the replay recorded it, for a verdict that is not ok."""
    return json.dumps(record.result["seats"][0].get("time", {}))


def main() -> int:
    args = parse()
    problem = sandbox.backend_available(args.backend)
    if problem:
        raise SystemExit(f"the {args.backend} sandbox cannot run here: {problem}")
    if not schedstat.available():
        raise SystemExit("this kernel keeps no scheduler statistics (/proc/<pid>/schedstat): nothing is forgiven")
    cores = len(os.sched_getaffinity(0))
    folder = Path(tempfile.mkdtemp(prefix="kozyr-busy-clock-"))
    (folder / "bot.py").write_text(THINKER)
    _, rules = resolve("bura")
    control = TimeControl(startup_ms=20_000, move_ms=args.move_ms, bank_ms=0)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped bench stops its hogs too (finally)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(args.hogs_per_core * cores)]
    walls: list[float] = []
    forgiven: list[float] = []
    verdicts: dict[str, int] = {}
    matches = 0
    began = time.monotonic()
    try:
        time.sleep(0.5)  # every hog spinning before the first match
        while len(walls) < args.moves:
            def launch():
                return sandbox.start(["python3", "bot.py"], folder, sandbox.Limits(), backend=args.backend,
                                     allow_unsafe=args.backend == "unsafe",
                                     env={"PYTHONUNBUFFERED": "1", "THINK_MS": str(args.move_ms // 2)})

            player = ExternalPlayer("thinker", launch)
            ask = player.ask

            def measured(*a, _ask=ask, _player=player, **k):
                started = time.monotonic()
                answer = _ask(*a, **k)
                walls.append(time.monotonic() - started)
                forgiven.append(_player.host_wait_s)
                return answer

            player.ask = measured  # type: ignore[method-assign]
            opponent = BuiltinPlayer("builtin:greedy", make_bot("bura", "greedy", 1, rules, matches), name="greedy")
            record = play_match(rules, 1000 + matches, [player, opponent], preset="bura", time_control=control)
            seat = record.result["seats"][0]
            key = seat["verdict"] if seat["verdict"] == "ok" else f"{seat['verdict']}:{seat.get('code', '')}"
            verdicts[key] = verdicts.get(key, 0) + 1
            matches += 1
            detail = "" if key == "ok" else f" ({seat.get('detail', '')}; wall {walls_at(record)})"
            print(f"match {matches}: {len(walls)} decisions so far, verdict {key}{detail}", file=sys.stderr)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    move_s = args.move_ms / 1000
    charged = [wall - wait for wall, wait in zip(walls, forgiven, strict=True)]
    figures = {
        "cores": cores, "hogs": len(hogs), "backend": args.backend, "move_ms": args.move_ms,
        "think_cpu_ms": args.move_ms // 2, "matches": matches, "decisions": len(walls),
        "timeouts": sum(n for verdict, n in verdicts.items() if verdict.startswith("timeout")), "verdicts": verdicts,
        "wall_ms": {"p50": round(statistics.median(walls) * 1000), "p95": round(percentile(walls, 0.95) * 1000),
                    "max": round(max(walls) * 1000)},
        "over_move_time_on_the_wall": sum(wall > move_s for wall in walls),
        "forgiven_s_total": round(sum(forgiven), 1),
        "charged_ms_max": round(max(charged) * 1000),
        "seconds": round(time.monotonic() - began, 1),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if figures["timeouts"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
