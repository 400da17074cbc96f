"""The bot page's rating history in real Chromium, at 1,366 px and 390 px: one chart, a line and a band per
preset, a legend naming the presets, time ticks labelled by the span, and "no rated games yet" when there is
nothing to draw. The chart fits the phone (it scales with its box) and keeps its labels readable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from browser_helpers import ARTIFACTS

WIDTHS = (1366, 390)
PRESETS = ("bura", "bura-3p", "burkozel", "burkozel-pairs", "echki-6")
FIRST = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


@pytest.fixture
def rated(house_bots):
    """greedy-bura with a rating history on every preset it plays: ten refits each over three days."""
    from bots.models import Bot
    from ratings.models import RatingSnapshot, Refit

    bot = Bot.objects.get(name="greedy-bura")
    assert tuple(bot.plays()) == PRESETS
    for k, preset in enumerate(PRESETS):
        for i in range(10):
            refit = Refit.objects.create(preset=preset, matches=10 * (i + 1), rated=4, seconds=0.1)
            rating, half = 1500 + 40 * k + 12 * i - 3 * i * k, 160 - 12 * i
            RatingSnapshot.objects.create(refit=refit, version=bot.current_version, bot=bot, preset=preset,
                                          at=FIRST + timedelta(hours=7 * i + k), rating=rating, low=rating - half,
                                          high=rating + half, games=10.0 * (i + 1))
    return bot


def shoot(page, selector: str, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(selector).screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_rating_history_is_one_chart_with_a_line_per_preset(live_server, page, rated, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/bots/greedy-bura/")
    chart = page.locator("svg#rating-history")
    assert chart.count() == 1 and page.locator("main svg.chart").count() == 1
    assert page.locator("#rating-history .series").evaluate_all("gs => gs.map(g => g.dataset.preset)") == \
        list(PRESETS)
    assert page.locator("#rating-history .series polygon.band").count() == len(PRESETS)
    legend = page.locator("#rating-history text.legend").all_text_contents()
    assert [t.split(" ")[0] for t in legend] == list(PRESETS)
    assert legend[0] == "bura 1608 ± 52"  # the newest refit's rating and half-width, as integers
    ticks = [" ".join(t.split()) for t in page.locator("#rating-history text.time-tick").evaluate_all(
        "ts => ts.map(t => [...t.querySelectorAll('tspan')].map(s => s.textContent).join(' '))")]
    assert ticks == ["29 Nov 2026", "30 Nov", "1 Dec"]  # three days: a tick a day, the year said once
    assert page.locator("#rating-history-title").text_content() == "Rating history of greedy-bura"
    assert "95% interval" in page.locator("#rating-history-desc").text_content()
    box = chart.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('#rating-history text')]
        .map(t => t.getBoundingClientRect().height))""")
    assert smallest >= 8, f"the chart's text is {smallest} px high at {width} px"
    shoot(page, "#rating-history", f"rating-history-{width}")
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", WIDTHS)
def test_a_bot_without_rated_games_says_so_instead_of_a_chart(live_server, page, house_bots, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/bots/random-kozel/")
    assert page.locator("svg#rating-history").count() == 0
    assert page.locator("#rating-history-empty").inner_text().startswith("No rated games yet")
    heading = page.locator("h2", has_text="Rating history")
    assert heading.count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"rating-history-empty-{width}.png"), full_page=True)
    assert not page.errors, page.errors
