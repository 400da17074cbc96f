"""Hidden cards in real Chromium: a running ladder match watched live shows every hand face down to a
spectator and only their own seat's hand to its owner; a played rotation's page keeps its replay and seed
back until its partner rotation has been played, and then shows both."""

from __future__ import annotations

import pytest
from browser_helpers import screenshot

PASSWORD = "a-long-password-1"


@pytest.fixture
def owner(house_bots, monkeypatch):
    """alice, whose bot (the built-in random bot's code) plays greedy-bura; nothing is sent to a broker."""
    from accounts.models import User
    from bots.actions import do_create_bot
    from bots.models import BotVersion
    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)
    user = User.objects.create_user(username="alice", password=PASSWORD)
    bot = do_create_bot(user, game="bura", name="alice-bura")
    bot.current_version = BotVersion.objects.create(bot=bot, number=1, builtin="random", status="ready")
    bot.save(update_fields=["current_version"])
    return user


def a_deal(user):
    from bots.actions import house_version
    from matches import actions

    version = user.bots.get(name="alice-bura").current_version
    return actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                        versions=[version, house_version("bura", "greedy")])


def opening(user):
    """A deal and its first moves up to a trick taken and a new lead, with the deal still going: a Bura deal
    can end at once when a hand drawn after a trick holds a winning combination (about 2% of seeds), and
    then there is nothing left to watch. -> (the deal's matches, the state, the moves as (seat, action))."""
    from arena.games import new_match, resolve

    while True:
        matches = a_deal(user)
        state = new_match(resolve(matches[0].preset, matches[0].overrides)[1], matches[0].seed)
        moves = []
        while len(moves) < 3 or not (state.observation(0)["trick"] or {}).get("plays"):
            seat = state.to_move()
            if seat is None:  # the deal ended
                break
            action = next(a for a in state.legal_actions(seat) if a["type"] != "claim")  # the deal goes on
            state.apply(seat, action)
            moves.append((seat, action))
        else:
            return matches, state, moves


def log_in(page, site: str, user) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def hand_cards(page) -> dict[str, list[str]]:
    return page.eval_on_selector_all("#rv-table [data-hand]", """rows => Object.fromEntries(rows.map(row =>
        [row.dataset.hand, [...row.querySelectorAll('.pc')].map(card => card.dataset.card)]))""")


def test_a_running_match_is_watched_live_with_every_hand_face_down(live_server, browser, owner, settings):
    from matches import relay
    from matches.models import Match

    settings.LIVE_DELAY_SECONDS = 0
    matches, state, moves = opening(owner)
    match = matches[0]
    Match.objects.filter(pk=match.pk).update(status="running")
    name = relay.attempt_name(match)
    relay.start_match(name, [0, 1])
    for seat, action in moves:
        relay.publish_action(name, seat, action)
    steps = len(moves)
    mine = match.seats.get(version__bot__name="alice-bura").seat
    hands = {str(s): state.observation(s)["hand"] for s in (0, 1)}

    spectator = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    spectator.goto(f"{live_server.url}/matches/{match.pk}/")
    spectator.wait_for_selector(f"#replay-viewer[data-live-steps='{steps}']")
    assert spectator.eval_on_selector_all("#rv-seat option", "els => els.map(e => e.value)") == ["public"]
    shown = hand_cards(spectator)
    assert sorted(shown) == ["0", "1"] and all(card == "??" for cards in shown.values() for card in cards)
    assert [len(shown[s]) for s in ("0", "1")] == [len(hands["0"]), len(hands["1"])]  # counted, face down
    on_table = spectator.eval_on_selector_all("#rv-table .rv-trick .pc", "els => els.map(e => e.dataset.card)")
    assert on_table and "??" not in on_table  # the cards played face up are public
    assert spectator.is_visible("#live-hidden-note")
    screenshot(spectator, "live-public-table")
    spectator.context.close()

    watcher = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(watcher, live_server.url, owner)
    watcher.goto(f"{live_server.url}/matches/{match.pk}/")
    watcher.wait_for_selector(f"#replay-viewer[data-live-steps='{steps}']")
    assert watcher.eval_on_selector_all("#rv-seat option", "els => els.map(e => e.value)") == ["public", str(mine)]
    watcher.select_option("#rv-seat", str(mine))
    watcher.wait_for_function("seat => document.querySelector('#replay-viewer').dataset.view === seat", arg=str(mine))
    watcher.wait_for_function(f"() => document.querySelector('#rv-table [data-hand=\"{mine}\"] .pc:not(.back)')")
    shown = hand_cards(watcher)
    assert sorted(shown[str(mine)]) == sorted(hands[str(mine)])  # the owner's own seat, face up
    assert all(card == "??" for card in shown[str(1 - mine)])  # the opponent's hand stays face down
    screenshot(watcher, "live-own-seat")
    watcher.context.close()


def test_a_played_rotation_shows_its_replay_once_its_partner_is_played(live_server, page, owner):
    from matches.models import Match
    from play.tasks import play_match

    first, partner = a_deal(owner)
    assert play_match(first.pk) == "finished"
    first.refresh_from_db()
    page.goto(f"{live_server.url}/matches/{first.pk}/")
    assert page.is_visible("#embargo-note") and f"match {partner.pk} is still queued" in page.inner_text(
        "#embargo-note")
    assert page.query_selector("#replay-viewer") is None
    assert "--seed" not in page.inner_text("#reproduce") and page.is_visible("#seed-hidden")
    screenshot(page, "match-embargoed")
    assert play_match(partner.pk) == "finished"
    assert Match.objects.get(pk=partner.pk).status == "finished"
    page.goto(f"{live_server.url}/matches/{first.pk}/")
    page.wait_for_selector("#replay-viewer.ready")
    assert page.query_selector("#embargo-note") is None
    assert f"--seed {first.base_seed}" in page.inner_text("#reproduce")
    assert not page.errors, page.errors
