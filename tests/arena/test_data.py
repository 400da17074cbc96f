"""arena.data: replays become per-seat trajectories exactly as the environments give them, and a replay that
does not re-run is refused by name."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from arena import data
from arena.env.aec import RawEnv
from arena.replay import load as load_replay
from arena.replay import save


def play_env(preset: str, seed: int, folder: Path) -> tuple[dict[int, list], Path]:
    """One episode of the AEC environment with seeded random legal moves: per seat, (vector, mask, index) of
    each of its decisions and its final reward; and the replay it wrote."""
    env = RawEnv(preset, rules={"match": "deals:1"} if preset.startswith("bura") else None, replay_dir=folder)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen: dict[int, list] = {}
    while not all(env.terminations.values()):
        agent = env.agent_selection
        observed = env.observe(agent)
        legal = np.flatnonzero(observed["action_mask"])
        index = int(rng.choice(legal))
        raw = json.loads(json.dumps(env.infos[agent]["raw_observation"]))
        seen.setdefault(env._seat_of[agent], []).append((observed["observation"], observed["action_mask"], index, raw,
                                                         sorted(env.infos[agent]["legal_actions"].items())))
        env.step(index)
    rewards = {env._seat_of[a]: r for a, r in env._cumulative_rewards.items()}
    assert env.last_replay is not None
    return {seat: (steps, rewards[seat]) for seat, steps in seen.items()}, env.last_replay


@pytest.mark.parametrize("preset", ["bura", "bura-3p", "kozel", "burraco-2p"])
def test_it_gives_each_seat_the_observations_masks_and_actions_the_environment_gave(preset, tmp_path):
    seen, path = play_env(preset, 11, tmp_path)
    found = list(data.load(path, raw=True))
    assert [t.seat for t in found] == sorted(seen)
    for trajectory in found:
        steps, reward = seen[trajectory.seat]
        assert len(trajectory) == len(steps)
        assert np.array_equal(trajectory.observations, np.stack([s[0] for s in steps]))
        assert np.array_equal(trajectory.action_masks, np.stack([s[1] for s in steps]))
        assert trajectory.actions.tolist() == [s[2] for s in steps]
        assert trajectory.raw_observations == [s[3] for s in steps]
        assert [sorted(moves) for moves in trajectory.legal_moves] == [s[4] for s in steps]
        assert trajectory.reward == reward and trajectory.rewards[-1] == reward
        assert not trajectory.rewards[:-1].any()
        assert trajectory.observations.dtype == np.float32 and trajectory.preset == preset


def write_dump(path: Path, replay_files: list[Path]) -> None:
    """A dump as the site writes it: each stored replay's own gzip member, then a member with a newline."""
    with open(path, "wb") as out:
        for replay in replay_files:
            out.write(gzip.compress(json.dumps(load_replay(replay), separators=(",", ":")).encode(), mtime=0))
            out.write(gzip.compress(b"\n", mtime=0))


def test_it_reads_a_dump_line_by_line_and_keeps_the_seats_of_the_bots_asked_for(tmp_path):
    files = [play_env("bura", seed, tmp_path / str(seed))[1] for seed in (1, 2, 3)]
    for i, path in enumerate(files):  # name the seats as the site does
        replay = load_replay(path)
        replay["seats"][0]["bot"], replay["seats"][1]["bot"] = "top-bot@v2", f"other-{i}@v1"
        save(replay, path)
    dump = tmp_path / "kozyr-bura-2026-11.jsonl.gz"
    write_dump(dump, files)
    everything = list(data.load(dump))
    assert [(t.source, t.seat) for t in everything] == [(f"{dump}:{line}", seat) for line in (1, 2, 3)
                                                         for seat in (0, 1)]
    top = list(data.load(dump, bots={"top-bot"}))
    assert [t.source for t in top] == [f"{dump}:{line}" for line in (1, 2, 3)] and {t.bot for t in top} == {
        "top-bot@v2"}
    assert [t.bot for t in data.load(dump, bots={"other-1@v1"})] == ["other-1@v1"]


def test_a_replay_that_does_not_re_run_is_refused_and_named(tmp_path):
    files = [play_env("bura", seed, tmp_path / str(seed))[1] for seed in (4, 5)]
    tampered = load_replay(files[1])
    tampered["events"][0] = {**tampered["events"][0], "trump": "AS" if tampered["events"][0].get("trump") != "AS"
                             else "KS"}
    save(tampered, files[1])
    dump = tmp_path / "dump.jsonl.gz"
    write_dump(dump, files)
    with pytest.raises(data.RefusedReplay) as refused:
        list(data.load(dump))
    assert refused.value.source == f"{dump}:2" and "does not re-run" in str(refused.value)
    assert "event 0 differs" in str(refused.value)
    skipped: list[data.RefusedReplay] = []
    kept = list(data.load(dump, skip_refused=True, refused=skipped))
    assert {t.source for t in kept} == {f"{dump}:1"} and [r.source for r in skipped] == [f"{dump}:2"]


def test_a_damaged_line_or_file_is_refused_by_name(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"format": "kozyr-replay"}\nnot json\n')
    with pytest.raises(data.RefusedReplay) as refused:
        list(data.load(bad))
    assert refused.value.source == f"{bad}:1" and "re-run" in refused.value.reason
    bad.write_bytes(b"[1, 2]\n")
    with pytest.raises(data.RefusedReplay, match="is not a replay"):
        list(data.load(bad))
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(gzip.compress(b'{"a": 1}\n' * 1000)[:60])
    with pytest.raises(data.RefusedReplay, match="damaged"):
        list(data.load(truncated))
    with pytest.raises(data.RefusedReplay, match="no such file"):
        list(data.load(tmp_path / "missing.json.gz"))


def test_an_action_spelt_in_another_order_finds_its_index():
    moves = [(7, {"type": "respond", "cards": ["AS", "KS"], "face_down": ["KS"]})]
    assert data._index_of(moves, {"face_down": ["KS"], "cards": ["KS", "AS"], "type": "respond"}) == 7
    assert data._index_of(moves, {"type": "respond", "cards": ["AS"]}) is None
