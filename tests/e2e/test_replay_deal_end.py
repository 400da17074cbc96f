"""The replay viewer shows the end of each deal as its own position (issue 36): stepping forward from a deal's
last trick shows the table as the deal ended (Kozel's winning trick, the hands as they were, "deal 1 ends"),
and only the next step shows the next deal's hands; back and the URL hash reach the same position.
Screenshots at 1366 and 390 px go to tests/e2e/artifacts/."""

from __future__ import annotations

import pytest
from browser_helpers import engine_state, screenshot, stored_replay
from test_replay_viewer import DOM_HANDS, open_viewer, seen_events


def ending(deal: int) -> str:
    """The viewer shows the end of ``deal`` (its ``data-ending`` is the deal's number) and has settled."""
    return (f"() => {{ const v = document.getElementById('replay-viewer'); return v.dataset.ending === '{deal}' && "
            "!v.hasAttribute('aria-busy'); }")


def first_deal_end(replay: dict) -> tuple[int, int]:
    """The first step that ends a deal and deals the next, and that deal's number as the viewer counts deals (the
    deals dealt so far; a redeal keeps its number): not always 1, since a Bura deal can end as it is dealt (an
    initial combination), before any step."""
    for k in range(1, len(replay["actions"]) + 1):
        kinds = [e["type"] for e in seen_events(replay, None, k)]
        if "deal_end" in kinds and "deal" in kinds[kinds.index("deal_end"):]:
            return k, len({e["deal"] for e in engine_state(replay, k - 1).events(None) if e["type"] == "deal"})
    raise AssertionError("no deal ended before the last")


def hands_as_the_deal_ended(replay: dict, step: int) -> dict[str, list[str]]:
    """Every seat's hand before ``step`` without the cards it played in that step."""
    before = engine_state(replay, step - 1)
    hands = {}
    for seat in range(before.num_seats):
        hand = list(before.observation(seat)["hand"])
        for event in seen_events(replay, None, step):
            if event["type"] == "play" and event.get("seat") == seat:
                for card in event["cards"] if "cards" in event else [event["card"]]:
                    hand.remove(card)
        hands[str(seat)] = hand
    return hands


def no_dash(hands: dict[str, list[str]]) -> dict[str, list[str]]:
    return {seat: [c for c in cards if c] for seat, cards in hands.items()}


@pytest.mark.parametrize("preset", ["kozel", "bura"])
def test_the_end_of_a_deal_is_shown_before_the_next_deals_hands(live_server, page, play, preset):
    match = play(preset)
    replay = stored_replay(match)
    k, deal = first_deal_end(replay)
    page.set_viewport_size({"width": 1366, "height": 900})
    open_viewer(page, f"{live_server.url}/matches/{match.pk}/#step={k - 1}&seat=all")
    page.keyboard.press("ArrowRight")  # from the deal's last position: its end first
    page.wait_for_function(ending(deal))
    assert page.get_attribute("#replay-viewer", "data-step") == str(k)
    assert page.inner_text("#rv-step").startswith(f"End of deal {deal} · step {k} / ")
    assert f"deal {deal} ends" in page.inner_text("#rv-text") and "dealt" not in page.inner_text("#rv-text")
    assert no_dash(page.evaluate(DOM_HANDS)) == hands_as_the_deal_ended(replay, k)
    if preset == "kozel":  # the winning trick lies on the table
        trick = next(e for e in seen_events(replay, None, k) if e["type"] == "trick")
        cards = page.eval_on_selector_all("#rv-table .rv-trick .pc", "els => els.map(e => e.dataset.card)")
        assert cards == trick["cards"], (cards, trick)
        assert f"last trick → seat {trick['winner']}, {trick['points']} points" in page.inner_text("#rv-table")
    assert page.evaluate("location.hash") == f"#step={k}&end=1&seat=all"
    screenshot(page, f"viewer-{preset}-deal-end-1366")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, f"viewer-{preset}-deal-end-390")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "scrolls sideways"
    page.set_viewport_size({"width": 1366, "height": 900})

    page.keyboard.press("ArrowRight")  # then the step itself: the next deal's hands
    page.wait_for_function(f"() => {{ const v = document.getElementById('replay-viewer'); return v.dataset.step === "
                           f"'{k}' && !v.dataset.ending && !v.hasAttribute('aria-busy'); }}")
    # One step may deal more than once (the next deal can end as it is dealt), and a redeal keeps its number.
    deal_after = len({e["deal"] for e in engine_state(replay, k).events(None) if e["type"] == "deal"})
    assert page.inner_text("#rv-step").startswith(f"Deal {deal_after} · step {k} / ")
    dealt = engine_state(replay, k)
    assert page.evaluate(DOM_HANDS) == {str(s): dealt.observation(s)["hand"] for s in range(dealt.num_seats)}
    page.keyboard.press("ArrowLeft")  # back: the deal's end again
    page.wait_for_function(ending(deal))
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"() => document.getElementById('replay-viewer').dataset.step === '{k - 1}'")

    page.goto(f"{live_server.url}/matches/{match.pk}/#step={k}&end=1&seat=0")  # a link opens at the deal's end
    page.wait_for_selector("#replay-viewer.ready")
    page.wait_for_function(ending(deal))
    mine = no_dash(page.evaluate(DOM_HANDS))
    assert mine["0"] == hands_as_the_deal_ended(replay, k)["0"]
    assert all(set(cards) <= {"??"} for seat, cards in mine.items() if seat != "0")  # the others' stay hidden
    assert not page.errors, page.errors
