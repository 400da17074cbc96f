"""Accounts in real Chromium at a desktop and a phone width: a forgotten password reset from the log-in page
through the mailed link; a user's public page, reached from "by <author>"; deleting a bot from its page, with the
confirmation saying what happens first."""

from __future__ import annotations

import re

import pytest
from browser_helpers import screenshot

from tests.e2e.test_live_pages import PASSWORD, alice, log_in  # noqa: F401  (alice: a fixture)

pytestmark = pytest.mark.django_db(transaction=True)
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize("width", [1366, 390])
def test_a_forgotten_password_is_reset_by_the_mailed_link(live_server, page, alice, mailoutbox, width):  # noqa: F811
    alice.email = "alice@example.org"
    alice.save()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/login/")
    page.click("#forgot-password")
    page.fill("#id_email", "alice@example.org")
    assert page.evaluate(FITS)
    screenshot(page, f"password-reset-form-{width}")
    page.click("main form button[type=submit]")
    page.wait_for_selector("#reset-sent")
    screenshot(page, f"password-reset-sent-{width}")
    link = re.search(r"https?://\S+/password/reset/\S+/\S+/", mailoutbox[-1].body).group(0)
    page.goto(link)
    page.fill("#id_new_password1", "a-new-long-password-7")
    page.fill("#id_new_password2", "a-new-long-password-7")
    assert page.evaluate(FITS)
    screenshot(page, f"password-reset-new-{width}")
    page.click("main form button[type=submit]")
    page.wait_for_selector("#reset-complete")
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "a-new-long-password-7")
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    assert "alice" in page.inner_text("header")
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", [1366, 390])
def test_the_author_link_opens_a_public_page_and_a_bot_is_deleted_after_a_confirmation(
        live_server, page, alice, play, width):  # noqa: F811
    from bots.actions import do_create_bot, make_current
    from bots.models import Bot, BotVersion

    play("bura")
    bot = do_create_bot(alice, game="bura", name="short-lived")
    make_current(BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready"))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/bots/short-lived/")
    page.click("a.author")
    page.wait_for_url(f"{live_server.url}/users/alice/")
    assert "short-lived" in page.inner_text("#user-bots") and "alice@" not in page.content()
    assert page.evaluate(FITS)
    screenshot(page, f"user-page-{width}")
    page.goto(f"{live_server.url}/bots/greedy-bura/")
    page.click("a.author")
    page.wait_for_url(f"{live_server.url}/users/kozyr/")
    assert "greedy-bura" in page.inner_text("#user-bots")
    screenshot(page, f"user-page-house-{width}")
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/short-lived/")
    page.click("a.delete-link")
    assert "Its name stays taken" in page.inner_text("#delete-what")
    page.fill("#id_confirm", "short-lived")
    assert page.evaluate(FITS)
    screenshot(page, f"bot-delete-confirm-{width}")
    page.click("#delete-what button[type=submit]")
    page.wait_for_url(f"{live_server.url}/users/alice/")
    assert "short-lived is deleted" in page.inner_text("main")
    assert Bot.objects.get(pk=bot.pk).deleted is not None
    page.goto(f"{live_server.url}/bots/short-lived/")
    assert "deleted by its owner" in page.inner_text("#bot-deleted")
    screenshot(page, f"bot-deleted-{width}")
    assert not page.errors, page.errors
