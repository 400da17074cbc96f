"""Shares by cost (issue "Fair share of the workers"): the ladder shares the workers' time, not its matches, and a
version that leaves the ladder loses its queued matches at once (ladder.matchmaking, ladder.withdrawal)."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from bots.actions import do_create_bot, do_update_bot, house_version, make_current
from bots.models import Bot, BotVersion
from ladder.matchmaking import fill_ladder, pick_table, slot_share, waiting_slots
from ladder.withdrawal import withdraw_ineligible
from ladder.workload import workload
from matches import actions
from matches.models import Match, Seat

pytestmark = pytest.mark.django_db


def ready_bot(owner, name: str, builtin: str = "greedy") -> BotVersion:
    bot = do_create_bot(owner, game="bura", name=name, presets=["bura"])
    version = BotVersion.objects.create(bot=bot, number=1, builtin=builtin, runtime="builtin", status="ready")
    Bot.objects.filter(pk=bot.pk).update(current_version=version)
    return version


def played(versions: list[BotVersion], worker_ms: list[int], count: int = 1) -> None:
    """``count`` finished ranked bura matches of ``versions``, each seat having cost a worker ``worker_ms``."""
    for _ in range(count):
        match = actions.create_match(kind="ladder", preset="bura", seat_versions=versions, ranked=True)
        Match.objects.filter(pk=match.pk).update(status="finished", finished=timezone.now())
        for seat, ms in enumerate(worker_ms):
            Seat.objects.filter(match=match, seat=seat).update(worker_ms=ms, think_ms=ms, verdict="ok")


def test_the_version_that_cost_the_workers_least_is_seated_first_and_a_costly_one_is_an_opponent_last(
        house_bots, alice, bob, settings):
    settings.LADDER_QUEUE_DEPTH = 4
    slow, quick = ready_bot(alice, "thinker"), ready_bot(bob, "quickie")
    greedy = house_version("bura", "greedy")
    # Both have left placement with the same number of games; the thinker's cost the workers 500 s, the
    # quick one's 1 s: the placement rule ties, the cost decides.
    others = [house_version("bura", b) for b in ("random", "greedy-p10", "greedy-p25", "greedy-p50", "greedy-p75",
                                                  "greedy-p90")]
    for version in (slow, quick):
        played([version, greedy], [50_000 if version == slow else 100, 100], count=10)
    for other in others:
        played([other, greedy], [100, 100], count=10)
    picks = [pick_table("bura", 2, random.Random(seed)) for seed in range(20)]
    assert all(slow not in table for table in picks)  # under-share versions fill every table first
    assert all(table[0] != greedy for table in picks)  # greedy played every match: it cost the most of the quick


def test_no_version_sits_in_more_than_its_share_of_the_waiting_sets(house_bots, alice, settings):
    settings.LADDER_QUEUE_DEPTH = 6
    greedy = house_version("bura", "greedy")
    for other in ("random", "greedy-p10", "greedy-p25", "greedy-p50", "greedy-p75", "greedy-p90"):
        played([house_version("bura", other), greedy], [100, 100], count=10)  # the house bots are placed
    newcomer = ready_bot(alice, "newcomer")  # in placement: first for the first seat of every set it can take
    fill_ladder(random.Random(1))
    eligible = Bot.objects.filter(game="bura", active=True, current_version__status="ready").count()
    share = slot_share(eligible, 2)
    assert share == -(-6 * 2 // eligible)
    slots = waiting_slots(list(BotVersion.objects.filter(bot__game="bura").values_list("pk", flat=True)), "bura")
    assert slots[newcomer.pk] == share  # as many as its share, however much placement would want
    assert max(slots.values()) <= share
    assert Match.objects.filter(kind="ladder", preset="bura", status="queued").values(
        "duplicate_set").distinct().count() == 6  # and the depth is still reached


@pytest.fixture
def queued_for(house_bots, alice):
    """alice's ready bot with two queued ladder sets (four matches) against house bots."""
    version = ready_bot(alice, "leaver")
    for opponent in ("greedy", "random"):
        actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                     versions=[version, house_version("bura", opponent)])
    return version


def queued(version: BotVersion) -> int:
    return Match.objects.filter(kind="ladder", status="queued", seats__version=version).count()


@pytest.mark.django_db(transaction=True)  # the withdrawal runs when the change is committed
def test_deactivating_a_bot_cancels_its_queued_ladder_matches_at_once_saying_why(queued_for):
    running = Match.objects.filter(seats__version=queued_for).first()
    Match.objects.filter(pk=running.pk).update(status="running")  # one being played finishes: its result is real
    assert queued(queued_for) == 3
    do_update_bot(queued_for.bot, active=False)
    assert queued(queued_for) == 0
    cancelled = Match.objects.filter(seats__version=queued_for, status="cancelled")
    assert cancelled.count() == 3 and Match.objects.get(pk=running.pk).status == "running"
    assert all("leaver v1 left the ladder (its bot was deactivated)" in m.failure for m in cancelled)
    assert not Match.objects.filter(status="cancelled").exclude(seats__version=queued_for).exists()


@pytest.mark.django_db(transaction=True)
def test_a_new_current_version_cancels_the_old_ones_queued_ladder_matches(queued_for):
    newer = BotVersion.objects.create(bot=queued_for.bot, number=2, builtin="random", runtime="builtin",
                                      status="ready")
    make_current(newer)
    assert queued(queued_for) == 0
    assert "another version of its bot became the current one" in Match.objects.filter(
        seats__version=queued_for).first().failure


@pytest.mark.django_db(transaction=True)
def test_the_ladders_suspension_cancels_the_suspended_bots_queued_matches(queued_for, alice):
    from arena import protocol
    from ladder.suspension import SUSPEND_AFTER, suspend_failing_bots

    for _ in range(SUSPEND_AFTER):
        match = actions.create_match(kind="ladder", preset="bura", ranked=True,
                                     seat_versions=[queued_for, house_version("bura", "greedy")])
        Match.objects.filter(pk=match.pk).update(status="finished", finished=timezone.now())
        Seat.objects.filter(match=match, seat=0).update(verdict=protocol.CRASH, code="exit")
    suspend_failing_bots(match, list(match.seats.select_related("version")))
    assert Bot.objects.get(pk=queued_for.bot_id).suspended_reason
    assert queued(queued_for) == 0


def test_the_beat_withdraws_what_changed_without_a_signal(queued_for, alice):
    alice.is_active = False  # an account suspended straight in the database
    alice.save(update_fields=["is_active"])
    assert queued(queued_for) == 4
    fill_ladder(random.Random(2))
    assert queued(queued_for) == 0
    assert "its owner's account was suspended" in Match.objects.filter(seats__version=queued_for).first().failure
    assert withdraw_ineligible() == 0  # idempotent


def test_a_finished_match_records_each_seats_thinking_and_worker_time(house_bots):
    match = actions.create_match(kind="ladder", preset="bura", ranked=True,
                                 seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])
    owner = "test:1:x"
    assert actions.claim(match.pk, owner) is not None
    Match.objects.filter(pk=match.pk).update(started=timezone.now() - timedelta(seconds=10))
    rows = [{"seat": 0, "verdict": "ok", "decisions": 20, "think_ms": 6_000},
            {"seat": 1, "verdict": "ok", "decisions": 20, "think_ms": 1_000}]
    assert actions.finish(match.pk, owner, {"seats": rows, "ranks": [1, 2], "points": [0, 12]}, "", 0, {})
    seats = {s.seat: s for s in Seat.objects.filter(match=match)}
    assert (seats[0].think_ms, seats[1].think_ms) == (6_000, 1_000)
    # The time nobody thought in (10 s and the test's own, less 7 s) is shared evenly: each seat is charged its
    # own thinking plus half of it.
    rest = seats[0].worker_ms - 6_000
    took = Match.objects.get(pk=match.pk)
    assert rest == seats[1].worker_ms - 1_000
    assert 1_500 <= rest <= ((took.finished - took.started).total_seconds() * 1000 - 7_000) / 2 + 1


def test_the_bot_page_shows_its_matches_per_hour_time_per_match_and_share_of_the_workers(house_bots, alice, client):
    slow, greedy = ready_bot(alice, "thinker"), house_version("bura", "greedy")
    played([slow, greedy], [30_000, 1_000], count=6)
    played([house_version("bura", "random"), greedy], [1_000, 1_000], count=6)
    Match.objects.filter(seats__version=slow).update(started=F("finished") - timedelta(seconds=31))
    load = workload(slow.bot)
    assert load.matches == 6 and load.per_hour == pytest.approx(6 / 24)
    assert load.wall_s_per_match == pytest.approx(31, abs=0.01) and load.think_s_per_match == pytest.approx(30)
    assert load.worker_share == pytest.approx(180 / 198) and load.fair_share == pytest.approx(1 / 3)
    assert load.over_share
    page = client.get(f"/bots/{slow.bot.name}/").content.decode()
    figures = re.sub(r"<[^>]+>", "", page.split('id="workload-figures"')[1].split("</p>")[0])
    assert "0.3 matches an hour over the last day (6 in all)" in figures
    assert "31 s a match, of which thinker thought 30 s" in figures
    assert "90.9% of the workers' time in its presets (an even share: 33.3%)" in figures
    assert "plays less: it costs more than its share" in figures
    assert 'id="workload-none"' in client.get(f"/bots/{house_version('bura', 'greedy-p10').bot.name}/").content.decode()


def test_the_search_house_bots_are_on_the_ladder_as_the_setting_says(house_bots, settings):
    from bots.actions import ensure_house_bots

    searchers = Bot.objects.filter(owner__username="kozyr", name__startswith="search-")
    assert searchers.count() >= 3 and not searchers.filter(active=True).exists()  # the tests' quick ladder
    settings.HOUSE_SEARCH_BOTS = True
    ensure_house_bots()
    assert not searchers.filter(active=False).exists()
    assert not Bot.objects.filter(owner__username="kozyr", active=False).exists()
    settings.HOUSE_SEARCH_BOTS = False
    ensure_house_bots()
    assert not searchers.filter(active=True).exists()
    assert Bot.objects.filter(owner__username="kozyr", active=True).exclude(name__startswith="search-").exists()


def test_a_workloads_times_read_as_people_write_them():
    from ladder.workload import duration

    assert [duration(s) for s in (0.0, 0.04, 0.9996, 1.0, 31.04, 31.25)] == [
        "0 ms", "40 ms", "1000 ms", "1 s", "31 s", "31.2 s"]
