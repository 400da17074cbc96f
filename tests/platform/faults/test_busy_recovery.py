"""Recovery on a busy site: real workers and a real beat on Redis and PostgreSQL, the ladder 30 deep, so the
match queues are never empty. A worker SIGKILLed mid-match has its match finished by another worker within
its lease plus a minute: beat's jobs are taken before the next match (QUEUE_ORDER puts `maintenance` first),
even with no worker dedicated to them, as an operator who starts workers by hand may run the site."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from matches.models import Match
from tests.support.polling import wait_until
from tests.support.workers import REDIS_URL, Worker, flush_broker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.site]
REPO = Path(__file__).resolve().parents[3]
LEASE_SECONDS = 10
LADDER_DEPTH = 30


def site_env(tmp_path: Path, settings, name: str) -> dict[str, str]:
    db = connection.settings_dict
    return {**os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "CELERY_BROKER_URL": REDIS_URL,
            "MEDIA_ROOT": str(settings.STORAGES["default"]["OPTIONS"]["location"]),
            "KOZYR_VAR_DIR": str(tmp_path / f"var-{name}"),
            "KOZYR_SANDBOX_ALLOW_WEAK": "true",
            "KOZYR_WORKER_SELF_STOP": "false",
            "KOZYR_LEASE_SECONDS": str(LEASE_SECONDS),
            "KOZYR_LADDER_QUEUE_DEPTH": str(LADDER_DEPTH)}


class Beat:
    def __init__(self, env: dict[str, str], folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.log = open(folder / "beat.log", "wb")  # noqa: SIM115  (written by beat until stop())
        self.proc = subprocess.Popen([str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "beat", "--schedule",
                                      str(folder / "schedule"), "--loglevel", "INFO"], cwd=REPO / "platform", env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()


def pids_of(worker: Worker) -> set[str]:
    return {str(p.pid) for p in worker.descendants()} | {str(worker.proc.pid)}


def running_match_of(pids: set[str]) -> Match | None:
    """A match these processes are playing (a lease owner names the playing process's pid)."""
    for match in Match.objects.filter(status=Match.Status.RUNNING):
        if match.lease_owner.split(":")[1] in pids:
            return match
    return None


def kill_mid_match(worker: Worker) -> Match | None:
    """SIGKILL ``worker`` while it plays a match; the match it held at the kill (None when it had just
    finished one and not yet leased the next, a race a caller retries with a new worker)."""
    wait_until(lambda: running_match_of(pids_of(worker)), 120, f"worker {worker.name} to play a match")
    pids = pids_of(worker)
    worker.kill()
    return running_match_of(pids)


def test_a_killed_workers_match_is_finished_within_its_lease_and_a_minute_while_the_ladder_is_full(
        tmp_path, settings, house_bots):
    from bots.models import Bot

    # The Bura family only: its matches take seconds, so the bound below is about recovery, not about how
    # long a Burraco match keeps the survivor busy before it can take the next message.
    Bot.objects.exclude(game="bura").update(active=False)
    flush_broker()
    started: list = []
    try:
        beat = Beat(site_env(tmp_path, settings, "beat"), tmp_path / "beat")
        started.append(beat)
        survivor = Worker("survivor", site_env(tmp_path, settings, "survivor"), tmp_path / "survivor.log")
        started.append(survivor)
        survivor.wait_ready()
        match = None
        for attempt in range(1, 4):
            doomed = Worker(f"doomed{attempt}", site_env(tmp_path, settings, f"doomed{attempt}"),
                            tmp_path / f"doomed{attempt}.log")
            started.append(doomed)
            doomed.wait_ready()
            # The ladder is filled by beat's first fill: far more queued than two workers can play.
            wait_until(lambda: Match.objects.filter(kind="ladder", status="queued").count() >= LADDER_DEPTH, 90,
                       "the ladder to fill")
            match = kill_mid_match(doomed)
            if match is not None:
                break
        assert match is not None, "three workers were each killed between two matches"
        killed_at = time.monotonic()
        waiting = Match.objects.filter(kind="ladder", status="queued").count()
        assert waiting > 0, "the ladder's queue emptied: the site was not busy"

        def finished() -> bool:
            return Match.objects.get(pk=match.pk).status == Match.Status.FINISHED

        wait_until(finished, LEASE_SECONDS + 60, f"match {match.pk} of the killed worker to be finished by another "
                                               f"worker (survivor's log: {survivor.output()[-1500:]})", every=0.5)
        recovered_in = time.monotonic() - killed_at
        print(f"the killed worker's match {match.pk} was finished {recovered_in:.1f} s after the kill "
              f"(lease {LEASE_SECONDS} s)")
        match.refresh_from_db()
        assert match.attempts == 2 and "stopped renewing its lease" in match.failure
        assert match.lease_owner == ""
        assert recovered_in < LEASE_SECONDS + 60
        # Nothing else is stuck behind an expired lease while the ladder keeps playing.
        stale = Match.objects.filter(status="running",
                                     lease_expires__lt=timezone.now() - timedelta(seconds=LEASE_SECONDS))
        assert not stale.exists()
    finally:
        for process in reversed(started):
            process.stop()
