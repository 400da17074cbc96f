"""Live tables in real Chromium: a person sits down from a bot's page and plays a whole `bura` match against
a house bot by clicking (and another by keyboard), sees only their own cards in the page and in the traffic,
closes the tab mid-match and resumes, and opens the replay afterwards; a second browser follows a ladder
match live and sees the moves arrive. The matches are played by the worker's task in a thread of the test
process, through the real Redis relay."""

from __future__ import annotations

import re
import threading
import time

import orjson
import pytest
from browser_helpers import screenshot

PASSWORD = "a-long-password-1"


@pytest.fixture
def person(house_bots, monkeypatch):
    from accounts.models import User
    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # the test plays them
    return User.objects.create_user(username="carol", password=PASSWORD)


def log_in(page, site: str, user) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def play_in_thread(match_id: int) -> threading.Thread:
    from django.db import connection

    from play.tasks import play_match

    def run():
        try:
            play_match(match_id)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def record_lines(page, seen: list[dict]) -> None:
    """Every protocol message the page received from the site."""
    def on_response(response):
        if "/lines/" in response.url and response.ok:
            for entry in response.json()["lines"]:
                seen.append(entry["m"])
    page.on("response", on_response)


def move(page, by_keyboard: bool, claim: bool = True) -> None:
    """Make one legal move as a person would: a key, or a card then (if the card alone is not a move) a button.
    ``claim=False``: pass where the first choice is a claim (an early claim is false: it costs the deal, and
    three end a Bura match)."""
    if by_keyboard:
        labels = page.eval_on_selector_all("#table-actions button.table-action:not([disabled])",
                                           "els => els.map(e => JSON.parse(e.dataset.action).type)")
        key = next((n for n, kind in enumerate(labels, 1) if claim or kind != "claim"), 1)
        page.keyboard.press(str(key))
        return
    cards = page.locator("#table-hand button.card:not([disabled])")
    buttons = page.locator("#table-actions button.table-action")
    if buttons.count() and page.evaluate("() => !!document.querySelector('#table-actions button') && "
                                         "!JSON.parse(document.querySelector('#table-actions button')"
                                         ".dataset.action).cards && !JSON.parse(document.querySelector("
                                         "'#table-actions button').dataset.action).card"):
        buttons.first.click()  # a claim or a pass: a button, no card
        return
    request = page.get_attribute("#table", "data-request")
    cards.first.click()
    # the card alone was a move (sent), or it was chosen and the plays that take it are offered
    page.wait_for_function(f"() => document.querySelector('#table').dataset.answered === '{request}' || "
                           f"document.querySelector('#table-error').textContent || document.querySelectorAll("
                           f"'#table-actions button.table-action:not([disabled])').length > 0")
    if page.get_attribute("#table", "data-answered") != request:
        page.locator("#table-actions button.table-action:not([disabled])").first.click()


def play_to_the_end(page, by_keyboard: bool, stop_after: int | None = None, timeout: float = 180,
                    claim: bool = True) -> int:
    moves = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.get_attribute("#table", "data-over"):
            return moves
        request = page.get_attribute("#table", "data-request")
        if request and page.get_attribute("#table", "data-answered") != request and \
                page.locator("#table-actions button.table-action").count():
            if stop_after is not None and moves >= stop_after:
                return moves
            move(page, by_keyboard, claim)
            page.wait_for_function(f"() => document.querySelector('#table').dataset.answered === '{request}' || "
                                   f"document.querySelector('#table').dataset.over")
            moves += 1
        else:
            page.wait_for_timeout(100)
    raise AssertionError("the match did not end in time")


def sit_down(page, site: str, bot: str = "greedy-bura", preset: str | None = None) -> int:
    page.goto(f"{site}/bots/{bot}/")
    page.click("#sit-down summary")
    if preset is not None:
        page.select_option("#sit-preset", preset)
    screenshot(page, "table-sit-down")
    page.click("#sit-down-button")
    page.wait_for_url(lambda url: "/play/" in url)
    return int(page.url.rstrip("/").split("/")[-1])


def my_seat(match_id: int) -> int:
    from matches.models import Match

    match = Match.objects.get(pk=match_id)
    return next(s.seat for s in match.seats.select_related("version__bot") if s.version.bot.is_person)


def hands_of_others(match_id: int, mine: int) -> set[str]:
    """Every card another seat held at any point of the finished match (from its replay)."""
    from matches.models import Match
    from web.replay_views import load_stored

    replay = load_stored(Match.objects.get(pk=match_id).replay_sha256)
    seen = set()
    for event in replay["events"]:
        if event.get("type") == "deal":
            for seat, hand in enumerate(event.get("hands") or []):
                if seat != mine:
                    seen.update(hand)
    return seen


def test_a_person_plays_a_whole_bura_match_by_clicking_resumes_and_sees_the_replay(live_server, browser, person):
    from matches.models import Match

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    seen: list[dict] = []
    record_lines(page, seen)
    log_in(page, live_server.url, person)
    match_id = sit_down(page, live_server.url)
    worker = play_in_thread(match_id)
    page.wait_for_selector("#table-hand button.card")
    screenshot(page, "table-your-move")
    # the other seat's hand is nowhere in the page (its cards drawn as backs), whatever the page holds
    state, mine = position(match_id), my_seat(match_id)
    hidden = set(state.observation(1 - mine)["hand"]) - {state.observation(mine).get("trump_card")}
    shown = set(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
    assert hidden and not hidden & shown, (hidden, shown)
    assert not any(card in page.inner_text("body").split() for card in hidden)
    play_to_the_end(page, by_keyboard=False, stop_after=3)
    # the tab is closed mid-match; the person comes back to the same page and the match goes on from there
    page.close()  # and opened again at once, before the site may have noticed
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    record_lines(page, seen)
    page.goto(f"{live_server.url}/play/{match_id}/")
    page.wait_for_function("() => document.querySelector('#table').dataset.request || "
                           "document.querySelector('#table').dataset.over")
    moves = play_to_the_end(page, by_keyboard=False)
    worker.join(timeout=60)
    page.wait_for_selector("#table-end:not([hidden])")
    screenshot(page, "table-over")
    result = page.inner_text("#table-result")
    assert result.startswith(("You won", "You lost", "A draw")), result
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and match.result["ended_by"] == "rules", match.result
    assert moves > 0
    mine = my_seat(match_id)
    # the traffic held this seat's observations only, and the page never drew another seat's card
    requests = [m for m in seen if m["type"] == "request"]
    assert requests and all(m["observation"]["seat"] == mine for m in requests)
    assert all("hands" not in (m.get("event") or {}) or all(
        c == "??" for s, hand in enumerate(m["event"]["hands"]) if s != mine for c in hand)
        for m in seen if m["type"] == "event")
    page.click("#table-replay")
    page.wait_for_selector("#replay-viewer.ready")
    screenshot(page, "table-replay")
    page.click("#rematch")
    page.wait_for_url(lambda url: "/play/" in url and not url.rstrip("/").endswith(str(match_id)))
    assert not errors, errors
    context.close()
    assert hands_of_others(match_id, mine)  # the replay, public now, has the other hands


def test_a_person_plays_by_keyboard_and_a_second_browser_watches_live(live_server, browser, person, settings):
    from matches.models import Match

    settings.LIVE_DELAY_SECONDS = 1
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in(page, live_server.url, person)
    # greedy-bura claims only when sure, and the person passes where a claim would be false, so the match is
    # still being played when the watcher looks for the moves (a random bot's or the person's false claims
    # ended about one match in twenty within four moves, and the watcher's page became the replay)
    match_id = sit_down(page, live_server.url, "greedy-bura")
    worker = play_in_thread(match_id)
    page.wait_for_selector("#table-hand button.card")
    watcher_context = browser.new_context(viewport={"width": 1280, "height": 900})
    watcher = watcher_context.new_page()
    watcher.set_default_timeout(30_000)
    watcher.goto(f"{live_server.url}/matches/{match_id}/")
    watcher.wait_for_selector("#replay-viewer[data-live-steps]")
    options = watcher.eval_on_selector_all("#rv-seat option", "els => els.map(e => e.value)")
    assert options == ["public"]  # a spectator sees the table with every hand face down; the person's seat is theirs
    first = int(watcher.get_attribute("#replay-viewer", "data-live-steps"))
    play_to_the_end(page, by_keyboard=True, stop_after=4, claim=False)
    assert Match.objects.get(pk=match_id).status == "running"
    watcher.wait_for_function(f"() => Number(document.querySelector('#replay-viewer').dataset.liveSteps) > {first}")
    screenshot(watcher, "table-watched-live")
    play_to_the_end(page, by_keyboard=True)  # claiming at once: three false claims end it soon
    worker.join(timeout=60)
    assert Match.objects.get(pk=match_id).status == "finished"
    watcher.wait_for_selector("#replay-viewer.ready:not([data-live-url])", timeout=20_000)  # now the replay
    context.close()
    watcher_context.close()


def test_a_ladder_match_is_watched_live_and_its_moves_arrive(live_server, page, house_bots, monkeypatch, settings):
    from bots.actions import house_version
    from matches import actions, relay

    settings.LIVE_DELAY_SECONDS = 0
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)
    publish = relay.publish_action

    seen = threading.Event()

    def slowly(match_id, seat, action):  # bots play in microseconds: a pace a person can watch, until the page
        if not seen.is_set():            # has seen a move arrive (however slowly a busy machine draws it)
            time.sleep(0.4)
        publish(match_id, seat, action)

    monkeypatch.setattr(relay, "publish_action", slowly)
    # Two greedy bots claim only when sure, so the match lasts well over 60 actions (over 100 for every seed
    # tried): a random bot's false claim could end it before the page saw a move arrive.
    match = actions.create_match(kind="ladder", preset="bura", ranked=True,
                                 seat_versions=[house_version("bura", "greedy")] * 2)
    page.goto(f"{live_server.url}/")
    worker = play_in_thread(match.pk)
    page.wait_for_selector(f"#playing-now a[href='/matches/{match.pk}/']", timeout=20_000)  # no reload
    page.click(f"#playing-now a[href='/matches/{match.pk}/']")
    page.wait_for_selector("#replay-viewer[data-live-steps]")
    options = page.eval_on_selector_all("#rv-seat option", "els => els.map(e => e.value)")
    assert options == ["public"]  # every hand is hidden while the match runs: a seat may read the page
    first = int(page.get_attribute("#replay-viewer", "data-live-steps"))
    # Moves arrive without a reload.
    page.wait_for_function(f"() => Number(document.querySelector('#replay-viewer').dataset.liveSteps) > {first}")
    seen.set()
    screenshot(page, "ladder-watched-live")
    worker.join(timeout=120)
    page.wait_for_selector("#replay-viewer.ready:not([data-live-url])", timeout=20_000)
    assert not page.errors, page.errors
    assert orjson.dumps(first)


def position(match_id: int):
    """The match as the referee has it now: re-run from its seed through the relayed actions."""
    from arena.games import new_match, resolve
    from matches import relay
    from matches.models import Match

    match = Match.objects.get(pk=match_id)
    _, rules = resolve(match.preset, match.overrides)
    state = new_match(rules, match.seed)
    for entry in relay.actions(relay.attempt_name(match)):
        state.apply(entry["seat"], entry["action"])
    return state


def accepted(state, seat: int, action: dict):
    """The position after ``action``, or None when the rules refuse it (the state itself is left alone)."""
    import pickle

    from arena.games.base import IllegalAction

    trial = pickle.loads(pickle.dumps(state))
    try:
        trial.apply(seat, action)
    except IllegalAction:
        return None
    return trial


def meld_add_discard(state, seat: int):
    """A meld of three cards of the hand, one more card added to it, and a discard after: (meld indices, add
    index, discard index in the hand after both), or None when this hand has no such turn."""
    from itertools import combinations

    hand = state.observation(seat)["hand"]
    for trio in combinations(range(len(hand)), 3):
        after_meld = accepted(state, seat, {"type": "meld", "cards": [hand[i] for i in trio]})
        if after_meld is None:
            continue
        view = after_meld.observation(seat)
        meld = next(m for m in view["melds"] if m["team"] == view["team"] and
                    sorted(hand[i] for i in trio) == sorted(m["cards"]))
        rest = view["hand"]
        for k, card in enumerate(rest):
            after_add = accepted(after_meld, seat, {"type": "add", "meld": meld["id"], "cards": [card]})
            if after_add is None or len(after_add.observation(seat)["hand"]) < 2:
                continue
            left = after_add.observation(seat)["hand"]
            for d, out in enumerate(left):
                if accepted(after_add, seat, {"type": "discard", "card": out}) is not None:
                    return list(trio), (k, meld["id"]), d
    return None


def wait_for_my_move(page, after: str | None) -> str:
    page.wait_for_function(f"() => {{ const t = document.querySelector('#table').dataset; "
                           f"return (t.request && t.request !== '{after}' && t.answered !== t.request) || t.over; }}")
    return page.get_attribute("#table", "data-request")


MELD_BUTTON = re.compile(r"^\d+\. meld")  # not "add … meld 0"


def click_action(page, text) -> None:
    page.locator("#table-actions button.table-action", has_text=text).first.click()


def test_a_burraco_turn_by_clicking_draw_meld_add_discard(live_server, page, person, settings):
    from matches.models import Match

    settings.PERSON_MOVE_SECONDS, settings.PERSON_BANK_SECONDS = 20, 0  # once the turn is shown, time runs out
    log_in(page, live_server.url, person)
    match_id = sit_down(page, live_server.url, "greedy-burraco", "burraco-2p")  # two seats: turns come often
    worker = play_in_thread(match_id)
    seat = None
    request = None
    refused_once = False
    for _ in range(40):  # turns until one with a meld, an add and a discard
        request = wait_for_my_move(page, request)
        assert not page.get_attribute("#table", "data-over"), page.inner_text("#table-result")
        seat = my_seat(match_id) if seat is None else seat
        click_action(page, "draw")  # draw from the stock
        request = wait_for_my_move(page, request)
        state = position(match_id)
        hand = state.observation(seat)["hand"]
        plan = meld_add_discard(state, seat)
        cards = page.locator("#table-hand button.card")
        if plan is None:  # nothing to meld this turn: discard the first card the rules let go
            for d, out in enumerate(hand):
                if accepted(state, seat, {"type": "discard", "card": out}) is not None:
                    cards.nth(d).click()
                    click_action(page, "discard")
                    break
            continue
        if not refused_once:  # an illegal meld is not offered: the rules' reason is said, and the turn goes on
            from itertools import combinations

            wrong = next((trio for trio in combinations(range(len(hand)), 3)
                          if accepted(state, seat, {"type": "meld", "cards": [hand[i] for i in trio]}) is None), None)
            if wrong is not None:
                cards.nth(wrong[0]).click()  # one card: no meld of one card is offered, and the rule says why
                page.wait_for_function("() => /meld .*: a meld needs at least 3 cards/.test("
                                       "document.querySelector('#table-why').textContent)")
                assert not page.locator("#table-actions button.table-action", has_text=MELD_BUTTON).count()
                for i in wrong[1:]:
                    cards.nth(i).click()
                page.wait_for_function("() => document.querySelector('#table-why').textContent.includes("
                                       "'Not allowed — meld')")
                assert not page.locator("#table-actions button.table-action", has_text=MELD_BUTTON).count()
                refused_once = True
                screenshot(page, "burraco-refused-meld")
                for i in wrong:
                    cards.nth(i).click()  # chosen again: unchosen
        trio, (add_at, meld_id), discard_at = plan
        for i in trio:
            cards.nth(i).click()
        screenshot(page, "burraco-meld-chosen")
        click_action(page, "meld")
        request = wait_for_my_move(page, request)
        page.locator("#table-hand button.card").nth(add_at).click()
        click_action(page, re.compile(rf"\badd\b.* meld {meld_id}$"))
        request = wait_for_my_move(page, request)
        screenshot(page, "burraco-after-add")
        page.locator("#table-hand button.card").nth(discard_at).click()
        click_action(page, "discard")
        break
    else:
        raise AssertionError("no turn with a meld and an add in 40 turns")
    assert refused_once
    page.wait_for_selector("#table-end:not([hidden])", timeout=90_000)  # then the person's clock ran out
    worker.join(timeout=60)
    match = Match.objects.get(pk=match_id)
    person_seat = match.seats.get(seat=seat)
    assert (person_seat.verdict, person_seat.code) == ("timeout", "move")
    assert "timeout" in page.inner_text("#table-result")
    from web.replay_views import load_stored
    mine = [a["action"]["type"] for a in load_stored(match.replay_sha256)["actions"] if a["seat"] == seat]
    assert mine[-4:] == ["draw", "meld", "add", "discard"], mine
    assert page.errors == [], page.errors  # nothing refused: no illegal play was ever offered
