"""``arena.par``: the strongest search bot in one seat of a recorded match, on the same deals, against the same
built-in bots (or greedy standing in for a bot that cannot be re-run), the same for the same seed."""

from __future__ import annotations

import pytest

from arena import replay as replays
from arena.cli import main
from arena.par import par, strongest


@pytest.fixture(scope="module")
def bura_replay(tmp_path_factory):
    """One single-deal bura match of greedy (seat 0) against random (seat 1)."""
    out = tmp_path_factory.mktemp("replays")
    assert main(["play", "bura", "builtin:greedy", "builtin:random", "--games", "1", "--seed", "11",
                 "--rule", "match=deals:1", "--replays", str(out), "--quiet"]) == 0
    return replays.load(next(out.iterdir()))


def test_par_plays_the_same_deal_with_the_strongest_level_against_the_same_house_bots(bura_replay):
    found = par(bura_replay, 1, ["greedy", "random"], iterations=4, seed=2)
    assert found["bot"] == strongest("bura") == "search-3" and found["iterations"] == 4
    assert found["exact"] and found["opponents"] == ["greedy", None] and found["stand_ins"] == []
    assert found["points_kind"] == "penalty" and found["decisions"] > 0
    assert par(bura_replay, 1, ["greedy", "random"], iterations=4, seed=2) == found


def test_a_seat_that_cannot_be_re_run_is_played_by_greedy_and_par_says_so(bura_replay):
    found = par(bura_replay, 1, [None, "random"], iterations=4)
    assert not found["exact"] and found["opponents"] == ["greedy", None] and found["stand_ins"] == [0]


def test_par_refuses_a_seat_the_match_does_not_have(bura_replay):
    with pytest.raises(ValueError, match="seat 2 does not exist"):
        par(bura_replay, 2, ["greedy", "random"], iterations=4)
    with pytest.raises(ValueError, match="at least 1 iteration"):
        par(bura_replay, 0, ["greedy", "random"], iterations=0)
