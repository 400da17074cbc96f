"""Pruning old stderr logs and private replays (matches/prune.py) over real PostgreSQL rows and stored files:
only what is old and nothing depends on, in batches, idempotent, and never a blob another row still names."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots import blobs
from bots.actions import house_version
from bots.models import BotVersion
from matches import actions, prune
from matches.models import Match, Seat
from opendata.select import PUBLIC_KINDS


@pytest.fixture
def versions(bura_bot, house_bots):
    mine = BotVersion.objects.create(bot=bura_bot, number=1, builtin="random", status="ready")
    return [mine, house_version("bura", "greedy")]


@pytest.fixture
def played(versions):
    """played(kind, days_ago, logs=(bytes per seat), replay=bytes): a finished match of that age."""

    def make(kind: str = "ladder", days_ago: float = 0, logs: tuple[bytes, ...] = (), replay: bytes = b"",
             ranked: bool = False) -> Match:
        match = actions.create_duplicate_set(kind=kind, preset="bura", versions=versions, ranked=ranked)[0]
        Match.objects.filter(duplicate_set=match.duplicate_set).exclude(pk=match.pk).delete()
        for seat, data in zip(Seat.objects.filter(match=match).order_by("seat"), logs, strict=False):
            seat.log_sha256, seat.log_size = blobs.put("logs", data), len(data)
            seat.save(update_fields=["log_sha256", "log_size"])
        sha = blobs.put("replays", replay) if replay else ""
        Match.objects.filter(pk=match.pk).update(status="finished", replay_sha256=sha, replay_size=len(replay),
                                                 finished=timezone.now() - timedelta(days=days_ago))
        return Match.objects.get(pk=match.pk)

    return make


def stored(kind: str, sha256: str) -> bool:
    try:
        blobs.get(kind, sha256)
    except blobs.BlobMissing:
        return False
    return True


def log_names(match: Match) -> list[str]:
    return list(Seat.objects.filter(match=match).order_by("seat").values_list("log_sha256", flat=True))


def test_it_deletes_old_logs_keeps_recent_ones_and_a_file_a_recent_seat_shares(settings, played):
    settings.PRUNE_LOGS_DAYS = 30
    old = played(days_ago=31, logs=(b"[1] only the old match said this", b"[0] the same every match"))
    recent = played(days_ago=29, logs=(b"[1] said yesterday", b"[0] the same every match"))
    old_only, shared = log_names(old)
    recent_own, _ = log_names(recent)

    pruned = prune.prune()

    assert (pruned.logs, pruned.replays, pruned.files, pruned.done) == (2, 0, 1, True)
    assert log_names(old) == ["", ""] and set(Seat.objects.filter(match=old).values_list("log_size", flat=True)) == {0}
    assert not stored("logs", old_only)
    assert log_names(recent) == [recent_own, shared]  # kept, and the file it shares with the old seat too
    assert stored("logs", recent_own) and stored("logs", shared)
    assert prune.prune() == prune.Pruned()  # a second run finds nothing: idempotent


def test_replays_go_only_for_old_validation_and_casual_matches(settings, played):
    settings.PRUNE_LOGS_DAYS, settings.PRUNE_REPLAYS_DAYS = 0, 30
    assert not set(prune.PRUNABLE_REPLAY_KINDS) & set(PUBLIC_KINDS)  # nothing the dumps or episodes take
    kept = [played(kind, days_ago=400, replay=f"{kind} replay".encode(), logs=(b"kept: logs are off",))
            for kind in ("ladder", "challenge", "tournament")]
    kept.append(played("ladder", days_ago=400, replay=b"a ranked one", ranked=True))
    kept.append(played("validation", days_ago=29, replay=b"a recent validation"))
    gone = [played(kind, days_ago=31, replay=f"old {kind} replay".encode()) for kind in ("validation", "casual")]
    names = {match.pk: match.replay_sha256 for match in kept + gone}

    pruned = prune.prune()

    assert (pruned.logs, pruned.replays, pruned.files) == (0, 2, 2)
    for match in kept:
        match.refresh_from_db()
        assert match.replay_sha256 == names[match.pk] and stored("replays", match.replay_sha256), match.kind
    assert all(log_names(match)[0] for match in kept[:3])  # KOZYR_PRUNE_LOGS_DAYS=0: no log goes
    for match in gone:
        match.refresh_from_db()
        assert (match.replay_sha256, match.replay_size, match.status) == ("", 0, "finished")
        assert not stored("replays", names[match.pk])


def test_replays_are_kept_unless_the_operator_asks(played):
    """The defaults: logs for 90 days, replays for ever."""
    match = played("validation", days_ago=1000, replay=b"a validation long ago", logs=(b"an old log",))
    pruned = prune.prune()
    assert (pruned.logs, pruned.replays) == (1, 0)
    match.refresh_from_db()
    assert match.replay_sha256 and stored("replays", match.replay_sha256)


def test_it_works_in_batches_and_a_run_cut_short_goes_on_next_time(settings, played, django_assert_max_num_queries):
    settings.PRUNE_LOGS_DAYS = 1
    matches = [played(days_ago=2, logs=(f"log {n}".encode(), f"other {n}".encode())) for n in range(5)]
    assert prune.prune(budget_seconds=0) == prune.Pruned(done=False)  # the budget spent before the first batch
    # One batch: its select, one UPDATE, and per file a check before and after its deletion.
    with django_assert_max_num_queries(2 + 2 * 3):
        assert prune.prune_logs(timezone.now(), batch=3) == (3, 3)
    pruned = prune.prune(batch=3)
    assert (pruned.logs, pruned.files, pruned.done) == (7, 7, True)
    assert all(log_names(match) == ["", ""] for match in matches)


def test_a_file_stored_again_while_it_is_deleted_is_put_back(played):
    """A worker finishing a match with the same bytes found the file there and stored nothing: when its seat
    names the file between pruning's check and the deletion, pruning puts the bytes back."""
    data = b"[0] hello from a bot that says the same every match"
    sha = blobs.put("logs", data)
    answers = iter([False, True])  # nobody names it; then, just after the deletion, a new seat does
    assert prune.release("logs", sha, lambda: next(answers)) is False
    assert blobs.get("logs", sha) == data
    assert prune.release("logs", sha, lambda: False) is True and not stored("logs", sha)
    assert prune.release("logs", sha, lambda: False) is False  # gone already: nothing to do


def test_beat_runs_it_hourly_on_the_maintenance_worker(settings, played):
    from config.celery import app
    from config.celery_settings import CELERY_BEAT_SCHEDULE
    from matches.tasks import prune_files

    entry, = (entry for entry in CELERY_BEAT_SCHEDULE.values() if entry["task"] == "matches.tasks.prune_files")
    assert entry["schedule"] == 3600.0 and entry["options"]["queue"] == "maintenance"
    app.loader.import_default_modules()
    assert "matches.tasks.prune_files" in app.tasks  # what beat names is a task the workers know
    settings.PRUNE_LOGS_DAYS = 1
    match = played(days_ago=2, logs=(b"[0] yesterday's",))
    assert prune_files() == {"logs": 1, "replays": 0, "files": 1}
    assert log_names(match)[0] == ""
