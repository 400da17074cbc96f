"""The main pages in real Chromium: they load their own assets (nothing from another site), raise no
console error, and are saved as screenshots under tests/e2e/artifacts/ for a person to look at."""

from __future__ import annotations

from urllib.parse import urlparse

from browser_helpers import screenshot


def test_the_main_pages_load_without_console_errors_or_outside_requests(live_server, page, play):
    match = play("bura")
    play("burraco-2p")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    pages = {
        "home": "/",
        "preset": "/games/bura/",
        "bots": "/bots/",
        "bot": "/bots/greedy-bura/",
        "match": f"/matches/{match.pk}/",
        "docs": "/docs/",
        "docs-protocol": "/docs/protocol/",
        "docs-rules-bura": "/docs/rules-bura/",
        "not-found": "/matches/999999/",
    }
    for name, path in pages.items():
        before = len(page.errors)
        response = page.goto(live_server.url + path)
        assert response.status == (404 if name == "not-found" else 200), path
        page.wait_for_load_state("networkidle")
        screenshot(page, f"page-{name}")
        if name == "not-found":  # Chromium logs the page's own 404 status as a console error
            assert all("404" in e for e in page.errors[before:]), page.errors[before:]
            del page.errors[before:]
        assert not page.errors, f"{path}: {page.errors}"
    outside = {urlparse(url).netloc for url in requested} - {urlparse(live_server.url).netloc, ""}
    assert not outside, f"the site must work offline, but pages asked {outside}"


def test_the_match_page_draws_the_score_progression(live_server, page, play):
    match = play("kozel")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    chart = page.locator("svg.chart")
    assert chart.count() == 1
    labels = chart.text_content()
    # each team named by its bot (one bot plays both seats of a team), not by seat numbers
    legend = chart.locator("text.legend").all_text_contents()
    assert [t.split(": ")[0] for t in legend] == ["greedy-kozel@v1", "random-kozel@v1"], legend
    assert "lower is better" in labels and "(0)" not in labels
    assert not page.errors
