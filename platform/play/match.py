"""The worker's side of a match: fetch the bots, play through the local runner's code path, store the replay.

A server match is the runner's ``MatchJob`` for game 0 of ``arena play --seed BASE_SEED``: the same staging,
referee, engines, seeds and sandbox, so ``arena play`` reproduces it at home.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import os
import shutil
import tempfile
import time
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.conf import settings

from arena import builds
from arena import replay as replays
from arena.botspec import BotSpec, build_plan, stage_bot
from arena.referee import TimeControl
from arena.runner import MatchJob, run_job
from bots import blobs
from bots import remote as remote_bots
from bots.models import PERSON_RUNTIME, REMOTE_RUNTIME, BotVersion
from matches import relay
from matches.casual import person_clock
from matches.models import Match, Seat
from matches.time_controls import match_ceiling_seconds

log = logging.getLogger(__name__)

LOG_LIMIT_BYTES = 256 * 1024  # the stderr kept per seat, for its owner


def cache_dir() -> Path:
    folder = settings.VAR_DIR / "cache" / "bots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def staged_version(version: BotVersion) -> BotSpec:
    """The version as the runner wants it. External bots are fetched once per worker into a cache keyed by
    their hash (verified on fetch), staged by the runner's own code and reused by later matches. A version
    sent as source is built once for the whole site: the first worker compiles it in its sandbox and stores
    the build as a blob; every other worker unpacks that blob (docs/matches.md, "Bots built from source")."""
    if version.builtin:
        return BotSpec(label=version.label, builtin=version.builtin)
    target = cache_dir() / version.sha256
    spec = BotSpec(label=version.label, directory=str(target), command=tuple(version.entry), runtime=version.runtime)
    if not (target / ".ready").exists():
        data = blobs.get("bots", version.sha256)  # raises BlobCorrupt when the bytes do not match the hash
        scratch = Path(tempfile.mkdtemp(prefix=".staging-", dir=cache_dir()))
        try:
            source = scratch / version.filename
            source.write_bytes(data)
            staged = stage_bot(source, scratch / "bot", label=version.label)
            if staged.language is not None:
                failure = build_version(version, staged)
                if failure is not None:
                    return failure  # not kept: nothing is ready, and the next attempt says the same
            (scratch / "bot" / ".ready").touch()
            with contextlib.suppress(OSError):  # another worker process staged the same hash first: use theirs
                os.rename(scratch / "bot", target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        evict_cache(keep=target)
    os.utime(target / ".ready")  # least recently used goes first when the cache is full
    return spec


def build_version(version: BotVersion, staged: BotSpec) -> BotSpec | None:
    """Build a staged source version into its folder: from its stored build, or compiled here and stored
    (the row then names the build, so no other worker compiles it again). A compiler's refusal, products over
    the caps (KOZYR_BUILD_MAX_MB, KOZYR_BUILD_MAX_FILES) or an owner's storage without room for the build come
    back as the spec whose seat crashes at launch with the reason, and nothing is stored; None when the build
    is in place."""
    # Here, not at the top: the caps and the owner's storage are this function's business alone.
    from bots.actions import release_build
    from bots.limits import CapReached, build_caps, check_build_storage

    directory = Path(staged.directory)
    plan = build_plan(directory, version.label)
    if plan is None:
        return None
    caps, label = build_caps(), plan.language.label
    try:
        if version.build_sha256:
            try:  # a stored build is checked against the caps too, before anything of it is written
                builds.unpack(blobs.get("builds", version.build_sha256), directory, caps, label=label)
                return None
            except blobs.BlobMissing:  # deleted with the last version that named it, as this one was stored
                log.warning("version %s: its build %s is gone; compiling it again", version.pk, version.build_sha256)
        products = builds.compile_in_sandbox(directory, plan, settings.SANDBOX_BACKEND, caps=caps)
        builds.unpack(products, directory, caps, label=label)
        try:
            check_build_storage(version, len(products), label)
        except CapReached as full:
            raise builds.BuildFailed(str(full)) from None
    except builds.BuildFailed as failed:
        log.info("version %s did not build: %s", version.pk, failed)
        return replace(staged, build_failure=str(failed), build_log=tuple(failed.log_lines))
    sha = blobs.put("builds", products)
    named = (BotVersion.objects.filter(pk=version.pk, build_sha256__in=("", version.build_sha256), retired=False)
             .exclude(status__in=(BotVersion.Status.REJECTED, BotVersion.Status.ERROR))
             .update(build_sha256=sha, build_size=len(products)))
    if named:
        log.info("version %s: %s build stored (%d KB)", version.pk, label, len(products) // 1024)
    else:  # retired or rejected meanwhile, or another worker's build is named: no orphan is kept
        release_build(sha)
    return None


def evict_cache(keep: Path) -> None:
    limit = settings.WORKER_CACHE_MB * 1024 * 1024
    entries = []
    total = 0
    for entry in cache_dir().iterdir():
        if entry.name.startswith(".") or not (entry / ".ready").exists():
            continue
        size = sum(f.stat().st_size for f in entry.rglob("*") if f.is_file() and not f.is_symlink())
        entries.append(((entry / ".ready").stat().st_mtime, entry, size))
        total += size
    for _, entry, size in sorted(entries):
        if total <= limit:
            break
        if entry != keep:
            shutil.rmtree(entry, ignore_errors=True)
            total -= size


def seat_spec(match: Match, seat: Seat) -> BotSpec:
    """What plays a seat: a person over the live relay with a person's clock; a remote bot over the relay
    with the match's clock plus its connection's allowance (bots.remote.allowance_ms); else the staged bot."""
    if seat.version.runtime == PERSON_RUNTIME:
        return BotSpec(label=seat.version.label, channel=relay.channel_address(relay.attempt_name(match), seat.seat),
                       time_control=person_clock())
    if seat.version.runtime == REMOTE_RUNTIME:
        control = remote_clock(TimeControl(**match.time_control), remote_bots.allowance_ms(seat.version_id))
        return BotSpec(label=seat.version.label, time_control=control,
                       channel=relay.channel_address(relay.attempt_name(match), seat.seat,
                                                     relay.version_key(seat.version)))
    return staged_version(seat.version)


def remote_clock(control: TimeControl, allowance_ms: int) -> TimeControl:
    """A remote seat's clock: the network's round trip is inside the referee's clock, so its start-up and
    every move get the connection's allowance on top (docs/protocol.md, "Remote bots")."""
    return TimeControl(startup_ms=control.startup_ms + allowance_ms, move_ms=control.move_ms + allowance_ms,
                       bank_ms=control.bank_ms)


def job_for(match: Match) -> MatchJob:
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    control = TimeControl(**match.time_control)
    # Bot-only matches have no wall limit beyond the worker's; a person's match is held to the person's clock
    # too, so the ceiling covers every decision at a person's full move time (up to the worker's limit).
    specs = tuple(seat_spec(match, s) for s in seats)
    clocks = [spec.time_control or control for spec in specs]
    widest = TimeControl(startup_ms=max(c.startup_ms for c in clocks), move_ms=max(c.move_ms for c in clocks),
                         bank_ms=max(c.bank_ms for c in clocks))
    return MatchJob(index=0, game_number=0, rotation=match.rotation, seed=match.seed, preset=match.preset,
                    overrides=tuple(sorted(match.overrides.items())),
                    seat_bots=specs,
                    time_control=control, sandbox=settings.SANDBOX_BACKEND,
                    wall_seconds=match_ceiling_seconds(widest, len(seats)))  # never past the worker's time limit


class LiveWatcher:
    """The referee's action watcher: every accepted action goes to the live relay for the match's live views.
    A relay that fails stops being told for this match (logged once); the match itself never notices."""

    def __init__(self, match_id: str):
        self.match_id = match_id
        self.working = relay.enabled()

    def __call__(self, seat: int, action: dict[str, Any]) -> None:
        if not self.working:
            return
        try:
            relay.publish_action(self.match_id, seat, action)
        except Exception as err:
            self.working = False
            log.warning("match %s: its live view stops here, the relay failed: %s", self.match_id, err)


# The relay name (matches.relay.attempt_name) of the match the task plays, set by the task around play(): its actions
# are relayed to its live views; None (the local runner's way): nothing is relayed.
LIVE_NAME: ContextVar[str | None] = ContextVar("live_name", default=None)
# The kind of the match the task plays (ladder, validation, …): told to a remote seat's connection.
MATCH_KIND: ContextVar[str] = ContextVar("match_kind", default="")


def play(job: MatchJob) -> tuple[dict[str, Any], dict[str, Any]]:
    """The match played in the sandbox; touches no database (the job holds all the match needs). Its actions
    are relayed to its live views (LIVE_NAME), and its person and remote seats are played over the relay:
    a remote seat is assigned to its version's connections for the match's length (matches.relay)."""
    match_id = LIVE_NAME.get()
    started = time.monotonic()
    remotes = remote_seats(job)
    if match_id is not None and relay.enabled():
        try:
            relay.start_match(match_id, range(len(job.seat_bots)))
            for seat, version_key in remotes:
                relay.assign(version_key, match_id, seat, {"preset": job.preset, "kind": MATCH_KIND.get()})
        except Exception as err:  # a relay that is away: bots still play; a channel's seat fails by itself
            log.warning("match %s: the live relay could not be reset: %s", match_id, err)
    try:
        result, replay = run_job(job, connect=relay.connect, on_action=LiveWatcher(match_id) if match_id else None,
                                 timings=True)
    finally:
        if match_id is not None and relay.enabled():
            with contextlib.suppress(Exception):  # the keys expire in six hours anyway
                relay.end_match(match_id, range(len(job.seat_bots)))
                for seat, version_key in remotes:
                    relay.unassign(version_key, match_id, seat)
    result["wall_seconds"] = round(time.monotonic() - started, 3)
    return result, replay


def remote_seats(job: MatchJob) -> list[tuple[int, str]]:
    """(seat, version key) of the job's remote seats, read from their channel addresses."""
    return [(seat, relay.address_version(spec.channel)) for seat, spec in enumerate(job.seat_bots)
            if spec.channel and relay.is_remote_address(spec.channel)]


def store_replay(replay: dict[str, Any]) -> tuple[str, int]:
    """The replay in the local runner's format (gzip, zero timestamp): ``arena replay`` verifies it. It is
    public, so the bots' stderr (private to each bot's owner, stored apart by store_logs) is left out."""
    replay = {**replay, "verdicts": [{**v, "stderr_tail": []} for v in replay.get("verdicts", [])]}
    data = gzip.compress(replays.dumps(replay), compresslevel=6, mtime=0)
    return blobs.put("replays", data), len(data)


def store_logs(result: dict[str, Any]) -> dict[int, tuple[str, int]]:
    """Each seat's stderr, private to its bot's owner: one line per stderr line, "[N] text", N the request
    that was open when the line came (0: before the first), so the viewer shows it beside that decision."""
    logs = {}
    for seat in result["seats"]:
        tagged = seat.pop("stderr_log", None) or []
        lines = [f"[{decision}] {text}" for decision, text in tagged] or seat.get("stderr_tail") or []
        if not lines:
            continue
        data = "\n".join(lines).encode("utf-8", "replace")[:LOG_LIMIT_BYTES]
        logs[seat["seat"]] = (blobs.put("logs", data), len(data))
    return logs

