"""Runner throughput between two external Python bots (bench/bots/first_legal.py).

    .venv/bin/python bench/runner.py [--games 40] [--preset bura] [--sandbox unsafe|bwrap]
    .venv/bin/python bench/runner.py --versus-plain [--games 200] [--preset bura] [--sandbox bwrap] [--rounds 2]

Default: matches per second at concurrency 1 and 2 (goal on the 2-core machine: at least 1.8x).

--versus-plain: the same matches (same seeds, seats and referee), one at a time, with each bot in the
sandbox, again in the sandbox with the seats started one after another (the referee before issue 9), and
as a plain subprocess with no sandbox at all, alternated match by match so that load on the machine hits
all three alike. Goal (issue 9): sandboxed within 1.5x of plain.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from arena import protocol, referee
from arena.botspec import BotSpec, parse_bot
from arena.games import resolve
from arena.games.options import rules_to_dict
from arena.players import ExternalPlayer, PlayerFailure
from arena.referee import TimeControl, play_match
from arena.runner import build_schedule, run_job, run_schedule

BOT = Path(__file__).resolve().parent / "bots" / "first_legal.py"


def staged_bots(staging: str) -> list[BotSpec]:
    return [parse_bot(str(BOT), Path(staging), []), parse_bot(str(BOT), Path(staging), [])]


def throughput(preset: str, games: int, concurrency: int, backend: str) -> float:
    with tempfile.TemporaryDirectory() as staging:
        schedule = build_schedule(preset=preset, overrides={}, bots=staged_bots(staging), games=games, base_seed=5,
                                  duplicate=False, time_control=TimeControl(), sandbox=backend)
        started = time.perf_counter()
        results = list(run_schedule(schedule, concurrency, replays=None))
        elapsed = time.perf_counter() - started
    assert all(s["verdict"] == "ok" for r, _ in results for s in r["seats"])
    return games / elapsed


class PlainProcess:
    """A bot as a bare subprocess: what the sandbox is compared with."""

    def __init__(self, spec: BotSpec):
        # The system's interpreters, as the sandbox runs (a PATH shim such as pyenv's costs 100+ ms a start)
        program = shutil.which(spec.command[0], path="/usr/local/bin:/usr/bin:/bin") or spec.command[0]
        self._popen = subprocess.Popen([program, *spec.command[1:]], cwd=spec.directory, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pid, self.stdin, self.stdout, self.stderr = (self._popen.pid, self._popen.stdin, self._popen.stdout,
                                                          self._popen.stderr)

    def poll(self):
        return self._popen.poll()

    def mark_output_truncated(self) -> None:
        pass

    def finish(self, grace_seconds: float = 0.5):
        try:
            self._popen.wait(grace_seconds)
        except subprocess.TimeoutExpired:
            self._popen.kill()
            self._popen.wait()
        return None


def plain_job(job) -> dict:
    _, rules = resolve(job.preset, dict(job.overrides))
    players = [ExternalPlayer(spec.label, lambda spec=spec: PlainProcess(spec)) for spec in job.seat_bots]
    return play_match(rules, job.seed, players, preset=job.preset, time_control=job.time_control).result


def sequential_start(players, control, game, preset, rules, teams, verdicts, names, fail) -> None:
    """The referee's start before issue 9, for a what-if: each seat started and awaited before the next."""
    n = len(players)
    for seat, player in enumerate(players):
        hello = protocol.hello(game=game, preset=preset, rules=rules_to_dict(rules), seat=seat, players=n,
                               teams=teams, time=control.to_dict())
        deadline = time.monotonic() + control.startup_ms / 1000
        try:
            player.launch(hello, deadline)
            names[seat] = protocol.parse_ready(player.wait_ready(deadline)).name
        except PlayerFailure as failure:
            fail(seat, failure)
            return


def sandboxed_sequential_job(job) -> dict:
    parallel = referee._start_all
    referee._start_all = sequential_start
    try:
        return run_job(job)[0]
    finally:
        referee._start_all = parallel


def versus_plain(preset: str, games: int, backend: str, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as staging:
        schedule = build_schedule(preset=preset, overrides={}, bots=staged_bots(staging), games=games, base_seed=5,
                                  duplicate=False, time_control=TimeControl(), sandbox=backend)
        per_round = max(1, games // rounds) if rounds else 1
        chunks = [schedule.jobs[i:i + per_round] for i in range(0, len(schedule.jobs), per_round)]
        play = {"sandbox": lambda job: run_job(job)[0], "sequential": sandboxed_sequential_job, "plain": plain_job}
        times = dict.fromkeys(play, 0.0)
        for chunk in chunks:
            for kind in play:
                started = time.perf_counter()
                for job in chunk:
                    result = play[kind](job)
                    assert all(s["verdict"] == "ok" for s in result["seats"]), result["seats"]
                times[kind] += time.perf_counter() - started
    print(f"preset {preset}, {games} matches one at a time, two external Python bots, in {len(chunks)} alternated "
          f"rounds")
    print(f"sandbox {backend}: {times['sandbox']:7.2f} s  ({times['sandbox'] / games * 1e3:6.1f} ms/match)")
    print(f"  the same, seats started one after another (the referee before issue 9): {times['sequential']:7.2f} s  "
          f"({times['sequential'] / games * 1e3:6.1f} ms/match)")
    print(f"plain subprocess: {times['plain']:7.2f} s  ({times['plain'] / games * 1e3:6.1f} ms/match)")
    print(f"ratio: {times['sandbox'] / times['plain']:.2f}x (goal: at most 1.5x); seats started one after another: "
          f"{times['sequential'] / times['plain']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--sandbox", default="unsafe", choices=("unsafe", "bwrap"))
    parser.add_argument("--versus-plain", action="store_true", help="sandboxed against plain subprocesses")
    parser.add_argument("--rounds", type=int, default=0,
                        help="with --versus-plain: alternate in this many rounds (default: every match)")
    args = parser.parse_args()
    if args.versus_plain:
        versus_plain(args.preset, args.games, args.sandbox, args.rounds)
        return
    one = throughput(args.preset, args.games, 1, args.sandbox)
    two = throughput(args.preset, args.games, 2, args.sandbox)
    print(f"preset {args.preset}, {args.games} matches, two external Python bots, sandbox {args.sandbox}")
    print(f"concurrency 1: {one:6.2f} matches/s")
    print(f"concurrency 2: {two:6.2f} matches/s")
    print(f"speed-up: {two / one:.2f}x (goal: at least 1.8x)")


if __name__ == "__main__":
    main()
