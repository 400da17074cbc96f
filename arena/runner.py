"""The local match runner behind ``arena play``: a schedule of seeded matches, played in parallel.

It uses the same referee, engines and seeds as the servers, so any server match can be replayed here
exactly. Matches are independent jobs; results come back in schedule order whatever the concurrency, so
the same base seed gives byte-identical output.
"""

from __future__ import annotations

import gc
import gzip
import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import sandbox  # the runner is where arena meets the sandbox: its public API only
from arena.bots import make_bot
from arena.botspec import BotSpec
from arena.cards import derive_seed
from arena.channels import ChannelPlayer, LineChannel
from arena.games import new_match, resolve
from arena.players import BotCannotStart, BuiltinPlayer, ExternalPlayer, InfrastructureError, Player
from arena.referee import MatchRecord, TimeControl, play_match
from arena.replay import dumps as replay_bytes

BOT_SEED_LABEL = 0xB07
# The sandbox's own wall limit sits this far above the referee's match ceiling, so the referee ends a long
# match cleanly first; a sandbox wall kill is then never an honest bot's doing (verdict aborted).
SANDBOX_WALL_MARGIN_S = 30.0
REPLAY_FORMS = ("dict", "gzip", None)


@dataclass(frozen=True)
class MatchJob:
    index: int  # position in the schedule
    game_number: int  # which deal sequence (duplicate rotations share it)
    rotation: int
    seed: int
    preset: str
    overrides: tuple[tuple[str, str], ...]
    seat_bots: tuple[BotSpec, ...]
    time_control: TimeControl
    sandbox: str
    sandbox_limits: tuple[tuple[str, Any], ...] = ()
    # The referee's wall-clock ceiling; None: the time control's own (TimeControl.match_seconds). The site sets
    # a shorter one so no match outlives its worker's task (platform/matches/time_controls.py).
    wall_seconds: float | None = None


@dataclass
class Schedule:
    jobs: list[MatchJob] = field(default_factory=list)


Seated = TypeVar("Seated")  # whatever takes a seat: a BotSpec here, a platform's bot version there


def seat_assignment(bots: Sequence[Seated], seats: int, teams: list[list[int]]) -> list[Seated]:
    """One bot per seat, or one bot per team filling all of that team's seats."""
    if len(bots) == seats:
        return list(bots)
    if len(teams) < seats and len(bots) == len(teams):
        by_seat: list[Seated | None] = [None] * seats
        for team, bot in zip(teams, bots, strict=True):
            for seat in team:
                by_seat[seat] = bot
        return [b for b in by_seat if b is not None]
    wanted = f"{seats}" + (f" (or {len(teams)}, one per team)" if len(teams) < seats else "")
    raise ValueError(f"this preset has {seats} seats: give {wanted} bots, not {len(bots)}")


def rotations(seats: int, duplicate: bool) -> int:
    return seats if duplicate else 1


def build_schedule(*, preset: str, overrides: dict[str, str], bots: list[BotSpec], games: int, base_seed: int,
                   duplicate: bool, time_control: TimeControl, sandbox: str,
                   sandbox_limits: dict[str, Any] | None = None) -> Schedule:
    """Game g uses seed derive_seed(base, g). With --duplicate it is played once per distinct rotation of the
    seats, so every bot sits where every other sat with the same cards (two bots sharing four seats as teams:
    two rotations, swapping the partnerships); without, game g is seated at rotation g % n so nobody keeps
    one seat."""
    _, rules = resolve(preset, overrides)
    probe = new_match(rules, 0)
    seats, teams = probe.num_seats, probe.outcome()["teams"]
    base: list[BotSpec] = seat_assignment(bots, seats, teams)
    schedule = Schedule()
    for g in range(games):
        seed = derive_seed(base_seed, g)
        seatings_played: set[tuple[str, ...]] = set()
        for r in range(rotations(seats, duplicate)) if duplicate else [g % seats]:
            seat_bots = tuple(base[(s - r) % seats] for s in range(seats))
            seating = tuple(bot.label for bot in seat_bots)
            if seating in seatings_played:
                continue  # one bot per team: rotating by a whole team gives the same match again
            seatings_played.add(seating)
            schedule.jobs.append(MatchJob(index=len(schedule.jobs), game_number=g, rotation=r, seed=seed,
                                          preset=preset, overrides=tuple(sorted(overrides.items())),
                                          seat_bots=seat_bots, time_control=time_control, sandbox=sandbox,
                                          sandbox_limits=tuple(sorted((sandbox_limits or {}).items()))))
    return schedule


Connect = Callable[[str], LineChannel]  # a channel address -> the seat's channel (the site's live relay)


def _player(job: MatchJob, seat: int, spec: BotSpec, game: str, rules: Any, limits: dict[str, Any],
            connect: Connect | None = None) -> Player:
    if spec.channel is not None:
        if connect is None:
            raise ValueError(f"seat {seat} ({spec.label}) is played over a channel, and nothing connects channels")
        return ChannelPlayer(spec.label, connect(spec.channel))
    if spec.builtin is not None:
        bot = make_bot(game, spec.builtin, seat, rules, derive_seed(job.seed, BOT_SEED_LABEL, seat))
        return BuiltinPlayer(spec.label, bot, name=spec.builtin)
    if spec.build_failure is not None:
        return ExternalPlayer(spec.label, _failed_build(spec))
    return ExternalPlayer(spec.label, _sandbox_launcher(spec, job.sandbox, limits),
                          startup_allowance_ms=sandbox.runtimes.STARTUP_ALLOWANCE_MS.get(spec.runtime or "", 0))


def _failed_build(spec: BotSpec) -> Callable[[], Any]:
    """A bot whose build failed: its seat crashes at launch, with the compiler's lines as its stderr."""
    def launch():
        raise BotCannotStart(spec.build_failure or "the build failed", spec.build_log)

    return launch


def sandbox_limits_for(job: MatchJob, seats: int) -> dict[str, Any]:
    """The sandbox limits of one bot in this match: the wall limit (and the CPU total, which one core's worth
    of bandwidth cannot exceed anyway) follow the time control's match ceiling, so no honest bot within its
    clock is ever killed by a fixed cap in a long match. Limits the job sets explicitly win."""
    ceiling = job.time_control.match_seconds(seats) if job.wall_seconds is None else job.wall_seconds
    limits = {"wall_seconds": ceiling + SANDBOX_WALL_MARGIN_S, "cpu_seconds": ceiling + SANDBOX_WALL_MARGIN_S}
    limits.update(dict(job.sandbox_limits))
    return limits


def _sandbox_launcher(spec: BotSpec, backend: str, limits: dict[str, Any]) -> Callable[[], Any]:
    # The referee only ever sees the launcher.
    if spec.directory is None:
        raise ValueError(f"bot {spec.label} was never staged: an external bot needs its directory")
    bot_dir = Path(spec.directory)
    sandbox_limits = sandbox.Limits(**limits)

    def launch():
        try:
            return sandbox.start(list(spec.command), bot_dir, sandbox_limits, backend=backend,
                                 allow_unsafe=backend == "unsafe", env={"PYTHONUNBUFFERED": "1"})
        except (sandbox.SandboxError, OSError) as err:
            # The bot's files and entry point were checked when it was staged: what is left is the machine's
            # (no free sandbox uid, cgroups, the container engine, a full disk). Not the bot's loss.
            raise InfrastructureError(f"the sandbox could not start the bot: {err}") from None

    return launch


def run_job(job: MatchJob, *, connect: Connect | None = None,
            on_action: Callable[[int, dict[str, Any]], None] | None = None,
            timings: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play one match; return its result (for tables and ratings) and its replay. ``connect`` opens the
    channels of seats played over one; ``on_action`` hears every accepted action (arena.referee.play_match).
    ``timings`` adds each seat's measured thinking time (``think_ms``) to its row of the result, which then is
    no longer the same for the same seed."""
    game, rules = resolve(job.preset, dict(job.overrides))
    limits = sandbox_limits_for(job, len(job.seat_bots))
    players = [_player(job, seat, spec, game, rules, limits, connect) for seat, spec in enumerate(job.seat_bots)]
    own_clocks = [spec.time_control for spec in job.seat_bots]
    # The collector is paused for the match: a match allocates many small objects that all live to its end
    # (events, observations), and full collections over them made long matches superlinear.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        record: MatchRecord = play_match(rules, job.seed, players, preset=job.preset, time_control=job.time_control,
                                         wall_seconds=job.wall_seconds, on_action=on_action,
                                         seat_time_controls=own_clocks if any(own_clocks) else None)
    finally:
        if gc_was_enabled:
            gc.enable()
    result = {"index": job.index, "game_number": job.game_number, "rotation": job.rotation, **record.result}
    if timings:
        result["seats"] = [{**row, "think_ms": ms} for row, ms in zip(result["seats"], record.think_ms, strict=True)]
    return result, record.replay


def replay_gzip(replay: dict[str, Any]) -> bytes:
    """A replay as the bytes of its .json.gz file (what replay.save writes: gzip -9, zero timestamp)."""
    return gzip.compress(replay_bytes(replay), compresslevel=9, mtime=0)


def _run_job_as(job: MatchJob, replays: str | None) -> tuple[dict[str, Any], Any]:
    result, replay = run_job(job)
    if replays == "gzip":
        return result, replay_gzip(replay)
    return result, replay if replays == "dict" else None


def _ignore_interrupts() -> None:
    """Pool workers leave Ctrl-C to the parent: it stops handing out matches, and the matches already running
    end normally (a worker interrupted mid-match left the pool, and the parent, waiting forever)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_schedule(schedule: Schedule, concurrency: int, *,
                 replays: str | None = "dict") -> Iterator[tuple[dict[str, Any], Any]]:
    """Yield (result, replay) per match, in schedule order. ``replays`` says in what form the replay is
    wanted: "dict", "gzip" (the bytes of its .json.gz file, compressed in the worker that played it) or
    None (not at all: nothing is shipped back from the worker processes)."""
    if replays not in REPLAY_FORMS:
        raise ValueError(f"replays must be one of {REPLAY_FORMS}, not {replays!r}")
    if concurrency <= 1 or len(schedule.jobs) <= 1:
        for job in schedule.jobs:
            yield _run_job_as(job, replays)
        return
    # spawn, not fork: the parent may run a progress-bar thread, and forking a threaded process is unsafe.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=concurrency, mp_context=context, initializer=_ignore_interrupts) as pool:
        try:
            yield from pool.map(_run_job_as, schedule.jobs, [replays] * len(schedule.jobs))
        except BaseException:  # Ctrl-C or the consumer stopped: start no further match
            pool.shutdown(wait=False, cancel_futures=True)
            raise
