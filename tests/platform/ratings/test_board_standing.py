"""Who stands on a leaderboard (issue "The site as its users expect it, round two", "Reading results"): a new
version keeps its bot listed with the last rated version until it is rated itself, as aiarena and Kaggle do, and a
bot that left the ladder leaves the board at once."""

from __future__ import annotations

import pytest
from django.db import transaction

from bots.actions import do_create_bot, do_update_bot, make_current
from bots.models import Bot, BotVersion
from ratings import actions
from ratings.models import Rating

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_bot(alice):
    bot = do_create_bot(alice, game="bura", name="climber", presets=["bura"])
    first = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready")
    make_current(first)
    with transaction.atomic():
        actions._locked_ratings([first], "bura")
    Rating.objects.filter(version=first).update(official=1612.0, official_low=1580.0, official_high=1644.0,
                                                board=1612.0, provisional=False)
    return Bot.objects.get(pk=bot.pk)


def on_board(bot: Bot) -> list[tuple[int, bool]]:
    return [(r.version.number, r.official is not None) for r in actions.leaderboard("bura") if r.bot_id == bot.pk]


def test_a_new_version_keeps_its_bot_on_the_board_with_the_last_rated_version_until_it_is_rated(rated_bot, client):
    assert on_board(rated_bot) == [(1, True)]
    second = BotVersion.objects.create(bot=rated_bot, number=2, builtin="random", runtime="builtin", status="ready")
    make_current(second)
    assert on_board(rated_bot) == [(1, True)]  # not dropped off for the games v2 needs
    with transaction.atomic():  # v2's first ranked match makes its row: still v1 on the board, never both
        actions._locked_ratings([second], "bura")
    assert on_board(rated_bot) == [(1, True)]
    page = client.get("/games/bura/").content.decode()
    assert "climber" in page and "v2 being rated" in page
    Rating.objects.filter(version=second).update(official=1650.0, official_low=1600.0, official_high=1700.0,
                                                 board=1650.0)
    actions.sync_board("bura")  # what the refit does once v2 is rated
    assert on_board(rated_bot) == [(2, True)]
    assert "v2 being rated" not in client.get("/games/bura/").content.decode()


def test_a_bot_with_no_rated_version_stands_with_its_current_one(alice):
    bot = do_create_bot(alice, game="bura", name="fresh", presets=["bura"])
    version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready")
    make_current(version)
    with transaction.atomic():
        actions._locked_ratings([version], "bura")
    assert on_board(bot) == [(1, False)]


@pytest.mark.parametrize("leaves", ["deactivated", "suspended", "owner suspended"])
def test_a_bot_that_left_the_ladder_leaves_the_board_at_once(rated_bot, alice, client, leaves):
    if leaves == "deactivated":
        do_update_bot(rated_bot, active=False)
    elif leaves == "suspended":
        Bot.objects.filter(pk=rated_bot.pk).update(suspended_reason="suspended by staff (root)")
    else:
        alice.is_active = False
        alice.save(update_fields=["is_active"])
    assert on_board(rated_bot) == []
    assert "climber" not in client.get("/games/bura/").content.decode()
    assert "climber" not in client.get("/").content.decode()
