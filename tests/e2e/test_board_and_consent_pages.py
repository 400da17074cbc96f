"""Pages changed for the fair share and the open data, in real Chromium at desktop and phone widths: a bot whose
new version is being rated stays on the leaderboard with a tag saying so, its page shows its workload, and the
New bot form offers the open-data choice, ticked by default (issues 35, 36, 39)."""

from __future__ import annotations

import pytest
from browser_helpers import screenshot
from django.db import transaction

from tests.e2e.test_live_pages import alice, log_in  # noqa: F401  (alice: a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_board_keeps_a_bot_being_rated_and_its_page_shows_the_workload(live_server, page, alice, play,  # noqa: F811
                                                                            width):
    from bots.actions import do_create_bot, make_current
    from bots.models import BotVersion
    from ratings import actions
    from ratings.models import Rating

    play("bura")  # finished matches: the house bots' workload
    bot = do_create_bot(alice, game="bura", name="climber", presets=["bura"])
    first = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready")
    make_current(first)
    with transaction.atomic():
        actions._locked_ratings([first], "bura")
    Rating.objects.filter(version=first).update(official=1900.0, official_low=1860.0, official_high=1940.0,
                                                board=1900.0, provisional=False)
    make_current(BotVersion.objects.create(bot=bot, number=2, builtin="random", runtime="builtin", status="ready"))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/games/bura/")
    row = page.locator("tr", has_text="climber")
    assert "v2 being rated" in row.inner_text() and "v1" in row.inner_text()
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"board-being-rated-{width}")
    page.goto(f"{live_server.url}/bots/greedy-bura/")
    figures = page.inner_text("#workload-figures")
    assert "matches an hour over the last day" in figures and "of the workers' time" in figures
    assert ".0 " not in figures
    screenshot(page, f"bot-workload-{width}")
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", [1366, 390])
def test_the_new_bot_form_offers_the_open_data_choice_ticked(live_server, page, alice, width):  # noqa: F811
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/new/")
    box = page.locator("#id_open_data")
    assert box.is_checked()
    assert "open-data dumps" in page.inner_text("main")
    assert page.locator("header nav a", has_text="Data").get_attribute("href") == "/data/"
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"bot-new-open-data-{width}")
    assert not page.errors, page.errors
