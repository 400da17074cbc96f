"""The house bots (bots.actions.ensure_house_bots): every built-in bot of every game, ready and current, made once
in a few queries, and the same rows when two processes start at once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from arena.bots import bots_for
from arena.games import GAME_MODULES
from bots.actions import ensure_house_bots, house_bot_name
from bots.models import Bot, BotVersion

EVERY = sorted(house_bot_name(game, builtin) for game in GAME_MODULES for builtin in bots_for(game))


def _assert_every_house_bot_once():
    bots = Bot.objects.filter(name__in=EVERY).select_related("current_version")
    assert sorted(bot.name for bot in bots) == EVERY
    for bot in bots:
        version = bot.current_version
        assert version is not None and version.status == BotVersion.Status.READY and version.runtime == "builtin"
        assert house_bot_name(bot.game, version.builtin) == bot.name
    assert BotVersion.objects.filter(bot__name__in=EVERY).count() == len(EVERY)


@pytest.mark.django_db
def test_it_makes_every_built_in_bot_a_ready_current_house_bot_and_a_second_run_only_reads(
        django_assert_max_num_queries):
    made = ensure_house_bots()
    assert sorted(bot.name for bot in made) == EVERY
    _assert_every_house_bot_once()
    with django_assert_max_num_queries(8):  # every start-up and every test of the site runs it
        again = ensure_house_bots()
    assert [bot.pk for bot in again] == [bot.pk for bot in made]
    _assert_every_house_bot_once()


@pytest.mark.django_db
def test_a_house_bot_that_lost_its_version_or_its_current_one_gets_it_back():
    ensure_house_bots()
    first, second = EVERY[0], EVERY[1]
    Bot.objects.filter(name=first).update(current_version=None)
    doomed = Bot.objects.get(name=second)
    Bot.objects.filter(pk=doomed.pk).update(current_version=None)
    BotVersion.objects.filter(bot=doomed).delete()
    ensure_house_bots()
    _assert_every_house_bot_once()


@pytest.mark.django_db(transaction=True)
def test_two_processes_starting_at_once_end_with_the_same_rows():
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need the PostgreSQL the suite runs on")
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def run():
        try:
            start.wait(timeout=10)
            ensure_house_bots()
        except BaseException as error:  # reported by the test below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    _assert_every_house_bot_once()
