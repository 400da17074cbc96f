"""A forfeit reads right in real Chromium (issue 36): on the bot page of a bot that crashed, its owner reads
"forfeit: your bot crashed …" in a result coloured as their loss (never green because the other side won),
and anyone else reads the bot's name in the text's own colour. Screenshots at 1366 and 390 px."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import screenshot
from test_live_table import PASSWORD, log_in

CRASH = Path(__file__).resolve().parents[1] / "data" / "bots" / "crash.py"


@pytest.fixture
def crashed(house_bots):
    """alice's bot, which crashes at its first request, forfeited a finished ladder match."""
    from accounts.models import User
    from bots import blobs
    from bots.actions import do_create_bot, house_version
    from bots.models import Bot, BotVersion
    from matches import actions
    from play.tasks import play_match

    alice = User.objects.create_user(username="alice", password=PASSWORD)
    bot = do_create_bot(alice, game="bura", name="alice-bura")
    version = BotVersion.objects.create(bot=bot, number=1, sha256=blobs.put("bots", CRASH.read_bytes()),
                                        filename="crash.py", entry=["python3", "crash.py"], runtime="python3",
                                        status="ready")
    Bot.objects.filter(pk=bot.pk).update(current_version=version)
    match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                 seat_versions=[version, house_version("bura", "random")])
    assert play_match(match.pk) == "finished"
    return alice, match


CELL = "tr:has(a[href='/matches/{}/']) td.status-finished"
COLOUR = "el => getComputedStyle(el).color"


@pytest.mark.parametrize("width", [1366, 390])
def test_a_forfeit_says_so_and_is_coloured_by_the_readers_own_result(live_server, page, crashed, width):
    alice, match = crashed
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/bots/alice-bura/")
    cell = page.locator(CELL.format(match.pk))
    assert "forfeit: alice-bura crashed before its first move" in cell.inner_text()
    ink = page.evaluate("getComputedStyle(document.body).color")
    assert cell.evaluate(COLOUR) == ink  # nobody's result of the reader's: no colour of a side
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/alice-bura/")
    cell = page.locator(CELL.format(match.pk))
    text = cell.inner_text()
    assert "forfeit: your bot crashed before its first move (exited: the bot exited with code 3" in text, text
    assert "fewer penalty points" not in text and "0 – 0" not in text
    accent = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
    red = page.evaluate("c => { const s = document.createElement('span'); s.style.color = c; document.body.append(s);"
                        " const got = getComputedStyle(s).color; s.remove(); return got; }", accent)
    assert cell.evaluate(COLOUR) == red  # the owner's loss, in the site's colour for bad news
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), "scrolls sideways"
    screenshot(page, f"forfeit-bot-page-{width}")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    assert "Forfeit: your bot crashed before its first move" in page.inner_text("#outcome")
    screenshot(page, f"forfeit-match-page-{width}")
    assert not page.errors, page.errors
