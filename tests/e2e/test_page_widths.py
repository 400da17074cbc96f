"""Every page at a desktop width (1,366 px) and a phone width (390 px) in real Chromium: the page itself never
scrolls sideways (a wide table scrolls inside its own box), and no page logs a console error. Each page is
saved as a screenshot under tests/e2e/artifacts/widths/ for a person to look at (the whole page; the
documents, tens of screens long, their first screen)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from browser_helpers import ARTIFACTS, wait_in_page

WIDTHS = (1366, 390)
PASSWORD = "a-long-password-1"
# the page's own width and the window's; a table in a .scroll box may be wider than both
MEASURE = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@pytest.fixture
def site(live_server, play):
    """A site with something on every page: played and rated matches, a finished round robin, and a host
    with an open Swiss."""
    from django.utils import timezone

    from accounts.models import User
    from bots.models import Bot
    from ratings.actions import refit_preset
    from tests.platform.tournaments.test_tournaments_platform import run_to_the_end
    from tournaments import actions

    match = play("bura")
    play("burraco-2p")
    for preset in ("bura", "burraco-2p"):
        refit_preset(preset)
    host = User.objects.create_user(username="hostess", password=PASSWORD)
    cup = actions.do_create_tournament(host, name="Width cup", preset="bura", overrides={"match": "deals:1"},
                                       format="round_robin", rounds=None, deals=1, time_control=None,
                                       entry="private", max_entries=8, entry_deadline=None,
                                       starts_at=timezone.now() + timedelta(hours=1))
    for name in ("greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"):
        actions.do_join(host, cup, Bot.objects.get(name=name))
    actions.do_host_action(host, cup, "start")
    run_to_the_end(cup.pk)
    open_cup = actions.do_create_tournament(host, name="Open cup", preset="bura", format="swiss", rounds=3,
                                            deals=1, time_control=None, entry="open", max_entries=8,
                                            entry_deadline=None, starts_at=timezone.now() + timedelta(days=1))
    return {"match": match.pk, "cup": cup.pk, "open_cup": open_cup.pk}


def anonymous_pages(site) -> dict[str, str]:
    from web.docs_pages import PAGES

    pages = {"home": "/", "leaderboard": "/games/bura/", "leaderboard-burraco": "/games/burraco-2p/",
             "bots": "/bots/", "bot": "/bots/greedy-bura/", "match": f"/matches/{site['match']}/",
             "tournaments": "/tournaments/", "tournament": f"/tournaments/{site['cup']}/",
             "tournament-open": f"/tournaments/{site['open_cup']}/", "log-in": "/login/", "sign-up": "/signup/",
             "not-found": "/matches/999999/", "matches": "/matches/", "matches-of-a-bot": "/matches/?bot=greedy-bura",
             "user": "/users/hostess/", "password-reset": "/password/reset/"}
    pages.update({f"docs-{slug}": f"/docs/{slug}/" for slug in PAGES})
    return pages


SIGNED_IN = {"profile": "/profile/", "new-bot": "/bots/new/", "new-tournament": "/tournaments/new/",
             "password": "/password/", "own-bot": "/bots/hostess-bot/", "tournament-host": None,
             "delete-bot": "/bots/hostess-bot/delete/"}


def test_every_page_fits_a_desktop_and_a_phone_without_console_errors(live_server, browser, site):
    from accounts.models import User
    from bots.actions import do_create_bot

    do_create_bot(User.objects.get(username="hostess"), game="bura", name="hostess-bot")
    folder = ARTIFACTS / "widths"
    folder.mkdir(parents=True, exist_ok=True)
    signed_in = {**SIGNED_IN, "tournament-host": f"/tournaments/{site['open_cup']}/"}
    measured: dict[str, dict[int, int]] = {}
    problems: list[str] = []
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 860})
        page = context.new_page()
        page.set_default_timeout(30_000)
        errors: list[str] = []
        page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc, errors=errors: errors.append(f"page error: {exc}"))

        def visit(name: str, path: str, width=width, page=page, errors=errors) -> None:
            del errors[:]
            response = page.goto(live_server.url + path)
            assert response.status == (404 if name == "not-found" else 200), path
            # the match page's viewer fetches its frames; every other page is whole once loaded
            page.wait_for_load_state("networkidle" if name == "match" else "load")
            scroll, inner = page.evaluate(MEASURE)
            measured.setdefault(name, {})[width] = scroll
            if scroll > inner:
                problems.append(f"{name} ({path}) at {width} px: the page is {scroll} px wide")
            page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=not name.startswith("docs-"))
            seen = [e for e in errors if not (name == "not-found" and "404" in e)]
            if seen:
                problems.append(f"{name} ({path}) at {width} px: console errors {seen}")

        for name, path in anonymous_pages(site).items():
            visit(name, path)
        page.goto(live_server.url + "/login/")
        page.fill("input[name=username]", "hostess")
        page.fill("input[name=password]", PASSWORD)
        page.locator("main form button").last.click()
        page.wait_for_load_state("networkidle")
        assert "hostess" in page.inner_text("header")
        for name, path in signed_in.items():
            visit(name, path)
        if width == WIDTHS[-1]:
            deactivate_asks_first(page, live_server.url)
        context.close()
    report = "\n".join(f"{name:24} " + "  ".join(f"{w}: {px}" for w, px in sorted(by.items()))
                       for name, by in measured.items())
    print(f"page widths (scrollWidth):\n{report}")
    assert not problems, "\n".join(problems) + f"\n\n{report}"


def deactivate_asks_first(page, base: str) -> None:
    """Leaving the ladder asks first: dismissed, the bot stays active; accepted, it leaves."""
    from bots.models import Bot

    page.goto(base + "/bots/hostess-bot/")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("button[name=deactivate]")
    wait_in_page(page, lambda: asked, 10, "the confirm dialog")
    assert asked and "leaves the ladder" in asked[0], asked
    assert Bot.objects.get(name="hostess-bot").active
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.click("button[name=deactivate]")
    assert not Bot.objects.get(name="hostess-bot").active
