"""The owner of a Python bot that raised at its first request sees the traceback in the replay viewer at the step
where the match stopped (issue 36, "Python failures hide the real error"), and its rejection reason names the
exception and its line on the bot's page; another user sees no stderr. Real Chromium at 1,366 and 390 px;
screenshots under tests/e2e/artifacts/crash-stderr/."""

from __future__ import annotations

from pathlib import Path

from browser_helpers import ARTIFACTS

BOT = Path(__file__).resolve().parents[1] / "data" / "bots" / "raises_at_first_request.py"
PASSWORD = "a-long-password-1"


def log_in(page, site: str, username: str) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def test_the_owner_sees_the_traceback_where_the_bot_died_at_both_widths(live_server, browser, house_bots):
    from accounts.models import User
    from bots.actions import do_create_bot
    from bots.models import BotVersion
    from bots.upload import check_upload
    from matches.validation import do_upload_version
    from play.tasks import play_match

    owner = User.objects.create_user(username="raiser-owner", password=PASSWORD)
    User.objects.create_user(username="someone-else", password=PASSWORD)
    bot = do_create_bot(owner, game="bura", name="raiser")
    version = do_upload_version(bot, check_upload("main.py", BOT.read_bytes()))
    assert play_match(version.validation_match_id) == "finished"
    version = BotVersion.objects.get(pk=version.pk)
    assert version.status == "rejected" and "ValueError: no action I like" in version.reason
    folder = ARTIFACTS / "crash-stderr"
    folder.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        log_in(page, live_server.url, "raiser-owner")
        page.goto(f"{live_server.url}/matches/{version.validation_match_id}/")
        stderr = page.locator("#rv-stderr")
        stderr.wait_for(state="visible")
        # it opened where the match stopped: the last step
        assert page.get_attribute("#replay-viewer", "data-step") == page.get_attribute("#rv-range", "max")
        text = page.locator("#rv-stderr-lines").inner_text()
        assert "never answered): ValueError: no action I like among" in text, text
        assert "Traceback (most recent call last)" in text
        page.screenshot(path=str(folder / f"viewer-{width}.png"), full_page=True)
        page.goto(f"{live_server.url}/bots/raiser/")
        assert "ValueError: no action I like among" in page.inner_text("main")
        page.screenshot(path=str(folder / f"bot-page-{width}.png"), full_page=True)
        assert not errors, errors
        context.close()
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    log_in(page, live_server.url, "someone-else")
    page.goto(f"{live_server.url}/matches/{version.validation_match_id}/")
    assert page.locator("#rv-stderr").count() == 0 or not page.locator("#rv-stderr").is_visible()
    assert "no action I like" not in page.content()
    context.close()
