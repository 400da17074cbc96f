"""Waiting seats hold no worker process (issue "Fair share of the workers"): matches with a seat that waits on a
person or a remote connection go to the ``open`` queue, and matches with an uploaded bot's seat to the
``sandboxed`` queue, each played in threads, many at once, while the built-in bots' ladder keeps the worker
processes it is computed in. Real workers on Redis and PostgreSQL: three people sit at tables and think (they
never answer while the test watches), a legal slow bot thinks half a second a move on the ladder, and the
ladder plays on beside them on a worker of one process."""

from __future__ import annotations

import random

import pytest

from config.celery_settings import OPEN_QUEUE, QUEUE_ORDER, SANDBOXED_QUEUE
from matches.models import Match
from tests.platform.faults.test_busy_recovery import site_env
from tests.support.polling import wait_until
from tests.support.workers import Worker, flush_broker, publish_to_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

COMPUTED = ",".join(q for q in QUEUE_ORDER if q not in (OPEN_QUEUE, SANDBOXED_QUEUE))  # the worker processes'
SLOW_BOT_SECONDS = 0.5  # a move's thinking, within the 1 s move time: legal, and slow


def test_people_thinking_and_a_slow_bot_never_stop_the_ladder_of_a_one_process_worker(tmp_path, settings,
                                                                                     house_bots, make_user,
                                                                                     monkeypatch):
    from bots.actions import do_create_bot
    from bots.models import Bot
    from ladder.matchmaking import fill_ladder
    from matches import actions
    from matches.casual import start_casual
    from tests.platform.faults.test_worker_e2e import ready_slow_version

    Bot.objects.exclude(game="bura").update(active=False)  # short matches
    settings.LADDER_QUEUE_DEPTH = 2
    monkeypatch.setattr(actions, "publish", publish_to_redis)
    flush_broker()
    started: list[Worker] = []
    try:
        computing = Worker("cpu", site_env(tmp_path, settings, "cpu"), tmp_path / "cpu.log", queues=COMPUTED)
        waiting = Worker("open", site_env(tmp_path, settings, "open"), tmp_path / "open.log", queues=OPEN_QUEUE,
                         pool="threads", concurrency=8)
        bots = Worker("bots", site_env(tmp_path, settings, "bots"), tmp_path / "bots.log", queues=SANDBOXED_QUEUE,
                      pool="threads", concurrency=4)
        started += [computing, waiting, bots]
        author = make_user("author")
        slow = ready_slow_version(author, do_create_bot(author, game="bura", name="slow-thinker"), SLOW_BOT_SECONDS)
        Bot.objects.filter(pk=slow.bot_id).update(current_version=slow)  # on the ladder as its current version
        for worker in started:
            worker.wait_ready()
        greedy = Bot.objects.get(name="greedy-bura")
        tables = [start_casual(make_user(f"person{k}"), greedy, "bura") for k in range(3)]
        assert all(m.queue == OPEN_QUEUE for m in tables)
        wait_until(lambda: Match.objects.filter(pk__in=[m.pk for m in tables], status="running").count() == 3, 60,
                   lambda: f"the three tables to be dealt: {waiting.output()[-2000:]}")
        # All three in the one process of the open queue's worker, each in a thread of its own.
        owners = set(Match.objects.filter(pk__in=[m.pk for m in tables]).values_list("lease_owner", flat=True))
        assert {owner.split(":")[1] for owner in owners} == {str(waiting.proc.pid)} and len(owners) == 3
        # The ladder plays on while they think: its one worker process is never theirs.
        rng = random.Random(1)

        def ladder_finished() -> int:
            fill_ladder(rng)
            return Match.objects.filter(kind="ladder", status="finished").count()

        slow_matches = Match.objects.filter(kind="ladder", seats__version=slow)
        wait_until(lambda: ladder_finished() and slow_matches.filter(status="running").exists(), 90,
                   lambda: f"the slow bot's ladder match to start: {bots.output()[-2000:]}")
        assert all(m.queue == SANDBOXED_QUEUE for m in slow_matches)
        # While the slow bot thinks (a match of it takes tens of seconds), the built-in bots' ladder plays on.
        before = Match.objects.filter(kind="ladder", status="finished").exclude(seats__version=slow).count()
        wait_until(lambda: ladder_finished() and Match.objects.filter(kind="ladder", status="finished").exclude(
                     seats__version=slow).count() >= before + 8 and slow_matches.filter(status="running").exists(),
                   90, lambda: f"the ladder to play on beside the slow bot: {computing.output()[-2000:]}")
        assert Match.objects.filter(pk__in=[m.pk for m in tables], status="running").count() == 3
        assert not Match.objects.filter(kind="ladder", lease_owner__contains=f":{waiting.proc.pid}:").exists()
        # The slow bot's matches are threads of the bots worker, never the computing worker's one process.
        owners = set(slow_matches.exclude(lease_owner="").values_list("lease_owner", flat=True))
        assert owners and {owner.split(":")[1] for owner in owners} == {str(bots.proc.pid)}
        assert not Match.objects.filter(kind="ladder", lease_owner__contains=f":{bots.proc.pid}:").exclude(
            seats__version=slow).exists()
        assert len(computing.descendants()) == 1  # its one pool process, which neither people nor bots held
    finally:
        for worker in started:
            worker.stop()
