"""Celery tasks. A message carries only a match id; the row decides whether there is anything to do."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
import uuid

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection, connections

from bots.blobs import BlobCorrupt, BlobMissing
from config import logs
from matches import actions
from matches.models import Match

log = logging.getLogger(__name__)


class LeaseKeeper(threading.Thread):
    """Renews a match's lease while it is played; notices when the lease was lost."""

    def __init__(self, match_id: int, owner: str):
        super().__init__(name=f"lease-{match_id}", daemon=True)
        self.match_id, self.owner = match_id, owner
        self.stopped = threading.Event()
        self.lost = False

    def run(self) -> None:
        interval = max(1.0, settings.LEASE_SECONDS / 3)
        logs.match_id.set(self.match_id)  # this thread's lines are about the match too (config/logs.py)
        try:
            while not self.stopped.wait(interval):
                try:
                    if not actions.renew(self.match_id, self.owner):
                        self.lost = True
                        return
                except Exception as err:  # the database is briefly away: try again next time
                    log.warning("could not renew the lease of match %s: %s", self.match_id, err)
                    close_old_connections()
                else:
                    release_connection()  # a renewal every LEASE_SECONDS/3 is no reason to hold one meanwhile
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


def release_connection() -> None:
    """This thread's database connection goes back (to the pool, or closed) until its next query opens one: a
    worker of threads plays many waiting matches at once, and each holding a connection for its length would
    use up the server's. Never inside a transaction (a test's, or a caller's), which needs its connection."""
    if not connection.in_atomic_block:
        connection.close()


SIBLING_DELAY = 0.05  # seconds: the rotation goes back in the queue behind whatever else waits
CLAIM_RETRY_SECONDS = 5  # a message that arrived while the database was away is tried again this much later


def sibling_running_here(match_id: int) -> bool:
    """Is another match of this match's duplicate set running on this machine now?"""
    row = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).values("duplicate_set").first()
    if row is None:
        return False
    return Match.objects.filter(duplicate_set=row["duplicate_set"], status=Match.Status.RUNNING,
                                lease_owner__startswith=f"{socket.gethostname()}:").exclude(pk=match_id).exists()


def lease_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


# The name the task had before the worker's runtime moved to this app: messages already queued under it, and
# other processes of the site during an upgrade, find it by that name (config.celery_settings routes it).
@shared_task(name="matches.tasks.play_match", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
@logs.with_match_id  # every line logged while the match is played carries its id
def play_match(match_id: int) -> str:
    from matches.relay import attempt_name
    from play.match import LIVE_NAME, MATCH_KIND, job_for, play, store_logs, store_replay
    from play.startup import sandbox_problem

    problem = sandbox_problem()
    if problem:
        # A broken machine must not eat the queue: leave the match queued for a healthy worker and stop.
        log.error("this worker cannot run sandboxes (%s); it stops taking matches", problem)
        stop_this_worker()
        return "worker-broken"
    owner = lease_owner()
    try:
        if settings.SEPARATE_ROTATIONS and sibling_running_here(match_id):
            # The same deal with the seats rotated is being played on this machine: two sandboxes side by side
            # could signal each other through what they share (docs/sandbox.md), so play it after, or elsewhere.
            priority = (play_match.request.delivery_info or {}).get("priority")  # a retry stays a retry
            play_match.apply_async((match_id,), queue=Match.objects.get(pk=match_id).queue,
                                   countdown=SIBLING_DELAY, **({"priority": priority} if priority is not None else {}))
            return "deferred"
        match = actions.claim(match_id, owner)
    except (OperationalError, InterfaceError) as err:
        # The database is away: acknowledging this message would leave the match queued with no message
        # until beat noticed (a cut database ate every message the workers took meanwhile). Ask again later.
        log.warning("database unavailable before match %s could be claimed (%s); trying again in %s s",
                    match_id, err, CLAIM_RETRY_SECONDS)
        for conn in connections.all():
            conn.close()
        raise play_match.retry(countdown=CLAIM_RETRY_SECONDS, max_retries=None) from err
    if match is None:
        return "not-queued"  # a duplicate or late delivery: someone else has it, or it is done
    keeper = LeaseKeeper(match_id, owner)
    keeper.start()

    def release(reason: str) -> None:
        with_database_retries(lambda: actions.release(match_id, owner, f"attempt {match.attempts}: {reason}"))

    try:
        # Everything the match needs from the database is read now, while the claim's connection is fresh; a
        # database that goes away between the claim and here is waited for like one that goes away at the end.
        job = with_database_retries(lambda: job_for(match))
        release_connection()  # the match may wait minutes on its seats: it holds no database connection meanwhile
        name = LIVE_NAME.set(attempt_name(match))
        kind = MATCH_KIND.set(match.kind)
        try:
            result, replay = play(job)
        finally:
            LIVE_NAME.reset(name)
            MATCH_KIND.reset(kind)
    except (BlobMissing, BlobCorrupt) as err:
        # This machine cannot see the shared storage (or it is damaged): give the match back and stop, so the
        # match's other attempts go to a healthy worker instead of all failing here within a second.
        keeper.stop()
        log.error("match %s: bot files unavailable on this worker (%s); it stops taking matches", match_id, err)
        release(f"the worker could not fetch the bots: {err}")
        stop_this_worker()
        return "infrastructure"
    except Exception as err:
        keeper.stop()
        log.exception("match %s could not be played", match_id)
        release(f"the worker failed: {type(err).__name__}: {err}")
        return "infrastructure"
    keeper.stop()
    if keeper.lost:
        return "lease-lost"  # the match was given to another worker meanwhile; its result is the one kept
    infrastructure = actions.is_infrastructure_failure(result)
    if infrastructure:
        reason, machine_broken = infrastructure
        release(reason)
        if machine_broken:
            stop_this_worker()
        return "infrastructure"
    replay_sha, replay_size = store_replay(replay)
    logs = store_logs(result)
    finished = with_database_retries(lambda: actions.finish(match_id, owner, result, replay_sha, replay_size, logs))
    return "finished" if finished else "lease-lost"


DATABASE_RETRY_SECONDS = 60


def with_database_retries(write):
    """A finished match is worth waiting for: when the database is briefly away, try the (atomic, lease-
    guarded) write again for a while. If it never comes back, the lease expires and the match is replayed."""
    deadline = time.monotonic() + DATABASE_RETRY_SECONDS
    delay = 0.5
    while True:
        try:
            return write()
        except (OperationalError, InterfaceError) as err:
            if time.monotonic() > deadline:
                raise
            log.warning("database unavailable while recording a result (%s); retrying", err)
            for conn in connections.all():
                conn.close()  # a broken connection is not reused; the next try opens a fresh one
            time.sleep(delay)
            delay = min(delay * 2, 5.0)


def stop_this_worker() -> None:
    """Warm shutdown of the worker this task runs in (its parent when the pool forks children)."""
    if not settings.WORKER_SELF_STOP:
        return
    # The pool's child runs the task; its parent is the worker that consumes messages.
    target = os.getppid() if multiprocessing.parent_process() is not None else os.getpid()
    with contextlib.suppress(OSError):
        os.kill(target, signal.SIGTERM)


@shared_task(ignore_result=True)
def recover_matches() -> dict[str, int]:
    """Beat: expired leases back to the queue, lost messages published again, orphan containers reaped."""
    expired = actions.recover_expired_leases()
    republished = actions.republish_lost(waiting=broker_waiting)
    reaped = reap_orphans()
    return {"expired": expired, "republished": republished, "reaped": reaped}


def broker_waiting(queue: str, connection=None) -> int | None:
    """Messages the broker holds for ``queue`` (every priority), or None when it cannot say."""
    from config.celery import app

    try:
        with (connection or app.connection_for_write()) as conn:
            return conn.default_channel.queue_declare(queue=queue).message_count  # a no-op on Redis but the count
    except Exception as err:  # the broker is away: count nothing, send what looks lost
        log.warning("could not count the messages of queue %s: %s", queue, err)
        return None


def reap_orphans() -> int:
    if settings.SANDBOX_BACKEND != "docker":
        return 0
    try:
        from sandbox.backends.container_reaper import reap_orphans as reap
    except ImportError:
        return 0
    try:
        found = reap()
        return len(found) if isinstance(found, list) else int(found or 0)
    except Exception as err:
        log.warning("the container reaper failed: %s", err)
        return 0
