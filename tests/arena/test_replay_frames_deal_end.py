"""The end of each deal is a frame of its own (issue 36: "the step that ends a deal already shows the next
deal's hands, so you never see the winning trick or the final table"): a step that ends a deal and deals
the next carries an ``ending`` with the table the deal ended on, the events up to the deal's end and their
line, in every view (a seat's, "all", the public one), holding nothing the view may not see."""

from __future__ import annotations

import pytest

from arena.public_view import VIEW, public_frames
from arena.replay_frames import ReplayRun, ends_a_deal
from tests.arena.test_replay_frames_games import cards_in, small_replay


@pytest.fixture(scope="module", params=["bura", "kozel", "burkozel-pairs"])
def run(request) -> ReplayRun:
    return ReplayRun(small_replay(request.param, seed=11))


def test_a_step_that_deals_again_has_the_deals_end_as_its_own_frame(run):
    frames = list(run.frames(None, 0, run.steps))
    ending = [f for f in frames if "ending" in f]
    assert ending and len(ending) == len(run.meta(None)["deals"]) - 1  # every deal but the last ends so
    for frame in ending:
        end = frame["ending"]
        kinds = [e["type"] for e in end["events"]]
        assert kinds[-1] == "deal_end" and "deal" not in kinds, kinds
        assert [e["type"] for e in frame["events"]][len(kinds)] == "deal"  # the step itself deals anew
        assert end["deal"] == frame["deal"] - 1 and f"deal {end['deal']} ends" in end["text"]
        assert set(end["views"]) == set(frame["views"])
    assert all(ends_a_deal(f["events"]) is None for f in frames if "ending" not in f)


def test_the_ending_shows_the_last_plays_on_the_table_the_deal_ended_on(run):
    game = run.replay["game"]
    for k in sorted(run.deal_ends):
        before = run.state_at(k - 1)
        for seat in range(run.seats):
            (frame,) = run.frames(seat, k, k)
            view = frame["ending"]["views"][str(seat)]
            played = [c for e in frame["ending"]["events"] if e["type"] == "play" and e.get("seat") == seat
                      for c in (e["cards"] if "cards" in e else [e["card"]])]
            hand = list(before.observation(seat)["hand"])
            for card in played:
                hand.remove(card)
            assert view["hand"] == hand  # what the seat held as the deal ended, not the next deal's hand
            trick = next((e for e in frame["ending"]["events"] if e["type"] == "trick"), None)
            if game == "kozel" and trick is not None:
                assert view["trick"] == trick["cards"] and view["leader"] == trick["leader"]  # the winning trick
            if game == "bura" and trick is not None:
                assert view["trick"] is None  # taken: drawn from the step's trick event


def test_a_seats_ending_holds_only_what_that_seat_saw_and_the_public_one_no_hand(run):
    for k in sorted(run.deal_ends):
        before = run.state_at(k - 1)
        for seat in range(run.seats):
            (frame,) = run.frames(seat, k, k)
            end = frame["ending"]
            # the seat's view before the step and the events the engine gave it: nothing else reaches it
            seen = cards_in(before.observation(seat)) | cards_in(end["events"])
            assert cards_in(end["views"]) <= seen, (k, seat, cards_in(end["views"]) - seen)
        (public,) = public_frames(run, k, k)
        assert "hand" not in public["ending"]["views"][VIEW]
        assert public["ending"]["events"][-1]["type"] == "deal_end"
