"""One source for a game's scale: a match still being played (its replay so far has no result, as the live
view re-runs it) reads on the scale of its finished replay, the rules' own (issue 36: the live viewer said
"Points (higher is better)" for Bura while its replay said "Penalty points (lower is better)")."""

from __future__ import annotations

import pytest

from arena.public_view import public_meta
from arena.replay_frames import ReplayRun
from tests.arena.test_replay_frames_games import small_replay

SCALES = {"bura": "penalty", "kozel": "penalty", "burraco-2p": "score", "burkozel-pairs": "penalty"}


@pytest.mark.parametrize("preset", list(SCALES))
def test_a_match_in_play_reads_on_the_scale_of_its_replay(preset):
    replay = small_replay(preset)
    finished = ReplayRun(replay).meta(None)["points_kind"]
    so_far = {k: v for k, v in replay.items() if k not in ("result", "outcome", "verdicts")}
    so_far["actions"] = replay["actions"][: len(replay["actions"]) // 3]
    run = ReplayRun(so_far)
    assert finished == replay["result"]["points_kind"] == SCALES[preset]
    assert run.meta(0)["points_kind"] == public_meta(run)["points_kind"] == finished
