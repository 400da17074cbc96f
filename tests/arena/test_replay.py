"""Replays re-run to the same result; every kind of tampering is rejected with an error naming it."""

from __future__ import annotations

import copy
import json

import pytest

from arena import replay as replays
from arena.games import resolve
from arena.referee import play_match
from tests.arena.conftest import builtin, misbehaving


@pytest.fixture(scope="module")
def recorded():
    _, rules = resolve("bura")
    record = play_match(rules, 21, [builtin("bura", "greedy", 0), builtin("bura", "random", 1)], preset="bura")
    return record.replay


def tampered(replay, change):
    forged = copy.deepcopy(replay)
    change(forged)
    return forged


def test_a_replay_re_runs_to_its_recorded_result(recorded, tmp_path):
    state = replays.rebuild(recorded)
    assert state.outcome() == recorded["outcome"]
    for name in ("r.json", "r.json.gz"):
        replays.save(recorded, tmp_path / name)
        assert replays.load(tmp_path / name) == recorded
    assert (tmp_path / "r.json.gz").stat().st_size < (tmp_path / "r.json").stat().st_size / 3


def _swap_first_deal_card(replay):
    hands = replay["events"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.update(format="chess-pgn"), "not a Kozyr replay"),
    (lambda r: r.update(version=99), "version 99 is not supported"),
    (lambda r: r["rules"].update(deck=52), "replay rules are invalid"),
    (lambda r: r.update(seed=r["seed"] + 1), "differs|illegal"),
    (_swap_first_deal_card, "event 0 differs"),
    (lambda r: r["actions"][0].update(seat=1 - r["actions"][0]["seat"]), "action 0 is recorded for seat"),
    (lambda r: r["actions"][0].update(action={"type": "lead", "cards": ["XX"]}), "action 0 by seat"),
    (lambda r: r["events"].pop(), "events"),
    (lambda r: r["result"].update(ranks=list(reversed(r["result"]["ranks"]))), "recorded ranks"),
    (lambda r: r["result"].update(points=[0, 0]), "recorded points"),
    (lambda r: r["outcome"].update(points=[0, 0]), "recorded outcome"),
    (lambda r: r["verdicts"][0].update(verdict="timeout"), "seat 0 forfeits, but the match was played to its"),
    (lambda r: r.pop("events"), "no 'events' field"),
    (lambda r: r.update(actions="all of them"), "'actions' has the wrong type"),
    (lambda r: r.update(rejected="nothing"), "'rejected' has the wrong type"),
    (lambda r: r.update(preset="kozel"), "preset 'kozel' is a preset of 'kozel'"),
    (lambda r: r["result"].update(preset="burkozel"), "recorded preset"),
    (lambda r: r["result"].update(finished=False, ended_by="decision-limit"), "recorded finished"),
    (lambda r: r["result"].update(deals=99), "recorded deals"),
    (lambda r: r["result"].update(note="forged"), "unknown fields"),
    (lambda r: r["rules"].pop("hand"), "not every option as played"),
    (lambda r: r.update(seed=True), "replay seed True"),
    (lambda r: [a.update(seat=True) for a in r["actions"] if a["seat"] == 1], "recorded for seat True"),
    (lambda r: r.update(verdicts=[1, 2]), "one object per seat"),
    (lambda r: r["seats"].pop(), "one object per seat"),
    (lambda r: [v.update(verdict="crash") for v in r["verdicts"]], "all forfeit"),
    (lambda r: r["verdicts"][0].update(verdict="won"), "unknown verdict 'won'"),
])
def test_a_tampered_replay_is_rejected_naming_what_differs(recorded, change, message):
    with pytest.raises(replays.ReplayError, match=message):
        replays.rebuild(tampered(recorded, change))


def test_a_forfeit_replay_verifies_and_its_rejected_action_must_really_be_illegal():
    _, rules = resolve("bura")
    replay = play_match(rules, 3, [misbehaving("illegal"), builtin("bura", "random", 1)], preset="bura").replay
    state = replays.rebuild(replay)
    a_legal_action = state.legal_actions(state.to_move())[0]
    legal = tampered(replay, lambda r: r["rejected"].update(action=a_legal_action))
    with pytest.raises(replays.ReplayError, match="recorded as rejected is legal"):
        replays.rebuild(legal)
    other_rule = tampered(replay, lambda r: r["rejected"].update(rule="some-other-rule"))
    with pytest.raises(replays.ReplayError, match="breaks rule"):
        replays.rebuild(other_rule)
    for change in (lambda r: r.update(rejected=None), lambda r: r["verdicts"][0].update(verdict="timeout")):
        with pytest.raises(replays.ReplayError, match="verdicts and the recorded rejected action disagree"):
            replays.rebuild(tampered(replay, change))
    with pytest.raises(replays.ReplayError, match="names another rule"):
        replays.rebuild(tampered(replay, lambda r: r["verdicts"][0].update(code="wrong-id")))


def test_only_the_seat_asked_to_move_can_have_forfeited_once_play_began():
    _, rules = resolve("bura")
    stopped = play_match(rules, 8, [builtin("bura", "random", 0), builtin("bura", "random", 1)], preset="bura",
                         max_decisions=7).replay
    waiting = 1 - replays.rebuild(stopped).to_move()
    with pytest.raises(replays.ReplayError, match=f"seat {waiting} forfeits, but seat {1 - waiting} was"):
        replays.rebuild(tampered(stopped, lambda r: r["verdicts"][waiting].update(verdict="crash")))


def test_a_seat_view_shows_only_what_that_seat_was_shown(recorded):
    view = replays.seat_view(recorded, 0)
    decisions = [item for item in view if "observation" in item]
    assert len(decisions) == sum(1 for a in recorded["actions"] if a["seat"] == 0)
    first_deal = view[0]["event"]
    assert first_deal["hands"][0] == recorded["events"][0]["hands"][0]
    assert set(first_deal["hands"][1]) == {"??"}
    text = json.dumps(view)
    assert all(card not in text.split('"hands"')[1][:60] for card in recorded["events"][0]["hands"][1])
    with pytest.raises(replays.ReplayError, match="seat 5 does not exist"):
        replays.seat_view(recorded, 5)


def test_narration_reads_trick_by_trick(recorded):
    lines = replays.narrate(recorded)
    assert lines[0].startswith("bura (bura), seed 21")
    assert any(line.startswith("trick") for line in lines) and lines[-1].startswith("result")
    seat_lines = replays.narrate(recorded, seat=1)
    assert any("seat 1 chose" in line for line in seat_lines)


@pytest.mark.parametrize(("content", "message"), [
    (b"\x1f\x8bnot really gzip", "damaged gzip"),
    (b"{not json", "is not JSON"),
    (b"[1, 2]", "a replay is a JSON object"),
])
def test_unreadable_files_get_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(replays.ReplayError, match=message):
        replays.load(path)


def test_a_small_gzip_that_unpacks_to_gigabytes_is_refused_without_unpacking_it(tmp_path):
    import gzip
    import resource

    path = tmp_path / "bomb.json.gz"
    # 1 GiB of spaces in about 1 MiB: 64 gzip members of 16 MiB each, one after another (a gzip file may hold
    # several, and gzip readers unpack them as one stream), so the bomb is compressed once, not 64 times.
    member = gzip.compress(b" " * (16 << 20), compresslevel=9)
    path.write_bytes(member * 64)
    assert path.stat().st_size < 2 << 20
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(replays.ReplayError, match="larger than 32 MiB unpacked"):
        replays.load(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024  # KiB: far below 1 GiB


@pytest.mark.parametrize("depth", [100, 100_000])
def test_deeply_nested_json_is_a_clear_error_not_a_recursion_error(tmp_path, depth):
    path = tmp_path / "deep.json"
    path.write_text('{"format": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(replays.ReplayError, match=r"nest deeper|not JSON"):
        replays.load(path)


def test_narration_never_prints_control_characters(recorded):
    forged = tampered(recorded, lambda r: r["seats"][0].update(bot="\x1b]52;c;cGF5bG9hZA==\x07evil",
                                                               name="\x1b[2Jname\u202e"))
    forged["verdicts"][1].update(verdict="crash", code="exited", detail="\x1b]0;title\x07 died")
    lines = replays.narrate(forged)
    assert all(ch.isprintable() for line in lines for ch in line)
    assert any("\\x1b]52" in line for line in lines) and any("\\u202e" in line for line in lines)
