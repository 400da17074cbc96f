"""The replay viewer in real Chromium: it loads, the keyboard moves it, a seat's view shows exactly that
seat's observation (never another seat's hidden cards), "everything" shows every hand, and the URL hash
restores a position."""

from __future__ import annotations

import json

import pytest
from browser_helpers import engine_state, screenshot, stored_replay

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


def wait_for(page, step: int, view: str) -> None:
    page.wait_for_function(
        "([step, view]) => { const v = document.getElementById('replay-viewer');"
        " return v.dataset.step === String(step) && v.dataset.view === view && !v.hasAttribute('aria-busy'); }",
        arg=[step, view])


def open_viewer(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#replay-viewer.ready")


def show(page, step: int, view: str) -> None:
    page.evaluate("hash => { window.location.hash = hash; }", f"#step={step}&seat={view}")
    wait_for(page, step, view)


def seen_events(replay: dict, seat: int | None, step: int) -> list[dict]:
    """The events the engine gave ``seat`` during ``step`` (the initial deal for step 0)."""
    before = len(engine_state(replay, step - 1).events(None)) if step else 0
    return engine_state(replay, step).events(seat, before)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_viewer_steps_with_the_keyboard_and_a_seat_sees_only_its_own_cards(live_server, page, play, preset):
    match = play(preset)
    replay = stored_replay(match)
    steps = len(replay["actions"])
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/")
    wait_for(page, 0, "all")
    screenshot(page, f"viewer-{preset}-start")

    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for(page, 3, "all")
    page.keyboard.press("ArrowLeft")
    wait_for(page, 2, "all")
    page.keyboard.press("n")  # next deal: the step of the second deal, or the end in a one-deal match
    deal_starts = [k for k in range(1, steps + 1)
                   if any(e["type"] == "deal" for e in seen_events(replay, None, k))]
    wait_for(page, deal_starts[0] if deal_starts else steps, "all")
    page.keyboard.press("End")
    wait_for(page, steps, "all")
    assert f"step {steps} / {steps}" in page.inner_text("#rv-step")
    assert "End of the match" in page.inner_text("#rv-table")
    screenshot(page, f"viewer-{preset}-end")
    page.keyboard.press("Home")
    wait_for(page, 0, "all")

    page.select_option("#rv-seat", "0")
    wait_for(page, 0, "0")
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
    wait_for(page, steps // 2, "all")
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
    wait_for(page, step, "1")
    assert page.input_value("#rv-seat") == "1"
    assert page.get_attribute("#rv-link", "href") == f"#step={step}&seat=1"
    assert page.evaluate(DOM_HANDS)["1"] == engine_state(replay, step).observation(1)["hand"]
    page.keyboard.press("ArrowRight")
    wait_for(page, step + 1, "1")
    assert page.evaluate("location.hash") == f"#step={step + 1}&seat=1"
    assert not page.errors


def test_play_runs_the_match_forward_and_pause_stops_it(live_server, page, play):
    match = play("bura")
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/")
    wait_for(page, 0, "all")
    page.select_option("#rv-speed", "16")
    page.keyboard.press(" ")
    page.wait_for_function("() => Number(document.getElementById('replay-viewer').dataset.step) >= 5")
    page.keyboard.press(" ")
    stopped = int(page.get_attribute("#replay-viewer", "data-step"))
    page.wait_for_timeout(500)
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
    wait_for(page, steps // 2, "all")
    state = engine_state(replay, steps // 2)
    assert page.evaluate(DOM_HANDS) == {str(s): state.observation(s)["hand"] for s in range(state.num_seats)}
    last = state.num_seats - 1
    page.select_option("#rv-seat", str(last))
    wait_for(page, steps // 2, str(last))
    hands = page.evaluate(DOM_HANDS)
    mine = state.observation(last)
    assert hands[str(last)] == mine["hand"]
    assert all(hands[str(s)] == ["??"] * mine["hand_sizes"][s] for s in range(last))
    assert set(page.evaluate(DOM_CARDS)) - {"??"} <= strings_in(mine)
    screenshot(page, f"viewer-{preset}-seat{last}")
    page.keyboard.press("End")
    wait_for(page, steps, str(last))
    assert not page.errors
