"""arena.replay_frames: one frame per position of a replay of each game family, the last one at the result's
points, and a seat's frames never holding a card another seat holds unseen."""

from __future__ import annotations

import re

import pytest

from arena.bots import make_bot
from arena.games import load_game, new_match, resolve
from arena.players import BuiltinPlayer
from arena.referee import play_match
from arena.replay_frames import ReplayRun, frames, made_a_burraco, mark_of, summarize

PRESETS = ["bura", "kozel", "burraco-2p", "burkozel-pairs"]  # each family, and a game of teams
CARD = re.compile(r"^(?:[AKQJT98765432][SHDC]|X)$")


def small_replay(preset: str, seed: int = 7) -> dict:
    game, rules = resolve(preset, {"target": 500} if preset.startswith("burraco") else None)
    seats = new_match(rules, seed).num_seats
    players = [BuiltinPlayer(f"builtin:{name}", make_bot(game, name, s, rules, seed), name=name)
               for s, name in zip(range(seats), ["greedy", "random"] * 2, strict=False)]
    return play_match(rules, seed, players, preset=preset).replay


@pytest.fixture(scope="module", params=PRESETS)
def replay(request) -> dict:
    return small_replay(request.param)


def cards_in(value) -> set[str]:
    """Every card named anywhere in a frame: in its fields, and in its readable lines."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    if isinstance(value, str):
        return {word for word in re.split(r"[^0-9A-Za-z]+", value) if CARD.match(word)}
    return set()


def test_it_makes_one_frame_per_position(replay):
    run = ReplayRun(replay)
    steps = len(replay["actions"])
    shown = list(run.frames(None, 0, run.steps))
    assert run.steps == steps and len(shown) == steps + 1
    assert [f["step"] for f in shown] == list(range(steps + 1))
    assert [f["actor"] for f in shown] == [None] + [entry["seat"] for entry in replay["actions"]]
    assert [f["to_move"] for f in shown[:-1]] == [entry["seat"] for entry in replay["actions"]]
    assert shown[-1]["to_move"] is None  # played to its end
    assert [e for f in shown for e in f["events"]] == replay["events"]


def test_the_last_frame_holds_the_results_points(replay):
    result = replay["result"]
    teams = result["teams"]
    last = frames(replay, None, len(replay["actions"]), 1)["frames"][0]
    assert last["totals"] == [result["points"][team[0]] for team in teams]
    meta = frames(replay, 0, 0, 1)["meta"]
    assert meta["result"] == {k: result[k] for k in ("ranks", "points", "ended_by", "finished")}
    assert meta["steps"] == len(replay["actions"]) and meta["teams"] == teams
    assert [m["step"] for m in meta["marks"] if m["kind"] == "end"] == [len(replay["actions"])]
    assert len([m for m in meta["marks"] if m["kind"] == "deal"]) == result["deals"]


def test_a_seats_frames_never_hold_a_card_it_may_not_see(replay):
    """Every card in seat s's frame at step k is in the engine's observation(s) then or in an event the
    engine showed s in that step; at the deal, another seat's hand is not in s's frame (but is in all's)."""
    run = ReplayRun(replay)
    everything = next(run.frames(None, 0, 0))
    for seat in range(run.seats):
        state = new_match(load_game(replay["game"]).Rules(**replay["rules"]), replay["seed"])
        shown = list(run.frames(seat, 0, run.steps))
        logged = 0
        for k, frame in enumerate(shown):
            before = cards_in(state.observation(seat))  # a deal's end (its "ending") is the table before the step
            if k:
                entry = replay["actions"][k - 1]
                state.apply(entry["seat"], entry["action"])
            assert set(frame["views"]) == {str(seat)}, f"step {k}"
            seen = state.events(seat, logged)
            logged += len(seen)
            allowed = cards_in(state.observation(seat)) | cards_in(seen) | (before if "ending" in frame else set())
            assert cards_in(frame) <= allowed, f"seat {seat}, step {k}: {cards_in(frame) - allowed}"
        mine = set(shown[0]["views"][str(seat)]["hand"])
        for other in range(run.seats):
            if other != seat:
                theirs = set(everything["views"][str(other)]["hand"]) - mine
                assert theirs and theirs <= cards_in(everything)
                assert not theirs & cards_in(shown[0]), f"seat {seat} sees seat {other}'s hand"


def test_hidden_cards_are_said_in_words():
    assert summarize({"type": "play", "seat": 1, "lead": False, "cards": ["??", "??"], "face_down": True}) == \
        "seat 1 plays 2 hidden cards face down"
    assert summarize({"type": "draw", "seat": 0, "card": "??", "stock": 40}) == \
        "seat 0 draws a hidden card from the stock"
    assert summarize({"type": "play", "seat": 2, "card": "TH"}) == "seat 2 plays TH"


def test_a_burraco_is_marked_when_the_meld_reaches_seven_cards():
    made = {"type": "add", "seat": 1, "cards": ["9H"],
            "meld": {"id": 3, "cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H"], "burraco": True, "clean": True}}
    grown = {**made, "meld": {**made["meld"], "cards": [*made["meld"]["cards"], "TH"]}, "cards": ["TH"]}
    assert made_a_burraco(made) and mark_of(made) == {"kind": "burraco", "label": "seat 1: clean burraco"}
    assert not made_a_burraco(grown) and mark_of(grown) is None


def test_every_line_names_what_was_played_never_none(replay):
    # A Kozel soloist discards two cards ("cards"), Burraco one ("card"): both read as cards, never "None".
    run = ReplayRun(replay)
    texts = [frame["text"] for frame in run.frames(None, 0, run.steps)]
    assert texts and not [text for text in texts if "None" in text]


def test_a_kozel_discard_of_two_cards_names_both():
    line = summarize({"type": "discard", "seat": 1, "cards": ["AS", "KH"]})
    assert line.endswith("discards AS KH"), line


def test_deals_are_numbered_from_one_in_every_game(replay):
    """Bura counts its deals from 1, Kozel and Burraco from 0: the frames say "deal 1" for the first in all."""
    run = ReplayRun(replay)
    meta = run.meta(None)
    dealt = len(replay["outcome"]["deals"])
    assert [d["deal"] for d in meta["deals"]] == list(range(1, len(meta["deals"]) + 1))
    assert [d["deal"] for d in meta["deal_totals"]] == list(range(1, dealt + 1))
    assert [m["label"] for m in meta["marks"] if m["kind"] == "deal"] == [f"deal {n}" for n in
                                                                         range(1, len(meta["deals"]) + 1)]
    shown = list(run.frames(None, 0, run.steps))
    assert shown[0]["deal"] == 1 and shown[0]["text"].startswith("deal 1 dealt by seat ")
    assert sorted({f["deal"] for f in shown}) == list(range(1, len(meta["deals"]) + 1))
    said = [int(n) for f in shown for n in re.findall(r"\bdeal (\d+) (?:dealt|ends)", f["text"])]
    assert said and min(said) == 1 and max(said) == len(meta["deals"])
    for seat in range(run.seats):  # a seat's frames number the deals as "all" does
        assert [f["deal"] for f in run.frames(seat, 0, run.steps)] == [f["deal"] for f in shown]


def test_sides_are_named_by_their_bots_not_their_seats(replay):
    from arena.replay_frames import seat_bots, side_labels

    bots = [entry["bot"].removeprefix("builtin:") for entry in replay["seats"]]
    assert seat_bots(replay) == bots
    labels = side_labels(replay)
    teams = replay["result"]["teams"]
    assert labels == [" + ".join(dict.fromkeys(bots[s] for s in team)) for team in teams]
    assert not any(re.search(r"\(\d|seat", label) for label in labels), labels
    assert ReplayRun(replay).meta(None)["sides"] == labels and ReplayRun(replay).meta(0)["bots"] == bots


def test_a_bot_against_itself_is_told_apart_by_its_seats():
    from arena.replay_frames import side_labels

    on_the_site = {"seats": [{"seat": 0, "bot": "alice-bura@v3", "name": "mybot"},
                             {"seat": 1, "bot": "bob-bura@v1", "name": "mybot"}]}
    assert side_labels(on_the_site) == ["alice-bura@v3", "bob-bura@v1"]  # the label, not the name it gave
    itself = {"seats": [{"seat": s, "bot": "builtin:greedy", "name": "greedy"} for s in range(4)],
              "outcome": {"teams": [[0, 2], [1, 3]]}}
    assert side_labels(itself) == ["greedy (seats 0+2)", "greedy (seats 1+3)"]


def test_numbers_read_as_integers_where_they_are_integers():
    from arena.replay_frames import number

    assert [number(12.0), number(2.5), number(1 / 3), number(-0.0), number(7), number("x")] == \
        ["12", "2.5", "0.33", "0", "7", "x"]
    assert summarize({"type": "trick", "taker": 3, "points": 10.0}) == "seat 3 takes the trick, 10 points"
    assert summarize({"type": "claim", "seat": 1, "target": 31.0, "points": 33.0, "correct": True}) == \
        "seat 1 claims 31: 33 points, right"
    assert summarize({"type": "match_end", "ranks": [2, 1]}) == "the match ends"  # no raw arrays
    assert summarize({"type": "deal", "deal": 0, "dealer": 1}, deal=1) == "deal 1 dealt by seat 1"
