"""Resign at a live table, in real Chromium at desktop and phone widths (issue "The site as its users expect it,
round two"): the person gives up a long match with one confirmed click, the table shows the end at once, and the
result says it was a forfeit of theirs."""

from __future__ import annotations

import pytest
from browser_helpers import screenshot

from tests.e2e.test_live_table import log_in, person, play_in_thread, sit_down  # noqa: F401  (person: a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_person_resigns_a_burraco_match_from_the_table(live_server, browser, person, width):  # noqa: F811
    from matches.models import Match

    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server.url, person)
    match_id = sit_down(page, live_server.url, "greedy-burraco", "burraco-2p")  # a match to 2,000 points
    worker = play_in_thread(match_id)
    page.wait_for_selector("#table-hand button.card")  # dealt, and the person is thinking
    screenshot(page, f"table-resign-before-{width}")
    page.once("dialog", lambda dialog: dialog.accept())  # "Resign this match? It counts as a loss…"
    page.click("#table-resign")
    page.wait_for_function("() => document.querySelector('#table').dataset.over")
    worker.join(60)
    seat = Match.objects.get(pk=match_id).seats.get(version__bot__owner=person)
    assert seat.verdict == "resigned" and seat.rank == 2
    assert page.is_hidden("#table-resign")  # nothing left to give up
    screenshot(page, f"table-resign-after-{width}")
    page.click("#table-replay")
    page.wait_for_selector("#outcome")
    assert "forfeit: you resigned" in page.inner_text("#outcome").lower()
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert not errors, errors
    context.close()
