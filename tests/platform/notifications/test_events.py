"""Which events notify whom, once each, and only once their transaction commits (issue 36, Notifications): a
version validated or rejected, a crash streak and the suspension after it, a tournament started and finished,
a challenge played. Matches are played in-process by the worker's task, on real commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import transaction

from bots.actions import do_create_bot, house_version
from bots.models import Bot, BotVersion
from bots.signals import ladder_standing_changed
from ladder.suspension import SUSPEND_AFTER
from matches import actions
from matches.challenges import do_challenge
from notifications import events
from notifications.models import Event, Notification
from play.tasks import play_match
from tests.platform.conftest import python_bot
from tests.platform.tournaments.test_tournaments_platform import host_tournament, run_to_the_end
from tournaments import lifecycle
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)
CRASH = Path(__file__).resolve().parents[2] / "data" / "bots" / "crash.py"


def told(user, event=None) -> list[Notification]:
    rows = Notification.objects.filter(user=user).order_by("pk")
    return list(rows.filter(event=event) if event else rows)


def builtin_bot(owner, name: str, builtin: str = "greedy") -> Bot:
    bot = do_create_bot(owner, game="bura", name=name)
    version = BotVersion.objects.create(bot=bot, number=1, builtin=builtin, runtime="builtin", status="ready")
    Bot.objects.filter(pk=bot.pk).update(current_version=version)
    return Bot.objects.get(pk=bot.pk)


def test_it_tells_the_owner_a_version_is_validated_or_rejected_once(alice, bura_bot, upload):
    assert upload(alice, bura_bot.name, "main.py", python_bot()).status_code == 201
    good = BotVersion.objects.get(bot=bura_bot, number=1)
    assert told(alice) == []  # nothing while it waits
    assert play_match(good.validation_match_id) == "finished"
    validated, = told(alice, Event.VERSION_VALIDATED)
    assert validated.title == "alice-bura v1 is validated" and validated.url == "/bots/alice-bura/"
    assert upload(alice, bura_bot.name, "main.py", CRASH.read_bytes()).status_code == 201
    bad = BotVersion.objects.get(bot=bura_bot, number=2)
    assert play_match(bad.validation_match_id) == "finished"
    rejected, = told(alice, Event.VERSION_REJECTED)
    assert rejected.title == "alice-bura v2 was rejected" and rejected.text == BotVersion.objects.get(pk=bad.pk).reason
    events.version_result(bad.pk)  # noticed again (a hook run twice): still told once
    assert len(told(alice)) == 2


def test_a_rolled_back_transaction_tells_nobody(alice, bura_bot):
    with pytest.raises(RuntimeError), transaction.atomic():
        Bot.objects.filter(pk=bura_bot.pk).update(suspended_reason="by staff: cheating", suspended_by="staff")
        ladder_standing_changed.send(sender=Bot, bot_ids=[bura_bot.pk])
        raise RuntimeError("rolled back")
    assert told(alice) == []
    with transaction.atomic():
        Bot.objects.filter(pk=bura_bot.pk).update(suspended_reason="by staff: cheating", suspended_by="staff")
        ladder_standing_changed.send(sender=Bot, bot_ids=[bura_bot.pk])
    suspended, = told(alice, Event.BOT_SUSPENDED)
    assert suspended.text == "by staff: cheating"


def test_it_warns_of_a_crash_streak_once_then_tells_of_the_suspension(alice, bura_bot):
    from bots import blobs

    version = BotVersion.objects.create(bot=bura_bot, number=1, sha256=blobs.put("bots", CRASH.read_bytes()),
                                        filename="crash.py", entry=["python3", "crash.py"], runtime="python3",
                                        status="ready")
    Bot.objects.filter(pk=bura_bot.pk).update(current_version=version)
    for k in range(SUSPEND_AFTER):
        match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                     seat_versions=[version, house_version("bura", "random")])
        assert play_match(match.pk) == "finished"
        assert len(told(alice, Event.BOT_CRASHING)) == (1 if k >= events.CRASH_STREAK - 1 else 0)
        assert len(told(alice, Event.BOT_SUSPENDED)) == (1 if k == SUSPEND_AFTER - 1 else 0)
    crashing, = told(alice, Event.BOT_CRASHING)
    assert crashing.title == f"alice-bura v1 failed {events.CRASH_STREAK} ladder matches in a row"
    assert "crash" in crashing.text
    suspended, = told(alice, Event.BOT_SUSPENDED)
    assert "5 ladder matches in a row by crash" in suspended.text
    assert not Notification.objects.filter(user__username="kozyr").exists()  # the house bots' account


def test_it_tells_the_host_and_each_entrant_when_a_tournament_starts_and_finishes(alice, bob, as_user, house_bots):
    builtin_bot(alice, "alice-greedy")
    builtin_bot(bob, "bob-random", "random")
    pk = host_tournament(alice, as_user, ["alice-greedy", "bob-random", "random-bura"])
    lifecycle.start(Tournament.objects.get(pk=pk))
    for user in (alice, bob):
        started, = told(user, Event.TOURNAMENT_STARTED)
        assert started.title == "Tournament Cup has started" and started.url == f"/tournaments/{pk}/"
        assert told(user, Event.TOURNAMENT_FINISHED) == []
    assert run_to_the_end(pk).status == Tournament.Status.FINISHED
    for user in (alice, bob):
        assert len(told(user, Event.TOURNAMENT_STARTED)) == 1
        finished, = told(user, Event.TOURNAMENT_FINISHED)
        assert finished.title == "Tournament Cup has finished: the standings are final"
    assert not Notification.objects.filter(user__username="kozyr").exists()


def test_it_tells_both_owners_once_a_challenges_last_match_ends(alice, bob, house_bots):
    mine, theirs = builtin_bot(alice, "alice-greedy"), builtin_bot(bob, "bob-random", "random")
    matches = do_challenge(alice, mine, theirs, "bura")
    assert len(matches) == 2
    assert play_match(matches[0].pk) == "finished"
    assert told(alice) == [] and told(bob) == []  # one match of two: not yet
    assert play_match(matches[1].pk) == "finished"
    for user in (alice, bob):
        played, = told(user, Event.CHALLENGE_PLAYED)
        assert played.title == "Challenge played: alice-greedy vs bob-random"
        assert played.url == f"/challenges/{matches[0].duplicate_set}/"
        assert played.text.startswith("2 of 2 matches played; matches won: alice-greedy ")
    events.challenge_played(str(matches[0].duplicate_set))  # the other worker's look after its commit
    assert len(told(alice)) == len(told(bob)) == 1
