"""Analysis in real Chromium: alice's bot lost a Bura match; she asks for her seat's analysis on the match page,
the page follows the job to its end, and the replay shows the marks under its slider and, at a marked step,
what her bot played, what the search suggests and the expected loss — at desktop and phone widths."""

from __future__ import annotations

import pytest
from browser_helpers import ARTIFACTS, screenshot

PASSWORD = "a-long-password-1"
BUDGET = 8  # playouts per candidate: enough for the random bot's worst moves to stand out


@pytest.fixture
def lost(house_bots, monkeypatch, settings):
    """alice and a finished match (both rotations of its deal played) her bot, the random bot's code, lost."""
    from accounts.models import User
    from bots.actions import do_create_bot, house_version
    from bots.models import BotVersion
    from matches import actions
    from play.tasks import play_match

    settings.ANALYSIS_BUDGET = BUDGET
    settings.ANALYSIS_PAR_ITERATIONS = 5
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)
    user = User.objects.create_user(username="alice", password=PASSWORD)
    bot = do_create_bot(user, game="bura", name="alice-bura")
    bot.current_version = BotVersion.objects.create(bot=bot, number=1, builtin="random", status="ready")
    bot.save(update_fields=["current_version"])
    for _ in range(12):  # random against greedy: a loss comes within a few deals
        made = actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                            versions=[bot.current_version, house_version("bura", "greedy")])
        for match in made:
            assert play_match(match.pk) == "finished"
        first = made[0]
        first.refresh_from_db()
        if first.seats.get(seat=0).rank == 2:
            return user, first
    raise AssertionError("alice's random bot never lost to greedy in 12 deals")


def log_in(page, site: str, user) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def test_a_user_sees_marks_and_suggested_moves_in_the_replay_of_a_match_their_bot_lost(live_server, page, lost):
    from analysis import jobs
    from analysis.models import Analysis

    user, match = lost
    log_in(page, live_server.url, user)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_selector("#replay-viewer.ready")
    page.click("#analysis-table tr[data-seat='0'] .analyse-button")
    page.wait_for_selector("#analysis-table tr[data-seat='0'][data-status='queued']")
    assert "The analysis of seat 0 is queued" in page.inner_text("main")
    row = Analysis.objects.get(match=match, seat=0)
    assert jobs.run(row.pk) == "done"  # the worker's part, here; the page notices and shows it
    page.wait_for_selector("#analysis-table tr[data-seat='0'][data-status='done']", timeout=20_000)
    page.wait_for_selector("#replay-viewer.ready")
    row.refresh_from_db()
    marked = [d for d in row.result["decisions"] if d["mark"]]
    assert marked, "the random bot made no marked decision"
    dots = page.locator("#rv-amarks .rv-amark")
    assert dots.count() == len(marked)
    summary = page.inner_text("#rv-analysis-summary")
    assert "seat 0 · alice-bura" in summary and f"over {row.decisions} decisions" in summary
    cost = page.inner_text("#analysis-table tr[data-seat='0'] .analysis-cost")
    assert f"over {row.decisions} decisions weighed" in cost
    assert "par" in page.inner_text("#analysis-table tr[data-seat='0'] .analysis-par")

    # the costliest marked play of cards whose suggestion differs (a claim has no cards to show), else any
    with_cards = [d for d in marked if d["played"].get("cards") and d["played"] != d["suggested"]]
    worst = max(with_cards or marked, key=lambda d: d["loss"])
    for width, name in ((1366, "desktop"), (390, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(f"#rv-amarks .rv-amark[data-step='{worst['index'] + 1}']").first.click()
        page.wait_for_function("step => document.getElementById('replay-viewer').dataset.step === String(step)",
                               arg=worst["index"] + 1)
        shown = page.locator("#rv-analysis .rv-decision[data-seat='0']")
        assert shown.get_attribute("data-mark") == worst["mark"]
        text = shown.inner_text()
        assert "seat 0 · alice-bura" in text and "played" in text
        assert f"expected loss {round(worst['loss'], 2):g}" in text
        if worst["played"] != worst["suggested"]:
            assert "suggested" in text
            suggested = shown.locator(".rv-suggested .pc").evaluate_all("cards => cards.map(c => c.dataset.card)")
            assert suggested == [str(c) for c in worst["suggested"].get("cards", [])]
        played = shown.locator(".rv-played .pc").evaluate_all("cards => cards.map(c => c.dataset.card)")
        assert played == [str(c) for c in worst["played"].get("cards", [])]
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways at {width} px"
        shown.scroll_into_view_if_needed()
        screenshot(page, f"analysis-replay-{name}")
        for part in ("analysis", "replay-viewer"):  # the two parts at full size, to look at closely
            page.locator(f"#{part}").screenshot(path=str(ARTIFACTS / f"analysis-{part}-{name}.png"))
    assert not page.errors, page.errors
