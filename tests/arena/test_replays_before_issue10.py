"""Replays recorded with the engines as they were before issue 10 changed preset defaults and added
options (tests/arena/data/*-before-issue10.json.gz, played by `arena play ... --replays` with builtin
greedy and random bots, seed 11) still verify: a replay holds its full rules, and options added since
then default to the behaviour the engines had."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import replay
from arena.games import all_presets
from arena.games.options import option_fields, recorded_rules_match

DATA = Path(__file__).parent / "data"
RECORDED = sorted(DATA.glob("*-before-issue10.json.gz"))


def test_the_recorded_replays_are_there():
    assert {p.name.split("-before")[0] for p in RECORDED} == {"bura", "burkozel", "burkozel-pairs", "kozel"}


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_a_replay_recorded_before_the_changes_still_verifies(path):
    recorded = replay.load(path)
    state = replay.rebuild(recorded)
    assert state.is_over() and recorded["result"]["finished"]


@pytest.mark.parametrize("name", ["burkozel", "burkozel-pairs"])
def test_the_burkozel_replays_were_played_under_the_old_defaults(name):
    recorded = replay.load(DATA / f"{name}-before-issue10.json.gz")
    assert (recorded["rules"]["dealer"], recorded["rules"]["trump_card"]) == ("winner", "bottom")
    current = all_presets()[name][1]
    assert (current.dealer, current.trump_card) == ("rotate_left", "returned")
    assert "combo_tie" not in recorded["rules"] and "next_lead" not in recorded["rules"]


def test_only_options_added_later_may_be_missing_and_only_at_their_default():
    recorded = replay.load(DATA / "bura-before-issue10.json.gz")
    game_rules = replay.rebuild(recorded).rules
    assert recorded_rules_match(game_rules, recorded["rules"])
    later = [f.name for f in option_fields(type(game_rules)) if f.metadata["added_later"]]
    assert "combo_tie" in later and "hand" not in later
    missing_hand = {k: v for k, v in recorded["rules"].items() if k != "hand"}
    assert not recorded_rules_match(game_rules, missing_hand)
    tampered = dict(recorded, rules={**recorded["rules"], "next_lead": "rotate"})
    with pytest.raises(replay.ReplayError):
        replay.rebuild(tampered)  # a new option named with another value: the recorded play does not fit it
