"""The leaderboard as bot authors expect it (issue 21): the viewer's own bots marked, each rating's change since
yesterday, the preset named once, the live rating explained, and pages of 50 rows in a fixed number of
queries."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone

from bots.models import Bot, BotVersion
from ratings.models import Rating, RatingSnapshot, Refit


def rated_bots(owner, count: int, *, start: int = 0, yesterday: float | None = None) -> list[Bot]:
    """``count`` bura bots of ``owner`` with a fitted rating (1500 + k) and, when ``yesterday`` is given, a
    snapshot of a refit two days ago at that much below it."""
    bots = Bot.objects.bulk_create([Bot(owner=owner, game="bura", name=f"board-{start + k:03}")
                                    for k in range(count)])
    versions = BotVersion.objects.bulk_create([BotVersion(bot=b, number=1, builtin="random", runtime="builtin",
                                                          status="ready") for b in bots])
    ratings = Rating.objects.bulk_create([
        Rating(version=v, bot=v.bot, preset="bura", live_mu=25.0, live_sigma=8.0, is_current=True,
               official=1500.0 + start + k, official_low=1400.0, official_high=1600.0, board=1500.0 + start + k,
               games=10, wins=5, losses=5, score=5.0) for k, v in enumerate(versions)])
    if yesterday is not None:
        refit = Refit.objects.create(preset="bura", matches=0, rated=count, seconds=0.0)
        then = timezone.now() - timedelta(days=2)
        RatingSnapshot.objects.bulk_create([
            RatingSnapshot(refit=refit, version=r.version, bot=r.bot, preset="bura", at=then,
                           rating=r.official - yesterday, low=0.0, high=0.0, games=10.0) for r in ratings])
    return bots


def rows_of(html: str) -> list[str]:
    body = html[html.index('id="leaderboard"'):]
    return re.findall(r'<tr(?: class="mine")?><td>\d+</td><td class="who"><a href="/bots/([^/]+)/"', body)


def test_the_leaderboard_marks_your_bots_and_names_the_preset_once(client, alice, bob):
    rated_bots(alice, 2)
    rated_bots(bob, 1, start=2)
    html = client.get("/games/bura/").content.decode()
    assert re.search(r"<h1>bura</h1>", html), "bura is both the game and the preset: named once"
    assert 'class="mine"' not in html and ">yours<" not in html
    client.force_login(alice)
    html = client.get("/games/bura/").content.decode()
    mine = re.findall(r'<tr class="mine"><td>\d+</td><td class="who"><a href="/bots/([^/]+)/">[^<]+</a> '
                      r'<span class="tag">yours</span>', html)
    assert sorted(mine) == ["board-000", "board-001"], mine
    burkozel = client.get("/games/burkozel/").content.decode()
    assert "<h1>burkozel <small>a Bura-family preset</small></h1>" in burkozel


def test_the_leaderboard_shows_each_ratings_change_since_yesterday(client, alice):
    up, down, same = rated_bots(alice, 3, yesterday=0.0)
    RatingSnapshot.objects.filter(bot=up).update(rating=1500.0 - 12.4)  # board-000 is rated 1500 now
    RatingSnapshot.objects.filter(bot=down).update(rating=1501.0 + 30)  # board-001: 1501
    fresh = rated_bots(alice, 1, start=3)[0]  # no snapshot a day ago
    newer = Refit.objects.create(preset="bura", matches=0, rated=1, seconds=0.0)
    RatingSnapshot.objects.create(refit=newer, version=fresh.versions.get(), bot=fresh, preset="bura",
                                  at=timezone.now() - timedelta(hours=2), rating=1400.0, low=0, high=0, games=1)
    html = client.get("/games/bura/").content.decode()

    def change_of(name: str) -> str:
        row = html[html.index(f'<a href="/bots/{name}/">'):]
        return re.sub(r"<[^>]+>", "", row[row.index('class="num change"'):].split("</td>")[0]).split(">", 1)[1]

    assert change_of(up.name) == "▲ +12"
    assert change_of(down.name) == "▼ −30"
    assert change_of(same.name) == "= 0"
    assert change_of(fresh.name) == "new", "rated within the last day only: nothing to compare"
    assert "Live</strong>: updated the moment each ranked match ends" in html
    assert '<option value="live" >sort by live rating</option>' in html


def test_the_leaderboard_pages_its_rows_with_links_that_keep_the_search_and_sort(client, alice):
    rated_bots(alice, 120)
    first = client.get("/games/bura/").content.decode()
    assert rows_of(first) == [f"board-{k:03}" for k in range(119, 69, -1)], "best first, 50 a page"
    assert "1–50 of 120" in first and 'href="?page=2"' in first and 'href="?page=3"' in first
    third = client.get("/games/bura/", {"page": 3}).content.decode()
    assert rows_of(third) == [f"board-{k:03}" for k in range(19, -1, -1)]
    assert '<span aria-current="page">3</span>' in third and "101–120 of 120" in third
    assert len(rows_of(client.get("/games/bura/", {"page": "99"}).content.decode())) == 20  # the last page
    found = client.get("/games/bura/", {"q": "board-0", "sort": "name"}).content.decode()
    assert rows_of(found)[:2] == ["board-000", "board-001"]
    assert 'href="?page=2&amp;q=board-0&amp;sort=name"' in found
    assert "No bot whose name contains" in client.get("/games/bura/", {"q": "zzz"}).content.decode()


def test_the_leaderboard_takes_the_same_queries_for_three_bots_as_for_a_hundred(client, alice,
                                                                              django_assert_max_num_queries):
    rated_bots(alice, 3, yesterday=5.0)
    client.force_login(alice)
    with django_assert_max_num_queries(20) as small:
        assert client.get("/games/bura/").status_code == 200
    rated_bots(alice, 100, start=3, yesterday=5.0)
    for query in ({}, {"page": 2}, {"sort": "live"}):
        with django_assert_max_num_queries(len(small.captured_queries)):
            page = client.get("/games/bura/", query).content.decode()
        assert page.count('class="mine"') == 50 and page.count("▲ +5") == 50
