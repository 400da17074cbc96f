"""The replay viewer in real Chromium: it loads, the keyboard moves it, a seat's view shows exactly that
seat's observation (never another seat's hidden cards), "everything" shows every hand, and the URL hash
restores a position."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import ARTIFACTS, engine_state, screenshot, stored_replay

PRESETS = ["bura", "kozel", "burraco-2p"]

DOM_HANDS = """() => {
  const out = {};
  document.querySelectorAll('#rv-table [data-hand]').forEach(row => {
    out[row.dataset.hand] = [...row.querySelectorAll('.pc')].map(c => c.dataset.card);
  });
  return out;
}"""
DOM_CARDS = """() => [...document.querySelectorAll('#rv-table .pc')]
  .filter(c => !c.closest('.rv-legend')).map(c => c.dataset.card)"""
DOM_EVENTS = "() => [...document.querySelectorAll('#rv-events li')].map(li => li.textContent)"


def strings_in(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


def wait_for_position(page, step: int, view: str) -> None:
    page.wait_for_function(
        "([step, view]) => { const v = document.getElementById('replay-viewer');"
        " return v.dataset.step === String(step) && v.dataset.view === view && !v.hasAttribute('aria-busy'); }",
        arg=[step, view])


def open_viewer(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#replay-viewer.ready")


def show(page, step: int, view: str) -> None:
    page.evaluate("hash => { window.location.hash = hash; }", f"#step={step}&seat={view}")
    wait_for_position(page, step, view)


def seen_events(replay: dict, seat: int | None, step: int) -> list[dict]:
    """The events the engine gave ``seat`` during ``step`` (the initial deal for step 0)."""
    before = len(engine_state(replay, step - 1).events(None)) if step else 0
    return engine_state(replay, step).events(seat, before)


def positions(replay: dict) -> list[tuple[int, bool]]:
    """The viewer's positions in order, (step, a deal's end): a step that ends a deal and deals anew is two,
    the deal's end first."""
    found = [(0, False)]
    for k in range(1, len(replay["actions"]) + 1):
        kinds = [e["type"] for e in seen_events(replay, None, k)]
        if "deal_end" in kinds and "deal" in kinds[kinds.index("deal_end"):]:
            found.append((k, True))
        found.append((k, False))
    return found


@pytest.mark.parametrize("preset", PRESETS)
def test_the_viewer_steps_with_the_keyboard_and_a_seat_sees_only_its_own_cards(live_server, page, play, preset):
    match = play(preset)
    replay = stored_replay(match)
    steps = len(replay["actions"])
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/")
    wait_for_position(page, 0, "all")
    screenshot(page, f"viewer-{preset}-start")

    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for_position(page, positions(replay)[3][0], "all")
    page.keyboard.press("ArrowLeft")
    wait_for_position(page, positions(replay)[2][0], "all")
    page.keyboard.press("n")  # next deal: the step of the second deal, or the end in a one-deal match
    deal_starts = [k for k in range(1, steps + 1)
                   if any(e["type"] == "deal" for e in seen_events(replay, None, k))]
    wait_for_position(page, deal_starts[0] if deal_starts else steps, "all")
    page.keyboard.press("End")
    wait_for_position(page, steps, "all")
    assert f"step {steps} / {steps}" in page.inner_text("#rv-step")
    assert "End of the match" in page.inner_text("#rv-table")
    screenshot(page, f"viewer-{preset}-end")
    page.keyboard.press("Home")
    wait_for_position(page, 0, "all")

    page.select_option("#rv-seat", "0")
    wait_for_position(page, 0, "0")
    for step in sorted({0, 1, steps // 3, steps // 2, steps - 1, steps}):
        show(page, step, "0")
        state = engine_state(replay, step)
        mine = state.observation(0)
        hands = page.evaluate(DOM_HANDS)
        assert hands["0"] == mine["hand"]
        for other in range(1, state.num_seats):
            assert hands[str(other)] == ["??"] * mine["hand_sizes"][other], f"seat {other} at step {step}"
        shown = set(page.evaluate(DOM_CARDS)) - {"??"}
        assert shown <= strings_in(mine), f"step {step}: cards seat 0 could not see: {shown - strings_in(mine)}"
        events = [json.loads(text) for text in page.evaluate(DOM_EVENTS)]
        assert events == seen_events(replay, 0, step)
    show(page, steps // 2, "0")
    screenshot(page, f"viewer-{preset}-seat0")

    page.select_option("#rv-seat", "all")
    wait_for_position(page, steps // 2, "all")
    state = engine_state(replay, steps // 2)
    hands = page.evaluate(DOM_HANDS)
    for seat in range(state.num_seats):
        assert hands[str(seat)] == state.observation(seat)["hand"]
    assert [json.loads(t) for t in page.evaluate(DOM_EVENTS)] == seen_events(replay, None, steps // 2)
    screenshot(page, f"viewer-{preset}-all")
    assert not page.errors


def test_the_url_hash_restores_a_position_and_a_seat(live_server, page, play, browser):
    match = play("bura")
    replay = stored_replay(match)
    step = len(replay["actions"]) // 2
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={step}&seat=1")
    wait_for_position(page, step, "1")
    assert page.input_value("#rv-seat") == "1"
    assert page.get_attribute("#rv-link", "href") == f"#step={step}&seat=1"
    assert page.evaluate(DOM_HANDS)["1"] == engine_state(replay, step).observation(1)["hand"]
    page.keyboard.press("ArrowRight")
    wait_for_position(page, step + 1, "1")
    # the next position is the step's own, or first the end of the deal it ends
    assert page.evaluate("location.hash") in (f"#step={step + 1}&seat=1", f"#step={step + 1}&end=1&seat=1")
    assert not page.errors


def test_play_runs_the_match_forward_and_pause_stops_it(live_server, page, play):
    match = play("bura")
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/")
    wait_for_position(page, 0, "all")
    page.select_option("#rv-speed", "16")
    page.keyboard.press(" ")
    page.wait_for_function("() => Number(document.getElementById('replay-viewer').dataset.step) >= 5")
    page.keyboard.press(" ")
    stopped = int(page.get_attribute("#replay-viewer", "data-step"))
    page.wait_for_timeout(500)  # sleep-ok: several steps at this speed, and nothing may move while paused
    assert int(page.get_attribute("#replay-viewer", "data-step")) == stopped
    assert page.get_attribute("#rv-play", "aria-pressed") == "false"
    assert not page.errors


def builtins_for(preset: str) -> tuple[str, ...]:
    """greedy, random, greedy… one per seat, or one per team where a team holds several seats."""
    from arena.games.seating import layout

    seats, teams = layout(preset, {})
    return tuple(["greedy", "random"] * 3)[:min(seats, len(teams))]


@pytest.mark.parametrize("preset", ["bura-3p", "burkozel", "burkozel-pairs", "echki-6", "kozel-3p", "burraco"])
def test_every_other_preset_draws_each_seats_view_without_errors(live_server, page, play, preset):
    match = play(preset, builtins_for(preset))
    replay = stored_replay(match)
    steps = len(replay["actions"])
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={steps // 2}&seat=all")
    wait_for_position(page, steps // 2, "all")
    state = engine_state(replay, steps // 2)
    assert page.evaluate(DOM_HANDS) == {str(s): state.observation(s)["hand"] for s in range(state.num_seats)}
    last = state.num_seats - 1
    page.select_option("#rv-seat", str(last))
    wait_for_position(page, steps // 2, str(last))
    hands = page.evaluate(DOM_HANDS)
    mine = state.observation(last)
    assert hands[str(last)] == mine["hand"]
    assert all(hands[str(s)] == ["??"] * mine["hand_sizes"][s] for s in range(last))
    assert set(page.evaluate(DOM_CARDS)) - {"??"} <= strings_in(mine)
    screenshot(page, f"viewer-{preset}-seat{last}")
    page.keyboard.press("End")
    wait_for_position(page, steps, str(last))
    assert not page.errors


# ---------------------------------------------------------------------------------------------- details

DOM_PLAYED = """seat => [...document.querySelectorAll(`#rv-table .rv-trick .rv-play[data-seat="${seat}"] .pc`)]
  .map(c => [c.dataset.card, c.dataset.faceDown === '1'])"""
DOM_PILE = """seat => [...document.querySelectorAll(`#rv-table [data-pile="${seat}"] .pc`)]
  .map(c => [c.dataset.card, c.dataset.faceDown === '1'])"""


@pytest.fixture
def fixed_deals(monkeypatch):
    """The matches' base seeds from 1 up: the positions these tests look for are in known places."""
    import itertools

    from matches import actions

    seeds = itertools.count(1)
    monkeypatch.setattr(actions, "new_base_seed", lambda: next(seeds))


def face_down_plays(replay: dict, step: int) -> list[dict]:
    """The face-down sets played in ``step`` by a seat other than 0, as the full log has them."""
    return [e for e in seen_events(replay, None, step) if e["type"] == "play" and e.get("face_down") is True
            and e["seat"] != 0]


def test_everything_shows_a_face_down_set_on_the_table_marked_as_face_down(live_server, page, play, fixed_deals):
    match = play("bura-3p", builtins_for("bura-3p"))
    replay = stored_replay(match)
    # the first face-down set played while the trick is still open (another seat is still to answer)
    step, played = next((k, e) for k in range(1, len(replay["actions"]) + 1) for e in face_down_plays(replay, k)
                        if engine_state(replay, k).observation(0)["trick"] is not None)
    cards = played["cards"]
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={step}&seat=all")
    wait_for_position(page, step, "all")
    assert f"seat {played['seat']} plays {' '.join(cards)} face down" in page.inner_text("#rv-text")
    assert page.evaluate(DOM_PLAYED, played["seat"]) == [[c, True] for c in cards]  # shown, marked
    assert f"seat {played['seat']}" in page.inner_text("#rv-table .rv-trick") and "(face down)" in \
        page.inner_text("#rv-table .rv-trick")
    screenshot(page, "viewer-bura-3p-face-down-all")
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "viewer-bura-3p-face-down-all-390")
    page.set_viewport_size({"width": 1366, "height": 900})
    show(page, step, "0")  # seat 0 was not shown them
    assert page.evaluate(DOM_PLAYED, played["seat"]) == [["??", False]] * len(cards)
    assert not page.errors


def test_everything_shows_the_face_down_cards_of_a_taken_trick_and_in_the_pile(live_server, page, play, fixed_deals):
    match = play("bura")
    replay = stored_replay(match)
    step, played = next((k, e) for k in range(1, len(replay["actions"]) + 1) for e in face_down_plays(replay, k))
    trick = next(e for e in seen_events(replay, None, step) if e["type"] == "trick")
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={step}&seat=all")
    wait_for_position(page, step, "all")
    assert page.inner_text("#rv-table .rv-trick h4").startswith(f"Trick taken by seat {trick['taker']}")
    assert page.evaluate(DOM_PLAYED, played["seat"]) == [[c, True] for c in played["cards"]]
    pile = page.evaluate(DOM_PILE, trick["taker"])
    assert all([c, True] in pile for c in played["cards"]), pile  # in the taker's pile, face down
    assert "unseen" not in page.inner_text(f'#rv-table [data-pile="{trick["taker"]}"]')
    screenshot(page, "viewer-bura-face-down-all")
    show(page, step, "0")  # seat 0 sees the pile as the engine shows it to seat 0
    known = engine_state(replay, step).observation(0)["piles"][trick["taker"]]["face_down_known"]
    assert [c for c, down in page.evaluate(DOM_PILE, trick["taker"]) if down] == known
    assert not page.errors


def test_the_last_trick_of_a_deal_is_not_drawn_on_the_next_deals_table(live_server, page, play, fixed_deals):
    """A step that takes a deal's last trick also deals the next one: the table is the new deal's (the
    taken trick is told in the step's line), so a seat's view shows none of the old deal's cards on it."""
    match = play("burkozel-pairs", builtins_for("burkozel-pairs"))
    replay = stored_replay(match)

    def kinds(k: int) -> list[str]:
        return [e["type"] for e in seen_events(replay, None, k)]

    step = next(k for k in range(1, len(replay["actions"])) if "trick" in kinds(k) and kinds(k)[-1] == "deal")
    seat = 3
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={step}&seat={seat}")
    wait_for_position(page, step, str(seat))
    assert set(page.evaluate(DOM_CARDS)) - {"??"} <= strings_in(engine_state(replay, step).observation(seat))
    assert "no trick on the table" in page.inner_text("#rv-table .rv-trick")
    assert "takes" in page.inner_text("#rv-text")
    assert not page.errors


def test_the_trump_is_named_once(live_server, page, play, fixed_deals):
    """While the turned-up card lies under the stock it names the trump ("Trump Q♦"), after it is drawn the
    suit does ("Trump ♦"); never "Trump trump ♦". Burkozel: four hands draw the stock out within a deal."""
    match = play("burkozel", builtins_for("burkozel"))
    replay = stored_replay(match)
    suits = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    seen = [engine_state(replay, k).observation(0) for k in range(len(replay["actions"]) + 1)]
    turned = next(k for k, obs in enumerate(seen) if obs["trump_card"])
    drawn = next(k for k, obs in enumerate(seen) if obs["trump_card"] is None and obs["trump"])
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={turned}&seat=all")
    wait_for_position(page, turned, "all")
    card, suit = seen[turned]["trump_card"], suits[seen[turned]["trump"]]
    said = " ".join(page.inner_text("#rv-trump").split())
    assert said.startswith(f"Trump {card[0].replace('T', '10')}{suit}") and said.lower().count("trump") == 1, said
    assert said.count(suit) == 1, said
    show(page, drawn, "all")
    assert " ".join(page.inner_text("#rv-trump").split()) == f"Trump {suits[seen[drawn]['trump']]}"
    assert not page.errors


@pytest.mark.parametrize("preset", PRESETS)
def test_sides_deals_and_points_read_the_same_in_every_game(live_server, page, play, preset):
    """The score table and the end name the bots, deals count from 1, points are integers, a penalty count says
    lower is better, and Burraco (no tricks) steps by turns."""
    match = play(preset)
    replay = stored_replay(match)
    steps = len(replay["actions"])
    seats = sorted(match.seats.all(), key=lambda s: s.seat)
    from arena.games.seating import layout

    _, teams = layout(preset, {})
    bots = [seats[team[0]].version.label for team in teams]
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/")
    wait_for_position(page, 0, "all")
    dealt = sum(e["type"] == "deal" for e in seen_events(replay, None, 0))  # a deal may end as it is dealt
    assert page.inner_text("#rv-step").startswith(f"Deal {dealt} · step 0 / ") and dealt >= 1
    assert page.inner_text("#rv-text").startswith("deal 1 dealt by seat ")
    assert page.get_attribute("#rv-marks .k-deal", "aria-label") == "deal 1"
    button = page.inner_text("#rv-trick")
    help_text = page.inner_text("#replay-viewer .help")
    if preset.startswith("burraco"):
        assert button == "next turn" and "next trick" not in page.inner_text("#replay-viewer")
        assert "t next turn" in help_text
        page.keyboard.press("t")  # to the position after the first discard
        first = next(k for k in range(1, steps + 1)
                     if any(e["type"] == "discard" for e in seen_events(replay, None, k)))
        wait_for_position(page, first, "all")
    else:
        assert button == "next trick" and "t next trick" in help_text
    page.keyboard.press("End")
    wait_for_position(page, steps, "all")
    heads = page.locator("#rv-scores th").all_inner_texts()
    assert heads == ["After deal", *bots], heads
    rows = page.locator("#rv-scores tr").evaluate_all(
        "rs => rs.slice(1).map(r => [...r.cells].map(c => c.textContent))")
    assert [r[0] for r in rows[:-1]] == [str(n) for n in range(1, len(rows))] and rows[-1][0] == "now"
    assert all(re.fullmatch(r"-?\d+", cell) for row in rows for cell in row[1:]), rows
    kind = page.inner_text("#rv-scores > div")
    assert kind == ("Points (higher is better)" if preset.startswith("burraco") else "Penalty points (lower is better)")
    end = page.inner_text("#rv-table .rv-end")
    assert any(bot in end for bot in bots) and ".0 " not in end and "seat" not in end.split(":")[1]
    chart = page.locator("#score-progression")
    assert chart.locator("text.legend").all_text_contents() == [
        f"{bot}: {re.sub(r'[.]0$', '', str(replay['result']['points'][team[0]]))}" for bot, team in zip(bots, teams,
                                                                                                      strict=True)]
    assert ("higher is better" if preset.startswith("burraco") else "lower is better") in chart.text_content()
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"viewer-{preset}-end-390")
    chart.screenshot(path=str(ARTIFACTS / f"score-progression-{preset}-390.png"))
    page.locator("#replay-viewer .rv-bar").screenshot(path=str(ARTIFACTS / f"viewer-{preset}-controls-390.png"))
    assert not page.errors
