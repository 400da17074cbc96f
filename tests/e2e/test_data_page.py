"""The /data/ page in real Chromium at a desktop and a phone width: a dump listed with its files, no sideways
scrolling of the page, no console error; screenshots under tests/e2e/artifacts/data/ for a person to look at."""

from __future__ import annotations

from datetime import UTC, datetime

from browser_helpers import ARTIFACTS

MEASURE = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def test_the_data_page_lists_a_dump_at_both_widths(live_server, browser, play):
    from matches.models import Match
    from opendata import build, tasks

    for _ in range(2):
        play("bura")
    Match.objects.update(finished=datetime(2026, 11, 20, tzinfo=UTC))
    dump = tasks.due(datetime(2026, 12, 6, tzinfo=UTC))[0]
    assert build.build(dump.pk) == "ready"
    (ARTIFACTS / "data").mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(f"{live_server.url}/data/")
        assert page.locator("table.data-dumps tbody tr").count() == 1
        assert page.get_by_role("link", name="kozyr-bura-2026-11.jsonl.gz").count() == 1
        assert "4 matches" in page.inner_text("main") or "4 matches" in page.content()
        scroll, window = page.evaluate(MEASURE)
        assert scroll <= window, f"/data/ scrolls sideways at {width} px ({scroll} > {window})"
        assert not errors, errors
        page.screenshot(path=str(ARTIFACTS / "data" / f"data-{width}.png"), full_page=True)
        context.close()
