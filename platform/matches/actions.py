"""Everything that changes a match row: creating, publishing, claiming, renewing, finishing, recovering.

Invariants (docs/matches.md; each has a test in tests/platform/matches/):
- A match is played only by the holder of its lease: ``claim`` is a conditional update queued → running.
- A result is written once: ``finish`` writes it in one transaction, only while the caller still holds the
  lease, together with the seats, the replay reference and every hook (validation, ratings, tournaments).
- Nothing a crash interrupts is lost: an expired lease goes back to the queue (after MAX_ATTEMPTS: failed,
  with no rating effect), and a queued match whose message was lost is published again.
- An infrastructure failure (the sandbox could not start, a worker lost its lease) never counts against a bot.
- A held match (``published_at`` null) waits in the database until whoever holds it back publishes it: a
  tournament (at most a few at a time) or the validation queue's fair share (one per user at a time).
- Every deal comes from ``new_base_seed`` (a CSPRNG), and an open seat (a remote bot, a person) never plays a
  deal it could have seen: its duplicate sets are dealt afresh per rotation, its replays afresh too.
- Locks are taken in one order everywhere (docs/matches.md, "Lock order"): the match being recorded, the
  requester's account row, seats, versions, bots, ratings, tournament rows, and last the held matches that
  are released.
"""

from __future__ import annotations

import functools
import logging
import secrets
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from accounts.locks import lock_account
from arena import protocol
from arena.games.seating import layout
from arena.referee import TimeControl
from arena.runner import rotations, seat_assignment
from bots.models import PERSON_RUNTIME, REMOTE_RUNTIME, BotVersion
from config.celery import app
from config.celery_settings import RETRY_PRIORITY
from config.enqueue import enqueue
from matches import hooks
from matches.models import Match, Seat

log = logging.getLogger(__name__)

# The task by name (play.tasks imports this module): Celery resolves it to the registered task.
PLAY_MATCH = app.signature("matches.tasks.play_match")
REPUBLISH_AFTER = timedelta(seconds=120)  # a queued match whose message is older than this is sent again
STANDARD_TIME = TimeControl()


SEED_BITS = 63  # a signed bigint holds it
# Seats whose player lives outside the site's sandboxes: a remote program on its owner's machine, a person at a
# page. Such a player keeps what it saw, reads the site and may talk to anyone, so it never plays a deal it
# could have seen: a duplicate set with one of them gets a fresh deal per rotation, and a match of theirs that
# is played again gets a fresh deal (docs/matches.md, "Remote seats and duplicate deals"). Every other seat
# (a sandboxed process with no network and a fresh folder, a built-in bot) forgets everything between matches.
OPEN_RUNTIMES = frozenset({REMOTE_RUNTIME, PERSON_RUNTIME})


def new_base_seed() -> int:
    """The one source of every match's deal: a CSPRNG, never an id, a clock or another seed, so nobody can
    predict or rebuild the deal of a match from anything the site shows."""
    return secrets.randbits(SEED_BITS)


def is_open_seat(version: BotVersion) -> bool:
    return version.runtime in OPEN_RUNTIMES


def is_sandboxed_seat(version: BotVersion) -> bool:
    """An uploaded bot: it computes in a sandboxed process of its own, not in the worker's."""
    return not version.builtin and not is_open_seat(version)


def deal_seeds(versions: Sequence[BotVersion], count: int) -> list[int]:
    """The base seeds of ``count`` rotations of these versions: one deal for all while every seat is sealed
    (the duplicate set's luck reduction), a fresh deal per rotation when any seat is open."""
    if any(is_open_seat(v) for v in versions):
        return [new_base_seed() for _ in range(count)]
    return [new_base_seed()] * count


def seed_to_play_again(match: Match) -> int:
    """The deal a match is played again with (a worker died, a tournament's or version test's game failed):
    its own while every seat is sealed, so the set stays a duplicate; a fresh one when a seat is open, since
    that seat already saw part of the old deal."""
    if Seat.objects.filter(match=match, version__runtime__in=OPEN_RUNTIMES).exists():
        return new_base_seed()
    return match.base_seed


def create_match(*, kind: str, preset: str, seat_versions: Sequence[BotVersion], overrides: dict | None = None,
                 ranked: bool = False, base_seed: int | None = None, duplicate_set: uuid.UUID | None = None,
                 rotation: int = 0, requested_by=None, time_control: TimeControl | None = None,
                 held: bool = False, validates: BotVersion | None = None,
                 live_delay_seconds: int | None = None) -> Match:
    """One queued match, published to its queue when the surrounding transaction commits; or, ``held``, kept
    in the database unpublished until ``publish_held`` sends it (nothing else does: not even republish_lost)."""
    from arena.games import resolve

    game, _ = resolve(preset, overrides or {})
    control = time_control or STANDARD_TIME
    with transaction.atomic():
        match = Match.objects.create(
            kind=kind, preset=preset, game=game, overrides=overrides or {}, ranked=ranked,
            base_seed=new_base_seed() if base_seed is None else base_seed,
            duplicate_set=duplicate_set or uuid.uuid4(), rotation=rotation, requested_by=requested_by,
            validates=validates, time_control=control.to_dict(), published_at=None if held else timezone.now(),
            live_delay_seconds=live_delay_seconds, open_seats=any(is_open_seat(v) for v in seat_versions),
            sandboxed_seats=any(is_sandboxed_seat(v) for v in seat_versions))
        Seat.objects.bulk_create([Seat(match=match, seat=i, version=v) for i, v in enumerate(seat_versions)])
        if not held:
            publish_on_commit(match)
    return match


def create_duplicate_set(*, kind: str, preset: str, versions: Sequence[BotVersion], overrides: dict | None = None,
                         ranked: bool = False, requested_by=None, time_control: TimeControl | None = None,
                         held: bool = False, live_delay_seconds: int | None = None) -> list[Match]:
    """Every distinct rotation of the seats over one deal (one version per seat, or one per team); published
    on commit, or ``held`` as ``create_match`` says. With an open seat (``deal_seeds``) each rotation is dealt
    afresh: still one set for the bookkeeping, but no cards shared."""
    from arena.games import resolve

    seats, teams = layout(preset, overrides or {})
    base: list[BotVersion] = seat_assignment(list(versions), seats, teams)
    game, _ = resolve(preset, overrides or {})
    control = (time_control or STANDARD_TIME).to_dict()
    set_id, now = uuid.uuid4(), timezone.now()
    seatings: dict[tuple[int, ...], tuple[int, list[BotVersion]]] = {}
    for r in range(rotations(seats, True)):
        seat_versions = [base[(s - r) % seats] for s in range(seats)]
        seatings.setdefault(tuple(v.pk for v in seat_versions), (r, seat_versions))  # one bot per team repeats
    seeds = deal_seeds(base, len(seatings))
    with transaction.atomic():  # a few statements for the whole set, whatever its size
        matches = Match.objects.bulk_create([
            Match(kind=kind, preset=preset, game=game, overrides=overrides or {}, ranked=ranked, base_seed=seed,
                  duplicate_set=set_id, rotation=r, requested_by=requested_by, time_control=control,
                  published_at=None if held else now, live_delay_seconds=live_delay_seconds,
                  open_seats=any(is_open_seat(v) for v in base),
                  sandboxed_seats=any(is_sandboxed_seat(v) for v in base))
            for (r, _), seed in zip(seatings.values(), seeds, strict=True)])
        Seat.objects.bulk_create([Seat(match=match, seat=i, version=v)
                                  for match, (_, seat_versions) in zip(matches, seatings.values(), strict=True)
                                  for i, v in enumerate(seat_versions)])
        if not held:
            for match in matches:
                publish_on_commit(match)
    return matches


def publish_on_commit(match: Match) -> None:
    # A partial, not a lambda: what a transaction will publish can be read off its on-commit callbacks.
    transaction.on_commit(functools.partial(publish, match.pk, match.queue))


def publish_held(matches) -> int:
    """Publish held matches on commit, each once (a conditional update from held to published). The caller
    holds whatever lock decides how many may go (a tournament's row, the requester's row)."""
    released = 0
    for match in matches:
        if Match.objects.filter(pk=match.pk, status=Match.Status.QUEUED, published_at__isnull=True).update(
                published_at=timezone.now()):
            publish_on_commit(match)
            released += 1
    return released


def release_validations(user_id: int | None) -> int:
    """The validation queue's fair share: a user has at most one validation match published (queued in the
    broker or running) at a time, so one user's ten uploads never keep another's waiting for more than a
    match. Publishes the user's oldest held validation when none of theirs is out. Call it inside a
    transaction after ``lock_account(user_id)``; the publish goes on commit."""
    if user_id is None:
        return 0
    mine = Match.objects.filter(kind=Match.Kind.VALIDATION, requested_by_id=user_id)
    if mine.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING], published_at__isnull=False).exists():
        return 0
    return publish_held(mine.filter(status=Match.Status.QUEUED, published_at__isnull=True).order_by("pk")[:1])


def release_missed_validations() -> int:
    """Beat (through republish_lost): the next validation of every user whose release was missed (a
    validation cancelled by hand, a crash between commit and release)."""
    held = Match.objects.filter(kind=Match.Kind.VALIDATION, status=Match.Status.QUEUED, published_at__isnull=True)
    released = 0
    for user_id in set(held.values_list("requested_by_id", flat=True)[:1000]):
        with transaction.atomic():
            if user_id is None:  # nobody to share with: publish
                released += publish_held(held.filter(requested_by__isnull=True))
                continue
            lock_account(user_id)
            released += release_validations(user_id)
    return released


def publish(match_id: int, queue: str, retry: bool = False) -> None:
    """Send the wake-up call. A ``retry`` (a match given back after its worker died or failed) goes ahead of
    every new match, so a crash costs its match a lease, not a place at the back of full queues."""
    # The broker is down: the row stays queued and recover_matches sends it again.
    enqueue(PLAY_MATCH, (match_id,), queue=queue, **({"priority": RETRY_PRIORITY} if retry else {}), logger=log,
            what=f"publish match {match_id}", fallback="it will be published again")


def lease_expiry():
    return timezone.now() + timedelta(seconds=settings.LEASE_SECONDS)


def claim(match_id: int, owner: str) -> Match | None:
    """Take the match if it is still queued. Exactly one caller can win."""
    now = timezone.now()
    won = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
        status=Match.Status.RUNNING, lease_owner=owner, lease_expires=lease_expiry(), attempts=F("attempts") + 1,
        started=now)
    return Match.objects.get(pk=match_id) if won else None


def renew(match_id: int, owner: str) -> bool:
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_owner=owner)
                .update(lease_expires=lease_expiry()))


def _locked_if_held(match_id: int, owner: str) -> Match | None:
    return (Match.objects.select_for_update()
            .filter(pk=match_id, status=Match.Status.RUNNING, lease_owner=owner).first())


def finish(match_id: int, owner: str, result: dict[str, Any], replay_sha256: str, replay_size: int,
           logs: dict[int, tuple[str, int]]) -> bool:
    """Record a played match — result, seats, replay, hooks — in one transaction, if ``owner`` still holds
    the lease. Returns False (and changes nothing) for a duplicate or late delivery."""
    with transaction.atomic():
        match = _locked_if_held(match_id, owner)
        if match is None:
            return False
        hooks.run_lock(match)
        # No lock on the seats (only this transaction, under the match's lock, writes them) nor on their versions
        # (a FOR UPDATE there blocked every upload's seat inserts behind every validation result).
        seats = {s.seat: s for s in Seat.objects.filter(match=match).select_related("version")}
        points = result.get("points") or []
        costs = seat_costs(result["seats"], match.started)
        for row in result["seats"]:
            seat = seats[row["seat"]]
            seat.verdict = row["verdict"]
            seat.code = row.get("code") or ""
            seat.detail = row.get("detail") or ""
            seat.rank = result["ranks"][row["seat"]]
            seat.score = points[row["seat"]] if row["seat"] < len(points) else None
            seat.decisions = row.get("decisions", 0)
            seat.think_ms, seat.worker_ms = costs[row["seat"]]
            seat.resources = row.get("resources")
            seat.log_sha256, seat.log_size = logs.get(row["seat"], ("", 0))
        for seat in seats.values():  # a few plain UPDATEs: cheaper than bulk_update's CASE over JSON columns
            seat.save(update_fields=["verdict", "code", "detail", "rank", "score", "decisions", "think_ms",
                                     "worker_ms", "resources", "log_sha256", "log_size"])
        match.status = Match.Status.FINISHED
        match.result = {k: v for k, v in result.items() if k != "seats"}
        match.replay_sha256, match.replay_size = replay_sha256, replay_size
        match.finished = timezone.now()
        match.lease_owner, match.lease_expires = "", None
        match.save(update_fields=["status", "result", "replay_sha256", "replay_size", "finished", "lease_owner",
                                  "lease_expires"])
        hooks.run_finished(match, list(seats.values()))
    return True


def seat_costs(rows: list[dict], started) -> dict[int, tuple[int, int]]:
    """(think_ms, worker_ms) per seat: the seat's own clock, and what it cost the worker that played it, which is
    its thinking plus an equal share of the match's wall time nobody thought in (start-up, the referee, the
    engine). The fair share of the workers (ladder.matchmaking) is counted in worker_ms."""
    think = {row["seat"]: max(0, int(row.get("think_ms") or 0)) for row in rows}
    wall_ms = int((timezone.now() - started).total_seconds() * 1000) if started is not None else sum(think.values())
    rest = max(0, wall_ms - sum(think.values())) // max(1, len(think))
    return {seat: (ms, ms + rest) for seat, ms in think.items()}


def release(match_id: int, owner: str, reason: str) -> bool:
    """Give the match back after an infrastructure failure: queued again, or failed after MAX_ATTEMPTS."""
    with transaction.atomic():
        match = _locked_if_held(match_id, owner)
        if match is None:
            return False
        _requeue_or_fail(match, reason)
    return True


def _requeue_or_fail(match: Match, reason: str) -> None:
    match.lease_owner, match.lease_expires = "", None
    match.failure = reason[:2000]
    if match.kind == Match.Kind.CASUAL:
        # A person played in this attempt, and a person's moves cannot be replayed from the seed: the match
        # ends here without a result, never rated, and its page offers a rematch (docs/matches.md).
        hooks.run_lock(match)
        match.status = Match.Status.ABORTED
        match.finished = timezone.now()
        match.save(update_fields=["status", "finished", "lease_owner", "lease_expires", "failure"])
        hooks.run_failed(match)
    elif match.attempts >= settings.MAX_ATTEMPTS:
        hooks.run_lock(match)
        match.status = Match.Status.FAILED
        match.finished = timezone.now()
        match.save(update_fields=["status", "finished", "lease_owner", "lease_expires", "failure"])
        hooks.run_failed(match)
    else:
        match.status = Match.Status.QUEUED
        match.published_at = timezone.now()
        match.base_seed = seed_to_play_again(match)  # an open seat saw part of the deal in the lost attempt
        match.save(update_fields=["status", "lease_owner", "lease_expires", "failure", "published_at", "base_seed"])
        transaction.on_commit(functools.partial(publish, match.pk, match.queue, retry=True))


def recover_expired_leases() -> int:
    """Matches whose worker died (its lease ran out) go back to the queue."""
    count = 0
    stale = Match.objects.filter(status=Match.Status.RUNNING, lease_expires__lt=timezone.now()).values_list("pk",
                                                                                                          flat=True)
    for match_id in list(stale[:500]):
        with transaction.atomic():
            match = (Match.objects.select_for_update(skip_locked=True)
                     .filter(pk=match_id, status=Match.Status.RUNNING, lease_expires__lt=timezone.now()).first())
            if match is None:
                continue
            _requeue_or_fail(match, f"attempt {match.attempts}: the worker {match.lease_owner} stopped renewing "
                                    f"its lease (killed or cut off)")
            count += 1
    return count


def republish_lost(waiting: Callable[[str], int | None] | None = None) -> int:
    """Queued matches whose message may have been lost (a broker restarted without persistence), and the
    validations whose turn was missed. A held match (published_at null) is never published here: only what
    holds it back releases it.

    ``waiting(queue)`` is how many messages the broker holds for a queue (None: unknown). A queue that holds
    at least as many as it has published queued rows has lost nothing, and its rows are left alone: on a
    busy site every queued match waits longer than REPUBLISH_AFTER, and sending each again every time would
    pile duplicates into the broker for as long as the queue stays full."""
    cutoff = timezone.now() - REPUBLISH_AFTER
    published = Match.objects.filter(status=Match.Status.QUEUED, published_at__isnull=False)
    routing = ("kind", "open_seats", "sandboxed_seats")  # what Match.queue is decided by
    stale = [(pk, Match(kind=kind, open_seats=open_seats, sandboxed_seats=sandboxed).queue)
             for pk, kind, open_seats, sandboxed in
             published.filter(published_at__lt=cutoff).values_list("pk", *routing)[:1000]]
    intact: set[str] = set()
    if waiting is not None:
        counts: dict[str, int] = {}
        for kind, open_seats, sandboxed, n in published.values_list(*routing).annotate(n=Count("pk")).order_by():
            queue = Match(kind=kind, open_seats=open_seats, sandboxed_seats=sandboxed).queue
            counts[queue] = counts.get(queue, 0) + n
        for queue in {queue for _, queue in stale}:
            held = waiting(queue)
            if held is not None and held >= counts.get(queue, 0):
                intact.add(queue)
    for match_id, queue in stale:
        if queue in intact:
            continue
        if Match.objects.filter(pk=match_id, status=Match.Status.QUEUED, published_at__lt=cutoff).update(
                published_at=timezone.now()):
            publish(match_id, queue)
    return sum(queue not in intact for _, queue in stale) + release_missed_validations()


def cancel(match: Match, reason: str) -> bool:
    return bool(Match.objects.filter(pk=match.pk, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, failure=reason, finished=timezone.now()))


def is_infrastructure_failure(result: dict[str, Any]) -> tuple[str, bool] | None:
    """A result that is nobody's fault, to be replayed rather than scored: (the reason, whether the machine
    itself is broken). The referee ends such a match "aborted" (docs/protocol.md): the sandbox could not
    start a bot, or the match reached its wall-clock ceiling with every bot inside its clock."""
    for seat in result["seats"]:
        detail = (seat.get("detail") or "")[:300]
        # "infrastructure" is the sandbox's (this machine is broken); "relay" the live relay's (it is not)
        if seat["verdict"] == protocol.ABORTED:
            return f"seat {seat['seat']} aborted ({seat.get('code')}): {detail}", seat.get("code") == "infrastructure"
        if seat["verdict"] == protocol.SANDBOX_FAILURE:
            # Uploads are checked before they are stored, so a sandbox that cannot start a checked bot is the
            # machine's fault, not the bot's.
            return f"seat {seat['seat']}: the sandbox could not start the bot ({detail})", True
    if result.get("ended_by") == ENDED_ABORTED:
        return "the match was aborted", False
    return None


ENDED_ABORTED = "aborted"
