"""A tournament holds its matches back (docs/tournaments.md, "Matches"): at most IN_FLIGHT published at a
time, at most WAITING of them unclaimed in the broker, nothing while a validation waits, and the ladder keeps
its share. The publishes are read off the on-commit callbacks of each transaction, on real PostgreSQL; the
last tests run a big tournament on a real worker on Redis."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from bots.actions import house_version
from matches import actions
from matches.models import Match
from tests.platform.faults.test_worker_e2e import workers  # noqa: F401  (the fixture: real workers on Redis)
from tests.platform.tournaments.test_tournaments_platform import SHORT, host_tournament
from tournaments import lifecycle, queries
from tournaments.models import Tournament

FIELD = ["greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"]


@pytest.fixture
def sent(monkeypatch):
    """Every match id the code publishes to the broker, in order (the broker itself is not under test here)."""
    published: list[int] = []
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: published.append(match_id))
    return published


def clean_result(match: Match) -> dict:
    seats = list(match.seats.order_by("seat"))
    return {"seats": [{"seat": s.seat, "verdict": "ok", "decisions": 3} for s in seats],
            "ranks": [1 + s.seat % 2 for s in seats], "points": [10 * (s.seat % 2) for s in seats]}


def finish(match_id: int, owner: str) -> None:
    assert actions.finish(match_id, owner, clean_result(Match.objects.get(pk=match_id)), "", 0, {})


def in_broker(broker: redis.Redis, queue: str) -> int:
    """The messages waiting in a queue, at every priority (kombu keeps one Redis list per priority step)."""
    return sum(broker.llen(key) for key in broker.scan_iter(match=f"{queue}*"))


def out_of(t: Tournament):
    return queries.tournament_matches(t).filter(status__in=["queued", "running"], published_at__isnull=False)


def start(alice, as_user, **fields) -> Tournament:
    pk = host_tournament(alice, as_user, fields.pop("names", FIELD), **fields)
    t = Tournament.objects.get(pk=pk)
    lifecycle.start(t)
    return Tournament.objects.get(pk=pk)


def test_it_publishes_a_round_a_few_matches_at_a_time(alice, as_user, house_bots, sent,
                                                      django_capture_on_commit_callbacks):
    """The incident: a 4-entrant, 3-deal round robin published all 12 matches of round 1 (and 2 more) at
    commit; released by hand afterwards, they were in the broker already."""
    with django_capture_on_commit_callbacks(execute=True):
        t = start(alice, as_user, deals=3)
    round_one = queries.tournament_matches(t)
    assert round_one.count() == 12
    assert len(sent) == 1  # lifecycle.WAITING: the rest wait in the database
    for _ in range(20):  # eight workers take what is published; the beat's drive releases the next
        for match_id in sent:
            actions.claim(match_id, f"worker-{match_id}")
        with django_capture_on_commit_callbacks(execute=True):
            lifecycle.advance(t.pk)
        assert out_of(t).count() <= lifecycle.IN_FLIGHT
    assert len(sent) == len(set(sent)) == lifecycle.IN_FLIGHT == 8
    assert out_of(t).filter(status="running").count() == 8
    with django_capture_on_commit_callbacks(execute=True):  # a result frees a worker: the next one goes
        finish(sent[0], f"worker-{sent[0]}")
    assert len(sent) == 9 and out_of(t).count() == 8


def test_it_never_republishes_a_held_match(alice, as_user, house_bots, sent, monkeypatch,
                                           django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        t = start(alice, as_user, deals=3)
    Match.objects.update(published_at=None, created=timezone.now() - timedelta(hours=1))  # all held, and old
    Match.objects.filter(pk=sent[0]).update(published_at=timezone.now() - timedelta(hours=1))
    monkeypatch.setattr(actions, "REPUBLISH_AFTER", timedelta(0))
    with django_capture_on_commit_callbacks(execute=True):
        actions.republish_lost()
    assert sent == [sent[0], sent[0]]  # the published one again (its message may be lost); no held one
    assert queries.tournament_matches(t).filter(published_at__isnull=True).count() == 11


def test_it_leaves_the_next_worker_to_a_waiting_validation(alice, bob, as_user, house_bots, bura_bot, sent,
                                                           django_capture_on_commit_callbacks):
    from bots.upload import check_upload
    from matches.validation import do_upload_version
    from tests.platform.conftest import python_bot

    with django_capture_on_commit_callbacks(execute=True):
        t = start(alice, as_user, deals=3)
    first = sent[0]
    actions.claim(first, "worker-1")
    with django_capture_on_commit_callbacks(execute=True):
        version = do_upload_version(bura_bot, check_upload("main.py", python_bot()))
    assert sent == [first, version.validation_match_id]
    with django_capture_on_commit_callbacks(execute=True):  # the beat's drive, and a tournament result
        lifecycle.advance(t.pk)
        finish(first, "worker-1")
    assert sent == [first, version.validation_match_id]  # the free worker takes the validation
    actions.claim(version.validation_match_id, "worker-1")
    with django_capture_on_commit_callbacks(execute=True):  # the validation's result hands the worker back
        finish(version.validation_match_id, "worker-1")
    assert len(sent) == 3 and Match.objects.get(pk=sent[2]).kind == "tournament"


def test_it_leaves_the_ladder_its_share_of_the_workers(alice, as_user, house_bots, sent,
                                                       django_capture_on_commit_callbacks):
    """One worker, the ladder always waiting: of every five matches it plays, one is the ladder's."""
    with django_capture_on_commit_callbacks(execute=True):
        ladder = actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                              versions=[house_version("bura", "greedy"),
                                                        house_version("bura", "random")])
        start(alice, as_user, deals=3)

    def tournament() -> list[int]:
        return [m for m in sent if m not in {m.pk for m in ladder}]

    def play(match_id: int) -> None:
        actions.claim(match_id, "worker-1")
        with django_capture_on_commit_callbacks(execute=True):
            finish(match_id, "worker-1")

    assert len(tournament()) == 1  # nothing has finished yet: no share to keep
    play(tournament()[-1])
    assert len(tournament()) == 1  # the ladder had 0 of the 1 finished match: the worker is the ladder's
    play(ladder[0].pk)
    played = []
    while len(tournament()) > len(played) + 1:  # the worker goes back to the tournament until the ladder's
        played.append(tournament()[len(played) + 1])  # share of the last finished matches falls below a fifth
        play(played[-1])
    assert len(played) == 4  # 1 ladder match of the last 5 finished (the first tournament match aside): 20%
    assert lifecycle.SITE_SHARE >= 0.1  # the ladder keeps at least a tenth


def test_a_failed_match_is_replayed_inside_the_limit(alice, as_user, house_bots, sent, settings,
                                                     django_capture_on_commit_callbacks):
    settings.MAX_ATTEMPTS = 1
    with django_capture_on_commit_callbacks(execute=True):
        t = start(alice, as_user, deals=3)
    for _ in range(12):
        for match_id in sent:
            actions.claim(match_id, f"worker-{match_id}")
        with django_capture_on_commit_callbacks(execute=True):
            lifecycle.advance(t.pk)
    assert out_of(t).count() == 8
    with django_capture_on_commit_callbacks(execute=True):  # infrastructure, after its last attempt
        assert actions.release(sent[0], f"worker-{sent[0]}", "the machine broke")
    assert queries.tournament_matches(t).filter(status="failed").count() == 1
    assert queries.tournament_matches(t).count() == 13  # its replay, same deal, held like the rest
    assert out_of(t).count() == 8 and len(sent) == 9


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_big_tournament_on_a_real_worker_keeps_8_out_and_leaves_room_for_the_site(
        workers, alice, as_user, house_bots, bura_bot):  # noqa: F811  (the fixture imported above)
    """Live: the tournament's messages in Redis plus its running matches, sampled every 50 ms, never pass
    IN_FLIGHT; a validation uploaded meanwhile waits behind at most a tournament match or two; the ladder
    keeps at least a tenth of the finished matches. (Before the holdback this run saw 44 of the
    tournament's matches out at once.)"""
    from bots.upload import check_upload
    from matches.validation import do_upload_version
    from tests.platform.conftest import python_bot
    from tests.support.workers import REDIS_URL

    broker = redis.Redis.from_url(REDIS_URL)
    names = ["greedy-bura", "greedy-p10-bura", "greedy-p25-bura", "greedy-p50-bura", "greedy-p75-bura",
             "greedy-p90-bura", "random-bura"]
    pk = host_tournament(alice, as_user, names, deals=3, name="Live Cup")
    pair = [house_version("bura", "greedy"), house_version("bura", "random")]
    workers("w1")
    began = timezone.now()
    lifecycle.start(Tournament.objects.get(pk=pk))
    t = Tournament.objects.get(pk=pk)
    peak, validation, ticks = 0, None, 0
    deadline = time.monotonic() + 75
    while time.monotonic() < deadline and Tournament.objects.get(pk=pk).status == "running":
        waiting = in_broker(broker, "tournament")
        playing = queries.tournament_matches(t).filter(status="running").count()
        peak = max(peak, waiting + playing)
        ticks += 1
        if ticks % 20 == 0:  # the beat, about every second: drive the tournament, keep the ladder's queue
            lifecycle.drive()
            if Match.objects.filter(kind="ladder", status="queued").count() < 2:
                actions.create_duplicate_set(kind="ladder", preset="bura", overrides=SHORT, ranked=True,
                                             versions=pair)
        # Uploaded once the tournament is well under way (a count of ticks was a time: on an idle machine the
        # whole tournament could end before it).
        if validation is None and queries.tournament_matches(t).filter(status="finished").count() >= 10:
            validation = do_upload_version(bura_bot, check_upload("main.py", python_bot())).validation_match_id
        time.sleep(0.05)
    assert validation is not None, "the tournament ended before the validation was uploaded"
    assert peak <= lifecycle.IN_FLIGHT, f"{peak} of the tournament's matches were out at once"
    checked = Match.objects.get(pk=validation)
    assert checked.started, "the validation never started"
    ahead = queries.tournament_matches(t).filter(started__gt=checked.created, started__lt=checked.started).count()
    assert ahead <= 2, f"the validation waited for {ahead} tournament matches"
    window = Match.objects.filter(status="finished", finished__gte=began)
    ladder, total = window.filter(kind="ladder").count(), window.count()
    assert window.filter(kind="tournament").count() >= 20
    assert ladder >= 0.1 * total, f"the ladder had {ladder} of {total} finished matches"
