"""The replay viewer's frames: a seat's frame holds exactly what the engine showed that seat, chunks agree
with one long pass, the marks and totals are right, and the endpoint keeps the replay download's access
rule (a validation match's replay is its owner's business)."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from arena import replay_frames
from arena.bots import make_bot
from arena.games import load_game, new_match, resolve
from arena.players import BuiltinPlayer
from arena.referee import play_match as referee_play
from arena.replay_frames import FramesError, frames, number, score_series, side_totals


def local_replay(preset: str, seed: int = 11) -> dict:
    game, rules = resolve(preset)
    seats = new_match(rules, seed).num_seats
    players = [BuiltinPlayer(f"builtin:{name}", make_bot(game, name, s, rules, seed), name=name)
               for s, name in zip(range(seats), ["greedy", "random"] * 3, strict=False)]
    return referee_play(rules, seed, players, preset=preset).replay


def engine(replay: dict):
    return new_match(load_game(replay["game"]).Rules(**replay["rules"]), replay["seed"])


@pytest.fixture(scope="module")
def bura():
    return local_replay("bura")


@pytest.fixture(scope="module")
def burraco():
    return local_replay("burraco-2p")


def all_frames(replay: dict, seat) -> list[dict]:
    out, start = [], 0
    while start <= len(replay["actions"]):
        out += frames(replay, seat, start, replay_frames.MAX_COUNT)["frames"]
        start += replay_frames.MAX_COUNT
    return out


@pytest.mark.parametrize("preset", ["bura", "kozel", "burraco-2p", "kozel-3p", "burkozel-pairs"])
def test_a_seats_frames_hold_exactly_its_observation_and_events(preset):
    replay = local_replay(preset)
    state = engine(replay)
    shown = all_frames(replay, 1)
    assert [f["step"] for f in shown] == list(range(len(replay["actions"]) + 1))
    for k, frame in enumerate(shown):
        if k:
            entry = replay["actions"][k - 1]
            state.apply(entry["seat"], entry["action"])
            assert frame["actor"] == entry["seat"]
        assert frame["views"] == {"1": state.observation(1)}, f"step {k}"
    assert [e for f in shown for e in f["events"]] == state.events(1)
    assert shown[-1]["views"]["1"] != state.observation(0)


def test_everything_holds_every_seats_observation_and_the_full_events(burraco):
    state = engine(burraco)
    shown = all_frames(burraco, None)
    for k in (0, 1, len(shown) // 2):
        probe = engine(burraco)
        for entry in burraco["actions"][:k]:
            probe.apply(entry["seat"], entry["action"])
        assert shown[k]["views"] == {str(s): probe.observation(s) for s in range(probe.num_seats)}
    for entry in burraco["actions"]:
        state.apply(entry["seat"], entry["action"])
    assert [e for f in shown for e in f["events"]] == state.events(None) == burraco["events"]


def test_a_chunk_from_a_snapshot_equals_the_same_frames_of_one_long_pass(burraco, monkeypatch):
    whole = frames(burraco, 0, 0, replay_frames.MAX_COUNT)["frames"]
    monkeypatch.setattr(replay_frames, "SNAPSHOT_EVERY", 50)
    chunk = frames(burraco, 0, 137, 60)
    assert chunk["frames"] == whole[137:197]
    assert "meta" not in chunk and chunk["steps"] == len(burraco["actions"])


def test_the_first_chunk_carries_the_marks_deals_and_totals(bura, burraco):
    meta = frames(bura, None, 0, 5)["meta"]
    steps = len(bura["actions"])
    kinds = {m["kind"] for m in meta["marks"]}
    assert {"deal", "end"} <= kinds
    assert meta["marks"][0] == {"step": 0, "kind": "deal", "label": "deal 1"}
    assert [m["step"] for m in meta["marks"] if m["kind"] == "end"] == [steps]
    assert meta["deals"][0] == {"step": 0, "deal": 1} and len(meta["deals"]) == len(bura["outcome"]["deals"])
    assert [d["totals"] for d in meta["deal_totals"]] == [d["totals"] for d in bura["outcome"]["deals"]]
    last = frames(bura, None, steps, 1)["frames"][0]
    assert last["totals"] == bura["outcome"]["points"]
    burraco_marks = frames(burraco, 0, 0, 1)["meta"]["marks"]
    assert any(m["kind"] == "burraco" for m in burraco_marks)


def test_a_forfeit_is_marked_at_the_last_step(bura):
    forfeited = json.loads(json.dumps(bura))
    forfeited["verdicts"][1] = {**forfeited["verdicts"][1], "verdict": "timeout", "code": "move", "detail": "slow"}
    body = frames(forfeited, None, len(bura["actions"]), 1)
    assert {"kind": "forfeit", "label": "seat 1: timeout"} in body["frames"][0]["marks"]


@pytest.mark.parametrize(("seat", "start", "count", "named"), [
    (2, 0, 10, "seat"), (-1, 0, 10, "seat"), (None, 10_000, 10, "start"), (None, 0, 0, "count"),
    (None, 0, replay_frames.MAX_COUNT + 1, "count")])
def test_it_refuses_frames_the_replay_does_not_have(bura, seat, start, count, named):
    with pytest.raises(FramesError, match=named):
        frames(bura, seat, start, count)


def test_per_seat_totals_become_per_side_totals():
    teams = [[0, 2], [1, 3]]
    assert side_totals({"scores": [2, 4, 2, 4]}, teams, 4) == [2, 4]
    assert side_totals({"totals": [920, 370]}, teams, 4) == [920, 370]
    assert side_totals({"totals": [1, 2, 3]}, [[0], [1], [2]], 3) == [1, 2, 3]
    assert side_totals({"reason": "x"}, teams, 4) is None
    series, labels, kind = score_series(local_replay("kozel"))
    assert len(series) == 2 and labels == ["greedy", "random"] and kind == "penalty"  # one bot a team


# ---------------------------------------------------------------------------------------------- endpoint

@pytest.fixture
def played(house_bots):
    from bots.actions import house_version
    from matches import actions
    from play.tasks import play_match

    made = actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                        versions=[house_version("bura", "greedy"), house_version("bura", "random")],
                                        overrides={"match": "deals:2"})
    for match in made:  # a replay is served once every match of its deal has ended
        assert play_match(match.pk) == "finished"
    match = made[0]
    match.refresh_from_db()
    return match


def test_the_endpoint_serves_chunks_as_json(client, played):
    first = client.get(f"/matches/{played.pk}/frames/", {"seat": "0", "count": "3"})
    assert first.status_code == 200
    body = first.json()
    assert body["seat"] == 0 and [f["step"] for f in body["frames"]] == [0, 1, 2] and "meta" in body
    assert set(body["frames"][0]["views"]) == {"0"}
    later = client.get(f"/matches/{played.pk}/frames/", {"seat": "all", "start": "2", "count": "2"}).json()
    assert [f["step"] for f in later["frames"]] == [2, 3] and "meta" not in later
    assert set(later["frames"][0]["views"]) == {"0", "1"}
    squeezed = client.get(f"/matches/{played.pk}/frames/", {"seat": "all"}, HTTP_ACCEPT_ENCODING="gzip")
    assert squeezed["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(squeezed.content))["frames"][0]["step"] == 0


@pytest.mark.parametrize("query", [{"seat": "7"}, {"seat": "one"}, {"start": "x"}, {"count": "100000"}])
def test_the_endpoint_names_a_bad_parameter(client, played, query):
    answer = client.get(f"/matches/{played.pk}/frames/", query)
    assert answer.status_code == 400
    assert next(iter(query)) in answer.json()["error"]["message"]


def test_a_validation_replay_is_its_owners_only(client, played, alice, bob):
    from bots.models import Bot
    from matches.models import Match

    Match.objects.filter(pk=played.pk).update(kind=Match.Kind.VALIDATION)
    Bot.objects.filter(pk=played.seats.get(seat=0).version.bot_id).update(owner=alice)
    url = f"/matches/{played.pk}/frames/"
    assert client.get(url).status_code == 404
    client.force_login(bob)
    assert client.get(url).status_code == 404
    assert b"replay-viewer" not in client.get(f"/matches/{played.pk}/").content
    client.force_login(alice)
    assert client.get(url).status_code == 200
    assert b"replay-viewer" in client.get(f"/matches/{played.pk}/").content
    assert client.get("/matches/999999/frames/").status_code == 404


def test_the_match_page_draws_the_score_progression(client, played):
    page = client.get(f"/matches/{played.pk}/").content.decode()
    assert "Score progression" in page and '<svg class="chart score-progression"' in page
    assert 'id="replay-viewer"' in page
    chart = page[page.index('<svg class="chart score-progression"'):]
    chart = chart[:chart.index("</svg>")]
    legend = re.findall(r'class="legend">([^<]*)<', chart)
    seats = {s.seat: s for s in played.seats.all()}
    # the sides named by their bots (the replay's labels), each with its final total as an integer
    assert legend == [f"{seats[s].version.label}: {number(seats[s].score)}" for s in sorted(seats)]
    assert "penalty points · lower is better" in chart  # Bura counts penalty points
    assert ">start<" in chart and ">deal 0<" not in chart


def test_a_stored_replay_that_does_not_re_run_is_a_clear_error(client, played):
    from bots import blobs
    from matches.models import Match
    from web.replay_views import cached_replay

    broken = json.loads(json.dumps(cached_replay(played.replay_sha256)))
    broken["actions"][1]["action"] = {"type": "fly"}
    digest = blobs.put("replays", gzip.compress(json.dumps(broken).encode()))
    Match.objects.filter(pk=played.pk).update(replay_sha256=digest)
    answer = client.get(f"/matches/{played.pk}/frames/")
    assert answer.status_code == 500
    assert "cannot be re-run" in answer.json()["error"]["message"]
    assert client.get(f"/matches/{played.pk}/").status_code == 200  # the page itself still opens
