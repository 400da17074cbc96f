"""/matches/: every match, newest first, filtered by bot, opponent, preset, kind, result and date, paged by a
cursor, in a fixed number of queries; nothing the match pages keep back (a validation's verdict detail)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import Bot, BotVersion
from matches.models import Match, Seat
from web import match_list_views


def version(name: str) -> BotVersion:
    return Bot.objects.get(name=name).current_version


def make(kind: str, preset: str, first: str, second: str, ranks=(1, 2), status="finished", **extra) -> Match:
    match = Match.objects.create(kind=kind, preset=preset, game="bura", status=status, base_seed=Match.objects.count(),
                                 result={"teams": [[0], [1]], "points": [0, 12], "points_kind": "penalty"}
                                 if status == "finished" else None, **extra)
    for seat, (name, rank) in enumerate(zip((first, second), ranks, strict=True)):
        Seat.objects.create(match=match, seat=seat, version=version(name), verdict="ok",
                            rank=rank if status == "finished" else None, score=[0, 12][seat])
    return match


def listed(client, **query) -> list[int]:
    html = client.get("/matches/", query).content.decode()
    return [int(pk) for pk in re.findall(r'<tr class="[\w-]+"><td><a href="/matches/(\d+)/">', html)]


@pytest.fixture
def matches(house_bots):
    made = {
        "g-r": make("ladder", "bura", "greedy-bura", "random-bura"),
        "r-g": make("ladder", "bura", "random-bura", "greedy-bura"),
        "draw": make("challenge", "bura", "greedy-bura", "random-bura", ranks=(1, 1)),
        "3p": make("ladder", "burkozel", "greedy-bura", "greedy-p50-bura"),
        "queued": make("ladder", "bura", "greedy-bura", "random-bura", status="queued"),
    }
    Match.objects.filter(pk=made["g-r"].pk).update(created=timezone.now() - timedelta(days=10))
    return {k: m.pk for k, m in made.items()}


def test_it_filters_by_bot_opponent_preset_kind_result_and_date(client, matches):
    m = matches
    assert listed(client) == sorted(m.values(), reverse=True)
    assert listed(client, bot="GREEDY-bura") == sorted(m.values(), reverse=True)
    assert listed(client, bot="greedy-bura", opponent="random-bura") == [m["queued"], m["draw"], m["r-g"], m["g-r"]]
    assert listed(client, preset="burkozel") == [m["3p"]]
    assert listed(client, kind="challenge") == [m["draw"]]
    assert listed(client, bot="greedy-bura", result="won") == [m["3p"], m["g-r"]]
    assert listed(client, bot="greedy-bura", result="lost") == [m["r-g"]]
    assert listed(client, bot="random-bura", result="won") == [m["r-g"]]
    assert listed(client, bot="greedy-bura", result="drawn") == [m["draw"]]
    today = timezone.localdate()
    assert m["g-r"] not in listed(client, since=str(today - timedelta(days=1)))
    assert listed(client, until=str(today - timedelta(days=5))) == [m["g-r"]]


def test_it_says_what_is_wrong_with_a_filter(client, matches):
    html = client.get("/matches/", {"bot": "nobody-at-all", "result": "won"}).content.decode()
    assert "no bot is named &#x27;nobody-at-all&#x27;" in html
    assert "a result is the bot" not in html  # the bot is named: its name is what is wrong
    assert "a result is the bot&#x27;s: name the bot too" in client.get("/matches/", {"result": "won"}).content.decode()
    assert "is before" in client.get("/matches/", {"since": "2026-12-05", "until": "2026-12-01"}).content.decode()


def test_it_pages_by_cursor_both_ways_in_few_queries(client, alice, matches, monkeypatch,
                                                     django_assert_max_num_queries):
    monkeypatch.setattr(match_list_views, "PAGE", 2)
    client.force_login(alice)
    with django_assert_max_num_queries(6):  # session, user, bot's versions, page, seats
        first = client.get("/matches/", {"bot": "greedy-bura"}).content.decode()
    everything = sorted(matches.values(), reverse=True)
    assert listed(client, bot="greedy-bura") == everything[:2]
    older = re.search(r'href="\?([^"]+)" rel="next"', first).group(1).replace("&amp;", "&")
    assert "bot=greedy-bura" in older and f"before={everything[1]}" in older
    second = client.get("/matches/?" + older).content.decode()
    assert listed(client, bot="greedy-bura", before=everything[1]) == everything[2:4]
    newer = re.search(r'href="\?([^"]+)" rel="prev"', second).group(1).replace("&amp;", "&")
    assert listed(client, **dict(pair.split("=") for pair in newer.split("&"))) == everything[:2]
    assert listed(client, bot="greedy-bura", before=everything[3]) == everything[4:]


def test_it_keeps_a_validation_matchs_reasons_to_the_bots_owner(client, alice, bob, house_bots):
    from bots.actions import do_create_bot, make_current

    bot = do_create_bot(alice, game="bura", name="secretive")
    make_current(BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready"))
    match = make("validation", "bura", "random-bura", "secretive")
    Seat.objects.filter(match=match, seat=1).update(verdict="crash", detail="Traceback: my_secret_strategy.py line 9")
    client.force_login(bob)
    for path in ("/matches/", "/bots/random-bura/", "/"):
        assert "my_secret_strategy" not in client.get(path).content.decode(), path
    client.force_login(alice)
    assert "my_secret_strategy" in client.get("/matches/").content.decode()
