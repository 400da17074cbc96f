"""Comfort, in real Chromium at a desktop and a phone width: the tab titles are words (no markup leaks from a
template into <title>), and the API's documentation pages keep the site's header, so a reader can get back."""

from __future__ import annotations

import pytest
from browser_helpers import ARTIFACTS, screenshot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_tab_titles_are_words_and_the_api_docs_keep_the_header(live_server, page, house_bots, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/")
    assert page.title() == "Home · Kozyr"
    for path, ready in (("/api/docs/", ".swagger-ui .info"), ("/api/redoc/", "#redoc-container h1")):
        page.goto(live_server.url + path)
        page.wait_for_selector(ready)
        header = page.locator("header.top")
        assert header.count() == 1 and header.locator("a", has_text="Bots").is_visible(), path
        assert "<" not in page.title() and page.title().endswith("· Kozyr"), page.title()
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), path
        ARTIFACTS.mkdir(exist_ok=True)  # the first screen: the documents are hundreds of screens long
        page.screenshot(path=str(ARTIFACTS / f"page-{path.strip('/').replace('/', '-')}-{width}.png"))
        header.locator("a", has_text="Bots").click()
        page.wait_for_url(f"{live_server.url}/bots/")
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", [1366, 390])
def test_the_challenge_form_offers_only_bots_that_can_play(live_server, page, house_bots, width):
    from accounts.models import User
    from bots.actions import do_create_bot, make_current
    from bots.models import BotVersion
    from tests.e2e.test_live_pages import PASSWORD, log_in

    alice = User.objects.create_user(username="alice", password=PASSWORD)
    ready = do_create_bot(alice, game="bura", name="alice-ready")
    make_current(BotVersion.objects.create(bot=ready, number=1, builtin="greedy", runtime="builtin", status="ready"))
    waiting = do_create_bot(alice, game="bura", name="alice-validating")
    BotVersion.objects.create(bot=waiting, number=1, builtin="greedy", runtime="builtin", status="pending")
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/random-bura/")
    page.click("#challenge summary")
    options = page.locator("#challenge-bot option").all_inner_texts()
    assert options == ["alice-ready"], options
    screenshot(page, f"challenge-ready-only-{width}")
    assert not page.errors, page.errors
