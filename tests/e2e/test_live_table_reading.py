"""Reading a live table in real Chromium (issue 36, "A person at a live table"): Bura's claim decision shows the
cards the seat took and the points it can count against the target; the log says who took each trick and why
a deal ended; score rows name the sides (you, the bot, partners) and deals count from 1 in every game; the
clock shows move time and bank apart and who is thinking; a card the rules refuse is explained in the rules'
words (Kozel: you must follow); and a whole match, reopened midway, logs no console error (no 409 from the
page answering twice). Screenshots at 1366 and 390 px go to tests/e2e/artifacts/."""

from __future__ import annotations

import re

import pytest
from browser_helpers import screenshot
from test_live_table import log_in, my_seat, play_in_thread, position, sit_down

CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
WIDE, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}


@pytest.fixture
def person(house_bots, monkeypatch):
    from accounts.models import User
    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # the test plays them
    return User.objects.create_user(username="carol", password="a-long-password-1")


def open_table(browser, viewport) -> tuple:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(30_000)
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    # every text the clock showed, to see it said who was thinking between two of the person's moves
    page.add_init_script("""window.addEventListener('DOMContentLoaded', () => {
        window.clockSaid = [];
        const clock = document.getElementById('table-clock');
        if (clock) new MutationObserver(() => window.clockSaid.push(clock.textContent))
            .observe(clock, {childList: true, subtree: true, characterData: true});
    });""")
    return context, page, problems


def my_turn(page, after: str | None = None) -> str | None:
    """Wait until the person has a request to answer (another than ``after``) or the match is over."""
    page.wait_for_function(f"() => {{ const t = document.querySelector('#table').dataset; return t.over || "
                           f"(t.request && t.request !== '{after}' && t.answered !== t.request && "
                           f"document.querySelectorAll('#table-actions button.table-action').length); }}")
    return None if page.get_attribute("#table", "data-over") else page.get_attribute("#table", "data-request")


def press(page, kinds: tuple[str, ...]) -> None:
    """Press the key of the first offered play of one of ``kinds`` (else the first), and wait for it to go."""
    request = page.get_attribute("#table", "data-request")
    offered = page.eval_on_selector_all("#table-actions button.table-action",
                                        "els => els.map(e => JSON.parse(e.dataset.action).type)")
    key = next((n for n, kind in enumerate(offered, 1) if kind in kinds), 1)
    page.keyboard.press(str(key))
    page.wait_for_function(f"() => document.querySelector('#table').dataset.answered === '{request}' || "
                           f"document.querySelector('#table').dataset.over")


def test_bura_says_what_a_claim_needs_who_took_what_and_why_a_deal_ended(live_server, browser, person):
    context, page, problems = open_table(browser, WIDE)
    log_in(page, live_server.url, person)
    match_id = sit_down(page, live_server.url, "greedy-bura")
    worker = play_in_thread(match_id)
    request = my_turn(page)
    seat = my_seat(match_id)
    info = page.inner_text("#table-info")
    assert "penalty points (fewer is better; 12 loses)" in info and "you 0 · greedy-bura 0" in info, info
    # The deal in play: usually 1, but a Bura deal can end as it is dealt, and then the first move is in deal 2.
    deal = position(match_id).observation(seat)["deal"]
    assert re.search(rf"^deal\s*{deal}$", info, re.M), (deal, info)
    assert re.fullmatch(r"Your move\s*move time 0:[0-3]\d\s*your bank 5:00", page.inner_text("#table-clock").strip()), \
        page.inner_text("#table-clock")
    claim_seen = deal_ended = reopened = False
    said: list[str] = []
    for _ in range(150):  # passing at every claim, so the bot's claims (or the deck) end the deals
        if request is None or (claim_seen and reopened and deal_ended):
            break
        if page.get_attribute("#table", "data-decision") == "claim" and not claim_seen:
            # what the seat may count: the cards its tricks hold that it saw, against the target
            observation = position(match_id).observation(seat)
            pile = observation["piles"][seat]
            known = pile["face_up"] + pile["face_down_known"]
            counted = sum(CARD_POINTS.get(c[0], 0) for c in known)
            claim = page.inner_text(".table-claim.now")
            assert f"hold 31 points or more: you can count {counted}" in claim, (claim, known)
            shown = page.eval_on_selector_all(".table-piles [data-card]", "els => els.map(e => e.dataset.card)")
            assert sorted(known) == sorted(shown[:len(known)]), (known, shown)
            assert f"{counted} points you can count" in page.inner_text(".table-piles")
            screenshot(page, "table-bura-claim-1366")
            claim_seen = True
        if claim_seen and not reopened:  # the tab is reopened at a phone's width midway: nothing answered twice
            said = page.evaluate("window.clockSaid")
            context.close()
            context, page, more = open_table(browser, PHONE)
            problems += more
            log_in(page, live_server.url, person)
            page.goto(f"{live_server.url}/play/{match_id}/")
            request = my_turn(page)
            screenshot(page, "table-bura-claim-390")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "scrolls sideways"
            reopened = True
            continue
        press(page, ("pass", "lead", "respond", "play"))
        deal_ended = "Deal 1 ends: " in page.text_content("#table-log")
        request = my_turn(page, request)
    assert claim_seen and reopened and deal_ended
    log = page.eval_on_selector_all("#table-log li", "els => els.map(e => e.textContent)")
    assert any(re.fullmatch(r"(You|greedy-bura) took the trick \(.+\), \d+ points.*\.", line) for line in log), log
    ended = next(line for line in log if line.startswith("Deal 1 ends: "))
    endings = r"claimed with enough points|claimed without enough points|no claim|combination|dealt again"
    assert re.search(endings, ended), ended
    assert "the match stands you " in ended, ended
    said += page.evaluate("window.clockSaid")  # both pages' clocks said who was thinking between moves
    assert any(text.startswith("greedy-bura is thinking…your bank ") for text in said), said
    page.click(".table-log summary")
    screenshot(page, "table-bura-log-390")
    while my_turn(page, page.get_attribute("#table", "data-answered")) is not None:
        press(page, ("claim",))  # false claims end the match soon
    worker.join(timeout=60)
    page.wait_for_selector("#table-end:not([hidden])")
    assert problems == [], problems  # no 409 from answering twice, nothing else either
    context.close()


def test_kozel_names_the_sides_and_says_the_rule_that_refuses_a_card(live_server, browser, person, settings):
    settings.PERSON_MOVE_SECONDS, settings.PERSON_BANK_SECONDS = 20, 0  # at the end the clock ends the match
    context, page, problems = open_table(browser, WIDE)
    log_in(page, live_server.url, person)
    match_id = sit_down(page, live_server.url, "greedy-kozel", "kozel")
    worker = play_in_thread(match_id)
    seat = my_seat(match_id)
    request = my_turn(page)
    info = page.inner_text("#table-info")
    partner, left, right = (seat + 2) % 4, (seat + 1) % 4, (seat + 3) % 4
    assert re.search(r"^deal\s*1$", info, re.M), info  # Kozel's engine counts from 0; the table from 1, as Bura's
    sides = sorted([f"you + your partner greedy-kozel (seat {partner}) 0",
                    f"greedy-kozel (seat {min(left, right)}) + greedy-kozel (seat {max(left, right)}) 0"])
    assert "penalty points (fewer is better; 12 loses)" in info and all(side in info for side in sides), info
    for _ in range(24):
        observation = position(match_id).observation(seat)
        legal = {a["card"] for a in position(match_id).legal_actions(seat)}
        refused = [i for i, card in enumerate(observation["hand"]) if card not in legal]
        if refused and "took the trick" in page.text_content("#table-log"):
            page.locator("#table-hand button.card").nth(refused[0]).click()
            page.wait_for_function("() => document.querySelector('#table-why').textContent.includes('Not allowed')")
            why = page.inner_text("#table-why")
            assert re.search(r"you must follow|must follow", why), why
            assert not page.locator("#table-actions button.table-action").count()  # nothing to press for it
            screenshot(page, "table-kozel-refused-1366")
            page.set_viewport_size(PHONE)
            screenshot(page, "table-kozel-refused-390")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "scrolls sideways"
            break
        page.locator("#table-hand button.card").nth(
            next(i for i, card in enumerate(observation["hand"]) if card in legal)).click()  # one way: played
        request = my_turn(page, request)
        assert request is not None
    else:
        raise AssertionError("no card was refused after a trick in 24 turns")
    worker.join(timeout=90)  # the person stops answering: the clock ends the match
    page.wait_for_selector("#table-end:not([hidden])")
    log = page.eval_on_selector_all("#table-log li", "els => els.map(e => e.textContent)")
    assert log[1].startswith("Deal 1, dealt by "), log[:3]
    assert any(re.fullmatch(r"(You|Your partner greedy-kozel \(seat \d\)|greedy-kozel \(seat \d\)) took the trick "
                            r"\(.+\), \d+ points\.", line) for line in log), log
    assert problems == [], problems
    context.close()
