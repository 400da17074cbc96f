"""The continuous ladder: a bounded queue per preset, new versions first, never a bot against itself, one bot
per team, duplicate sets as the unit, and a bot that keeps crashing taken off the ladder."""

from __future__ import annotations

import random

from bots.actions import house_version
from bots.models import Bot, BotVersion
from ladder.matchmaking import PLACEMENT_GAMES, fill_ladder, pick_table
from ladder.suspension import SUSPEND_AFTER
from matches import actions
from matches.models import Match, Seat
from play.tasks import play_match


def test_it_keeps_a_bounded_queue_of_duplicate_sets_per_preset(house_bots, settings):
    settings.LADDER_QUEUE_DEPTH = 3
    fill_ladder(random.Random(1))
    for preset in ("bura", "kozel", "burraco-2p"):
        waiting = Match.objects.filter(kind="ladder", preset=preset, status="queued")
        assert 3 <= waiting.count() <= 3 + 6  # topped up by whole duplicate sets
        for match in waiting:
            seats = list(match.seats.all())
            siblings = Match.objects.filter(duplicate_set=match.duplicate_set)
            assert siblings.count() >= 2 and len({m.base_seed for m in siblings}) == 1
            assert match.ranked and len({s.version.bot_id for s in seats}) >= 2  # never a bot against itself
    assert fill_ladder(random.Random(2)) == 0  # full: nothing more is queued


def test_it_seats_one_bot_per_team_in_team_presets(house_bots, settings):
    settings.LADDER_QUEUE_DEPTH = 1
    fill_ladder(random.Random(3))
    match = Match.objects.filter(kind="ladder", preset="kozel").first()
    by_seat = {s.seat: s.version_id for s in match.seats.all()}
    assert by_seat[0] == by_seat[2] and by_seat[1] == by_seat[3] and by_seat[0] != by_seat[1]


def test_it_gives_a_new_version_its_placement_games_first(house_bots, alice):
    from bots.actions import do_create_bot

    newcomer = do_create_bot(alice, game="bura", name="newcomer")
    version = BotVersion.objects.create(bot=newcomer, number=1, builtin="greedy", runtime="builtin", status="ready")
    Bot.objects.filter(pk=newcomer.pk).update(current_version=version)
    for _ in range(3):  # the house bots already have games
        for other in ("greedy", "random"):
            actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                         versions=[house_version("bura", other), house_version("bura", "greedy-p50")])
    table = pick_table("bura", 2, random.Random(4))
    assert table[0] == version and table[1].bot_id != newcomer.pk
    assert PLACEMENT_GAMES > 0


def test_it_takes_a_bot_that_keeps_crashing_off_the_ladder_until_a_new_version_validates(alice, bura_bot, upload):
    crash = (__import__("pathlib").Path(__file__).resolve().parents[2] / "data" / "bots" / "crash.py").read_bytes()
    version = BotVersion.objects.create(bot=bura_bot, number=1, sha256="", filename="crash.py", entry=[],
                                        runtime="python3", status="ready")
    from bots import blobs

    version.sha256 = blobs.put("bots", crash)
    version.entry = ["python3", "crash.py"]
    version.save()
    Bot.objects.filter(pk=bura_bot.pk).update(current_version=version)
    for k in range(SUSPEND_AFTER):
        match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                     seat_versions=[version, house_version("bura", "random")])
        assert play_match(match.pk) == "finished"
        assert Seat.objects.get(match=match, seat=0).verdict == "crash"
        suspended = Bot.objects.get(pk=bura_bot.pk).suspended_reason
        assert bool(suspended) == (k == SUSPEND_AFTER - 1)
    bot = Bot.objects.get(pk=bura_bot.pk)
    assert "5 ladder matches in a row by crash" in bot.suspended_reason and bot.suspended_by == "ladder"
    assert not bot.on_ladder
    from tests.platform.conftest import python_bot

    assert upload(alice, bura_bot.name, "main.py", python_bot()).status_code == 201
    fixed = BotVersion.objects.get(bot=bura_bot, number=2)
    assert play_match(fixed.validation_match_id) == "finished"
    assert Bot.objects.get(pk=bura_bot.pk).suspended_reason == ""
