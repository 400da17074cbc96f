"""A bot's page follows its validation without a reload, in real Chromium at both widths: the header's state, the
version's stage and its "current" tag change together, and nothing on the page still says an earlier stage."""

from __future__ import annotations

import pytest
from browser_helpers import screenshot

from tests.e2e.test_live_pages import alice, log_in  # noqa: F401  (alice: a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_bot_page_says_one_status_as_the_validation_goes(live_server, page, alice, width):  # noqa: F811
    from bots.actions import do_create_bot
    from bots.models import Bot, BotVersion
    from bots.upload import check_upload
    from matches.models import Match
    from matches.validation import do_upload_version
    from tests.platform.conftest import python_bot

    bot = do_create_bot(alice, game="bura", name="one-voice")
    version = do_upload_version(bot, check_upload("main.py", python_bot()))
    match = Match.objects.get(validates=version)
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, live_server.url, alice)
    page.goto(f"{live_server.url}/bots/one-voice/")
    page.evaluate("() => { window.notReloaded = true; }")
    state = "document.getElementById('bot-state').textContent"
    stage = "document.querySelector('#versions tr[data-version=\"1\"] .version-status').textContent"
    assert page.evaluate(f"() => {state}").startswith("validating its first version · v1 is pending")
    Match.objects.filter(pk=match.pk).update(status="running")
    BotVersion.objects.filter(pk=version.pk).update(language="cpp")
    page.wait_for_function(f"() => {stage} === 'building' && {state}.includes('v1 is compiling')")
    assert "queued" not in page.inner_text("#bot-matches")  # shown in the same moment as the state
    screenshot(page, f"bot-status-building-{width}")
    BotVersion.objects.filter(pk=version.pk).update(build_sha256="c" * 64)
    page.wait_for_function(f"() => {stage} === 'playing' && {state}.includes('playing its validation match')")
    Match.objects.filter(pk=match.pk).update(status="finished")
    BotVersion.objects.filter(pk=version.pk).update(status="ready")
    Bot.objects.filter(pk=bot.pk).update(current_version=version)
    page.wait_for_function(f"() => {stage} === 'ready' && {state} === 'on the ladder with v1'")
    page.wait_for_function("() => document.querySelector('#versions').dataset.live === 'done'")  # polls stop
    main = page.inner_text("main")
    assert "waiting for a valid version" not in main and "pending" not in main and "queued" not in main, main
    assert page.locator('#versions tr[data-version="1"] .tag.current').count() == 1
    assert page.evaluate("() => window.notReloaded") is True
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"bot-status-ready-{width}")
    assert not page.errors, page.errors
