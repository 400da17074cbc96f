"""``arena analyse``: each decision of a seat weighed from that seat's own observation, marked by its expected
loss against the best candidate, the same for the same seed, refused for a bad replay or seat."""

from __future__ import annotations

import copy
import json

import pytest

from arena import replay as replays
from arena.analysis import MARKS, THRESHOLDS, analyse, mark_for
from arena.cli import main
from arena.games import new_match, resolve
from arena.games.bura.ranking import POINTS


@pytest.fixture(scope="module")
def bura_replay(tmp_path_factory):
    """One bura match of greedy (seat 0) against random (seat 1)."""
    out = tmp_path_factory.mktemp("replays")
    assert main(["play", "bura", "builtin:greedy", "builtin:random", "--games", "1", "--seed", "3",
                 "--replays", str(out), "--quiet"]) == 0
    return next(out.iterdir())


def test_the_same_seed_gives_the_same_analysis_and_another_seed_its_own(bura_replay):
    replay = replays.load(bura_replay)
    first = analyse(replay, [1], budget=8, seed=5)
    assert analyse(replay, [1], budget=8, seed=5) == first
    assert analyse(replay, [1], budget=8, seed=6)["decisions"] != first["decisions"]
    assert first["seats"][0]["analysed"] == len(first["decisions"]) > 10
    assert all(d["seat"] == 1 for d in first["decisions"])


def test_a_false_claim_is_a_blunder_and_passing_is_suggested(bura_replay):
    replay = replays.load(bura_replay)
    _, rules = resolve("bura")
    state = new_match(rules, replay["seed"])
    false_claims = []
    for index, entry in enumerate(replay["actions"]):
        observation = state.observation(entry["seat"])
        pile = observation["piles"][entry["seat"]]
        known = pile["face_up"] + pile["face_down_known"]
        if entry["action"]["type"] == "claim" and len(known) == pile["count"] and \
                sum(POINTS[c[0]] for c in known) < 31:
            false_claims.append(index)
        state.apply(entry["seat"], entry["action"])
    assert false_claims  # the random bot claims at random
    found = {d["index"]: d for d in analyse(replay, [1], budget=20, seed=1)["decisions"]}
    for index in false_claims:
        assert found[index]["mark"] == "blunder"
        assert found[index]["suggested"] == {"type": "pass"}
        assert found[index]["played_value"] == pytest.approx(-4.0)  # lose_double: 4 penalty points, for sure


def test_the_random_bot_loses_more_expected_points_than_greedy(bura_replay):
    seats = {s["seat"]: s for s in analyse(replays.load(bura_replay), budget=20, seed=2)["seats"]}
    assert seats[1]["expected_loss"] > 2 * seats[0]["expected_loss"]
    assert seats[1]["blunder"] > seats[0]["blunder"]


def test_marks_follow_the_thresholds():
    low, middle, high = THRESHOLDS["bura"]
    assert [mark_for(x, THRESHOLDS["bura"]) for x in (0.0, low - 0.01, low, middle, high, 10 * high)] == \
        [None, None, *MARKS, "blunder"]


def test_kozel_widow_decisions_are_counted_but_not_searched(tmp_path):
    assert main(["play", "kozel-3p", "builtin:greedy", "builtin:random", "builtin:greedy", "--games", "1",
                 "--seed", "4", "--replays", str(tmp_path), "--quiet", "--rule", "target=3"]) == 0
    result = analyse(replays.load(next(tmp_path.iterdir())), budget=2, seed=0)
    assert sum(s["not_searched"] for s in result["seats"]) >= 1
    assert {d["decision"] for d in result["decisions"]} <= {"lead", "follow"}


def test_the_command_prints_a_table_or_json_and_names_what_is_wrong(bura_replay, capsys, tmp_path):
    assert main(["analyse", str(bura_replay), "--seat", "1", "--budget", "4"]) == 0
    out = capsys.readouterr().out
    assert "seat 1 (builtin:random):" in out and "blunder" in out
    assert main(["analyse", str(bura_replay), "--seat", "1", "--budget", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["budget"] == 4 and [s["seat"] for s in data["seats"]] == [1]
    assert main(["analyse", str(bura_replay), "--seat", "1", "--seat", "1", "--budget", "1", "--json"]) == 0
    assert [s["seat"] for s in json.loads(capsys.readouterr().out)["seats"]] == [1]  # a seat named twice: once
    for argv, message in [(["--seat", "2"], "seat 2 does not exist"),
                          (["--budget", "0"], "at least 1"),
                          (["--seed", "-1"], "--seed must be 0 or more")]:
        assert main(["analyse", str(bura_replay), *argv]) == 2
        assert message in capsys.readouterr().err
    tampered = copy.deepcopy(replays.load(bura_replay))
    tampered["actions"][0]["action"] = {"type": "lead", "cards": ["XX"]}
    replays.save(tampered, tmp_path / "tampered.json")
    assert main(["analyse", str(tmp_path / "tampered.json")]) == 2
    assert "action 0" in capsys.readouterr().err


def test_burraco_weighs_the_draw_and_the_discard_and_leaves_the_melds_to_greedy(tmp_path):
    assert main(["play", "burraco-2p", "builtin:greedy", "builtin:random", "--games", "1", "--seed", "2",
                 "--replays", str(tmp_path), "--quiet", "--rule", "target=100"]) == 0
    result = analyse(replays.load(next(tmp_path.iterdir())), [1], budget=1, seed=0)
    kinds = {d["decision"] for d in result["decisions"]}
    assert kinds == {"draw", "play"}
    assert all(d["played"]["type"] in ("draw", "take_pile", "discard", "meld", "add") for d in result["decisions"])
    assert result["seats"][0]["not_searched"] > 0  # the turns where the greedy bot would have melded
