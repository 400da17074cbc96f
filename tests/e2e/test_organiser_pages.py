"""What bot authors and organisers look at, in real Chromium at 1,366 px and 390 px (issue 21): the leaderboard
marks the viewer's bots and each rating's change since yesterday and pages its rows; a finished tournament links
its pairings and crosstable to their matches and says when it finished; the host of a private tournament adds
entrants on its page and sees them listed; the home page's results stay compact on a phone. Screenshots go to
tests/e2e/artifacts/organiser/ for a person to look at."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from browser_helpers import ARTIFACTS, wait_in_page

PASSWORD = "a-long-password-1"
WIDTHS = (1366, 390)
FIELD = ("greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura")
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"


def log_in(page, site: str, username: str) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def shoot(page, name: str, width: int) -> None:
    folder = ARTIFACTS / "organiser"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)


@pytest.fixture
def host(house_bots):
    from accounts.models import User

    return User.objects.create_user(username="hostess", password=PASSWORD)


@pytest.fixture
def private_cup(host):
    """A private bura round robin, open for entries, hosted by ``host``; at most three entrants."""
    from django.utils import timezone

    from tournaments import actions

    return actions.do_create_tournament(host, name="Private cup", preset="bura", overrides={"match": "deals:1"},
                                        format="round_robin", rounds=None, deals=1, time_control=None,
                                        entry="private", max_entries=3, entry_deadline=None,
                                        starts_at=timezone.now() + timedelta(hours=2))


def test_a_host_adds_entrants_to_a_private_tournament_on_its_page(live_server, page, host, private_cup):
    from tournaments.models import Entry

    url = f"{live_server.url}/tournaments/{private_cup.pk}/"
    page.goto(url)
    assert page.locator("#add-entrant").count() == 0, "only the host sees the entrant form"
    assert "the host adds the entrants" in page.inner_text("main")
    log_in(page, live_server.url, host.username)
    page.goto(url)
    for name in ("greedy-bura", "random-bura"):  # the house's bots: another user's, as a private host may add
        page.fill("#entrant-bot", name)
        with page.expect_navigation():
            page.click("#add-entrant button[type=submit]")
        assert page.url.endswith(f"/tournaments/{private_cup.pk}/#entries")
        assert f"{name}, kozyr's bot, is entered in Private cup." in page.inner_text(".flash")
    listed = page.locator("#entry-list tbody tr").all_inner_texts()
    assert [row.split("\t")[0].strip() for row in listed] == ["greedy-bura", "random-bura"], listed
    # a refusal is said beside the field, in the action's words, and the typed name stays in it
    page.fill("#entrant-bot", "greedy-kozel")
    with page.expect_navigation():
        page.click("#add-entrant button[type=submit]")
    error = page.locator("#add-entrant .has-error #entrant-bot-error")
    assert "greedy-kozel plays kozel; this tournament is bura (bura)" in error.inner_text()
    assert page.input_value("#entrant-bot") == "greedy-kozel"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(FITS), f"the private tournament's page scrolls sideways at {width} px"
        shoot(page, "private-tournament-entrants", width)
    # removing asks first: dismissed, the entrant stays; accepted, it goes
    remove = page.locator("#entry-list form:has(input[value='random-bura']) button")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    remove.click()
    wait_in_page(page, lambda: asked, 10, "the confirm dialog")
    assert asked == ["Remove random-bura from Private cup?"], asked
    assert Entry.objects.filter(tournament=private_cup, bot__name="random-bura").exists()
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        remove.click()
    assert "random-bura is no longer entered" in page.inner_text(".flash")
    names = [row.split("\t")[0].strip() for row in page.locator("#entry-list tbody tr").all_inner_texts()]
    assert names == ["greedy-bura"], names
    assert not page.errors, page.errors


@pytest.fixture
def played_site(live_server, play, host):
    """Rated bura matches with a refit a day ago and one now, one of the rated bots owned by the host, a
    finished private round robin, and more rated bots than one leaderboard page holds."""
    from django.utils import timezone

    from bots.models import Bot, BotVersion
    from ratings.actions import refit_preset
    from ratings.models import Rating, RatingSnapshot, Refit
    from tests.platform.tournaments.test_tournaments_platform import run_to_the_end
    from tournaments import actions

    for opponents in (("greedy", "random"), ("greedy-p50", "random"), ("greedy-p25", "greedy-p50")):
        play("bura", opponents, {"match": "deals:1"})
    play("burraco-2p")
    yesterday = refit_preset("bura")
    RatingSnapshot.objects.filter(refit=yesterday).update(at=timezone.now() - timedelta(hours=30))
    for name, then in (("greedy-bura", -40.0), ("random-bura", 25.0)):  # so both arrows show
        RatingSnapshot.objects.filter(refit=yesterday, bot__name=name).update(rating=Rating.objects.get(
            bot__name=name, preset="bura", is_current=True).official + then)
    Refit.objects.filter(pk=yesterday.pk).update(at=timezone.now() - timedelta(hours=30))
    refit_preset("bura")
    Bot.objects.filter(name="greedy-p50-bura").update(owner=host)  # the host's own bot on the board
    owner = Bot.objects.get(name="random-bura").owner
    extra = Bot.objects.bulk_create([Bot(owner=owner, game="bura", name=f"filler-{k:02}") for k in range(60)])
    versions = BotVersion.objects.bulk_create([BotVersion(bot=b, number=1, builtin="random", runtime="builtin",
                                                          status="ready") for b in extra])
    Rating.objects.bulk_create([Rating(version=v, bot=v.bot, preset="bura", live_mu=20.0 + k / 10, live_sigma=8.0,
                                       is_current=True) for k, v in enumerate(versions)])
    cup = actions.do_create_tournament(host, name="Finished cup", preset="bura", overrides={"match": "deals:1"},
                                       format="round_robin", rounds=None, deals=1, time_control=None,
                                       entry="private", max_entries=8, entry_deadline=None,
                                       starts_at=timezone.now() + timedelta(hours=1))
    for name in FIELD:
        actions.do_join(host, cup, Bot.objects.get(name=name))
    actions.do_host_action(host, cup, "start")
    run_to_the_end(cup.pk)
    return {"cup": cup.pk, "board": Rating.objects.filter(preset="bura", is_current=True).count()}


def test_the_leaderboard_tournament_and_home_pages_at_both_widths(live_server, page, host, played_site):
    log_in(page, live_server.url, host.username)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})

        page.goto(f"{live_server.url}/games/bura/")
        assert page.inner_text("h1") == "bura", "the preset is named once"
        mine = page.locator("#leaderboard tr.mine")
        assert mine.count() == 1 and "greedy-p50-bura" in mine.inner_text() and "yours" in mine.inner_text()
        board = page.inner_text("#leaderboard")
        assert "▲ +" in board and "▼ −" in board, board[:800]
        assert "Live: updated the moment each ranked match ends" in page.inner_text("#ratings-explained")
        pager = page.locator("nav.pager")
        listed = played_site["board"]
        assert listed > 50 and f"1–50 of {listed}" in pager.inner_text()
        assert page.evaluate(FITS), f"the leaderboard scrolls sideways at {width} px"
        shoot(page, "leaderboard", width)
        if width == WIDTHS[-1]:  # the page links are big enough for a thumb, and they work
            box = pager.locator("a", has_text="2").bounding_box()
            assert box["width"] >= 40 and box["height"] >= 40, box
            pager.locator("a", has_text="2").click()
            page.wait_for_url("**/games/bura/?page=2")
            assert f"51–{listed} of {listed}" in page.inner_text("nav.pager")
            assert page.locator("#leaderboard tbody tr").count() == listed - 50

        page.goto(f"{live_server.url}/tournaments/{played_site['cup']}/")
        text = page.inner_text("main")
        assert "finished " in text and "starts " not in text
        assert re.search(r"\(\d+(\.\d+)? points?( each)? from 2 games\)", text) and " of 2 games" not in text
        assert page.locator("table.cross td a").count() == 12  # 4 bots, each met 3 others
        assert page.locator("table.rounds a[href^='/matches/']").count() == 12  # 6 pairings of 2 matches
        assert page.evaluate(FITS), f"the tournament page scrolls sideways at {width} px"
        shoot(page, "tournament-finished", width)

        page.goto(f"{live_server.url}/")
        finished = page.locator("table.matches").last
        assert page.evaluate(FITS), f"the home page scrolls sideways at {width} px"
        shoot(page, "home", width)
        results = finished.locator("td.status-finished")
        assert results.count() == 10
        for cell in results.all():  # who won and the score on the cell's first line, the rest below
            cell_box, score_box = cell.bounding_box(), cell.locator(".score").bounding_box()
            assert score_box["y"] - cell_box["y"] < 16, (width, cell.inner_text(), cell_box, score_box)
            assert cell.locator(".others").is_visible() == (width == WIDTHS[-1]), (width, cell.inner_text())
        if width == WIDTHS[-1]:  # one cell per finished match: the column of sides gives way to it
            assert not finished.locator("td.sides").first.is_visible()
    page.goto(f"{live_server.url}/tournaments/{played_site['cup']}/")
    page.locator("table.cross td a").first.click()
    page.wait_for_url("**/rounds/*/*/")
    assert page.locator("table.matches tbody tr").count() == 2  # the pairing's duplicate set
    shoot(page, "tournament-pairing", WIDTHS[-1])
    assert not page.errors, page.errors
