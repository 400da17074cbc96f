"""Live parts of the pages in real Chromium: a version's validation status changes on an open bot page
without a reload, and a bot is challenged from its page and the result shows when the matches are played."""

from __future__ import annotations

import pytest
from browser_helpers import screenshot

PASSWORD = "a-long-password-1"


@pytest.fixture
def alice(house_bots, monkeypatch):
    from accounts.models import User
    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # the test plays them
    return User.objects.create_user(username="alice", password=PASSWORD)


def log_in(page, site: str, user) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def test_a_validation_status_changes_on_the_open_page_without_a_reload(live_server, page, alice):
    from bots.actions import do_create_bot
    from bots.upload import check_upload
    from matches.models import Match
    from matches.validation import do_upload_version
    from tests.platform.conftest import python_bot

    bot = do_create_bot(alice, game="bura", name="live-bot")
    version = do_upload_version(bot, check_upload("main.py", python_bot()))
    match = Match.objects.get(validates=version)
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/live-bot/")
    page.evaluate("() => { window.notReloaded = true; }")
    status = 'document.querySelector("#versions tr[data-version=\\"1\\"] .version-status").textContent'
    assert page.evaluate(f"() => {status}") == "pending"
    Match.objects.filter(pk=match.pk).update(status="running")
    page.wait_for_function(f"() => {status} === 'playing'")
    screenshot(page, "live-validation-playing")
    Match.objects.filter(pk=match.pk).update(status="finished")
    type(version).objects.filter(pk=version.pk).update(status="rejected", reason="it answered out of turn")
    page.wait_for_function(f"() => {status} === 'rejected'")
    page.wait_for_function("() => document.querySelector('#versions').dataset.live === 'done'")  # polls stop
    assert page.inner_text('#versions tr[data-version="1"] .reason') == "it answered out of turn"
    assert page.evaluate("() => window.notReloaded") is True
    screenshot(page, "live-validation-rejected")
    assert not page.errors, page.errors


def test_a_user_challenges_a_bot_from_its_page_and_sees_the_result(live_server, page, alice):
    from bots.actions import do_create_bot
    from bots.models import BotVersion
    from matches.models import Match
    from play.tasks import play_match

    bot = do_create_bot(alice, game="bura", name="challenger")
    bot.current_version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", status="ready")
    bot.save()
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/random-bura/")
    page.click("#challenge summary")
    page.select_option("#challenge-bot", "challenger")
    page.select_option("#challenge-preset", "bura")
    screenshot(page, "challenge-form")
    page.click("#challenge button[name=challenge]")
    page.wait_for_url(lambda url: "/challenges/" in url)
    assert "being played" in page.inner_text("#challenge-status")
    for match in Match.objects.filter(kind="challenge").order_by("rotation"):
        assert play_match(match.pk) == "finished"
    page.wait_for_selector("#challenge-total")  # the page reloads itself once both are played
    total = page.inner_text("#challenge-total")
    assert "won the challenge" in total or "A tie" in total
    assert page.inner_text("#challenge-result").count(" won") + page.inner_text("#challenge-result").count(
        "draw") >= 2
    screenshot(page, "challenge-result")
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", [1366, 390])
def test_the_result_pages_say_who_won_at_both_widths(live_server, page, alice, play, width):
    """Home, a bot page and a match page after a match: who won in words, no page-level sideways scroll."""
    match = play("bura", overrides={"match": "deals:1"})
    winner = min(match.seats.all(), key=lambda s: s.rank).version.bot.name
    page.set_viewport_size({"width": width, "height": 900})
    for name, path in (("home", "/"), ("bot", f"/bots/{winner}/"), ("match", f"/matches/{match.pk}/")):
        page.goto(f"{live_server.url}{path}")
        text = page.inner_text("main")
        assert f"{winner} won" in text or f"{winner} beat" in text or "draw" in text.lower(), name
        assert "ranks [" not in text and ".0 " not in text
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), (name, width)
        screenshot(page, f"results-{name}-{width}")
    assert not page.errors, page.errors
