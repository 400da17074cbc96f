"""The match list in real Chromium at a desktop and a phone width: filters, an error beside the field at fault,
and paging older and back, without console errors or a page wider than the window."""

from __future__ import annotations

import pytest
from browser_helpers import screenshot

pytestmark = pytest.mark.django_db(transaction=True)
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize("width", [1366, 390])
def test_the_match_list_filters_and_pages(live_server, page, play, monkeypatch, width):
    from matches.models import Match
    from web import match_list_views

    monkeypatch.setattr(match_list_views, "PAGE", 2)
    play("bura")
    play("bura", builtins=("greedy-p50", "random"))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/")
    page.click("header a:text-is('Matches')")
    page.wait_for_url(f"{live_server.url}/matches/")
    page.fill("#matches-bot", "random-bura")
    page.select_option("#matches-kind", "ladder")
    page.click("#match-filters button[type=submit]")
    page.wait_for_url(lambda url: "bot=random-bura" in url)
    assert page.locator("table.matches tbody tr").count() == 2  # of 4: two pages
    assert page.evaluate(FITS)
    screenshot(page, f"matches-filtered-{width}")
    first = page.inner_text("table.matches tbody")
    page.click("a[rel=next]")
    page.wait_for_url(lambda url: "before=" in url)
    assert page.locator("table.matches tbody tr").count() == 2 and page.locator("a[rel=next]").count() == 0
    page.click("a[rel=prev]")
    page.wait_for_url(lambda url: "after=" in url)
    assert page.inner_text("table.matches tbody") == first
    lost = sum(1 for m in Match.objects.filter(kind="ladder")
               if min(s.rank for s in m.seats.all()) < next(s.rank for s in m.seats.all()
                                                           if s.version.bot.name == "random-bura"))
    page.goto(f"{live_server.url}/matches/?bot=random-bura&result=lost&kind=ladder")
    assert page.locator("table.matches tbody tr").count() == min(lost, 2)
    page.goto(f"{live_server.url}/matches/?bot=no-such-bot")
    assert "no bot is named" in page.inner_text("#matches-bot-error")
    assert page.evaluate(FITS)
    screenshot(page, f"matches-error-{width}")
    assert not page.errors, page.errors
