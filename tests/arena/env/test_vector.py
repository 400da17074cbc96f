"""The batched environment (arena.env.vector): the matches SyncVectorEnv plays, in worker processes."""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest

pytest.importorskip("gymnasium")

from arena.env import KozyrGymEnv, Snapshot
from arena.env.vector import KozyrVectorEnv, WorkerError

RULES = {"bura": {"match": "deals:1"}, "kozel": {"target": "2"}, "burraco-2p": {"target": "300"}}


def _sync(preset, n):
    return gymnasium.vector.SyncVectorEnv([lambda: KozyrGymEnv(preset, "builtin:greedy", rules=RULES[preset])] * n)


def _actions(rng, masks):
    # A uniform legal index per match; 0 for a match that just ended (its next step starts the next match).
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


@pytest.mark.parametrize(("preset", "workers"), [("bura", 2), ("bura", 0), ("kozel", 2), ("burraco-2p", 2)])
def test_it_plays_what_gymnasiums_sync_vector_env_plays(preset, workers):
    n = 5
    batch = KozyrVectorEnv(preset, n, "builtin:greedy", rules=RULES[preset], workers=workers, infos=True)
    sync = _sync(preset, n)
    try:
        observations, infos = batch.reset(seed=21)
        expected, expected_infos = sync.reset(seed=21)
        rng = np.random.default_rng(3)
        ends = 0
        for _ in range(120):
            for key in ("observation", "action_mask"):
                assert np.array_equal(observations[key], expected[key])
            assert np.array_equal(batch.action_masks(), expected["action_mask"].astype(bool))
            assert sorted(infos) == sorted(expected_infos)
            for key in ("legal_actions", "raw_observation", "outcome"):
                if key in expected_infos:
                    assert np.array_equal(infos[f"_{key}"], expected_infos[f"_{key}"])
                    assert list(infos[key]) == list(expected_infos[key])
            actions = _actions(rng, expected["action_mask"])
            observations, rewards, terminated, truncated, infos = batch.step(actions)
            expected, expected_rewards, expected_terminated, _, expected_infos = sync.step(actions)
            assert np.array_equal(rewards, expected_rewards) and np.array_equal(terminated, expected_terminated)
            assert not truncated.any()
            ends += int(terminated.sum())
        assert ends >= n, "every match should have ended and started again at least once"
    finally:
        batch.close()
        sync.close()


def test_the_number_of_workers_does_not_change_the_matches():
    rng = np.random.default_rng(5)
    batches = [KozyrVectorEnv("bura", 6, "builtin:random", rules=RULES["bura"], workers=w) for w in (0, 1, 3)]
    try:
        firsts = [b.reset(seed=8)[0] for b in batches]
        for _ in range(60):
            for other in firsts[1:]:
                assert np.array_equal(other["observation"], firsts[0]["observation"])
            actions = _actions(rng, firsts[0]["action_mask"])
            steps = [b.step(actions) for b in batches]
            firsts = [s[0] for s in steps]
            for other in steps[1:]:
                assert np.array_equal(other[1], steps[0][1]) and np.array_equal(other[2], steps[0][2])
    finally:
        for b in batches:
            b.close()


def test_make_vec_builds_it_and_infos_are_off_unless_asked():
    batch = gymnasium.make_vec("kozyr/bura-v0", num_envs=3, workers=0, rules={"match": "deals:1"})
    assert isinstance(batch, KozyrVectorEnv)
    observations, infos = batch.reset(seed=1)
    assert observations["observation"].shape == (3, 345) and observations["action_mask"].shape == (3, 35)
    assert infos == {}
    batch.close()


def test_misuse_is_refused_with_clear_errors():
    with pytest.raises(ValueError, match="num_envs"):
        KozyrVectorEnv("bura", 0)
    with pytest.raises(ValueError, match="workers"):
        KozyrVectorEnv("bura", 2, workers=3)
    with pytest.raises(ValueError, match="opponent"):
        KozyrVectorEnv("bura", 2, "greedy", workers=0)
    batch = KozyrVectorEnv("bura", 2, "builtin:random", workers=1)
    batch.reset(seed=1)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        batch.step([0, 0, 0])
    batch.close()
    with pytest.raises(RuntimeError, match="closed"):
        batch.step([0, 0])


def test_an_error_in_a_worker_names_its_cause():
    forbidden = Snapshot(lambda observation: int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    batch = KozyrVectorEnv("bura", 2, forbidden, seat=1, workers=2)
    try:
        with pytest.raises(WorkerError, match="seat 0 chose"):
            batch.reset(seed=2)
    finally:
        batch.close()
    assert all(not p.is_alive() for p in batch._processes) and batch._pipes == []


def test_an_error_in_this_process_share_leaves_the_workers_in_step():
    # Matches 0-1 are this process's, 2-3 the worker's. This process's error is raised after the worker's answer
    # was read, so the next command reads its own answer, not the failed one's.
    batch = KozyrVectorEnv("bura", 4, "builtin:random", workers=1, rules={"match": "deals:1"})
    try:
        assert len(batch._local.envs) == 2 and batch._slices == [slice(2, 4)]
        observations, _ = batch.reset(seed=2)

        def broken(action):
            raise ValueError("this process's match failed")

        batch._local.envs[0]._play = broken
        with pytest.raises(ValueError, match="this process's match failed"):
            batch.step(np.argmax(observations["action_mask"], axis=1))
        assert batch.action_masks().shape == (4, 35)
    finally:
        batch.close()
    assert all(not p.is_alive() for p in batch._processes) and batch._pipes == []


def test_opponents_given_as_objects_play_only_in_the_workers():
    # The workers play copies taken at the fork; a match in this process would play the live object.
    batch = KozyrVectorEnv("bura", 4, Snapshot(lambda o: int(np.flatnonzero(o["action_mask"])[0])), workers=1)
    try:
        assert batch._local.envs == [] and batch._slices == [slice(0, 4)]
        observations, _ = batch.reset(seed=2)
        assert observations["action_mask"].any(axis=1).all()
    finally:
        batch.close()


def test_every_process_steps_a_share_and_workers_poll_only_on_free_cores():
    batch = KozyrVectorEnv("bura", 5, "builtin:random", workers=2, rules={"match": "deals:1"})
    try:
        shares = [len(batch._local.envs)] + [part.stop - part.start for part in batch._slices]
        assert shares == [1, 2, 2] and sum(shares) == 5
        observations, _ = batch.reset(seed=3)
        assert observations["action_mask"].any(axis=1).all()  # every row written, this process's included
        assert batch.spin == (0.002 if (os.cpu_count() or 1) >= 3 else 0.0)
    finally:
        batch.close()
    crowded = KozyrVectorEnv("bura", 8, "builtin:random", workers=os.cpu_count() or 1)  # more processes than cores
    assert crowded.spin == 0.0
    crowded.close()
    with pytest.raises(ValueError, match="spin"):
        KozyrVectorEnv("bura", 2, workers=1, spin=-1)


def test_only_environments_of_the_same_rules_share_encoder_tables():
    from arena.env import raw_env

    bura, other_bura, kozel = raw_env("bura"), raw_env("bura"), raw_env("kozel")
    other_bura.share_tables(bura)
    assert other_bura.encoder is bura.encoder
    with pytest.raises(ValueError, match="same rules"):
        kozel.share_tables(bura)
    with pytest.raises(ValueError, match="same rules"):
        raw_env("bura", rules={"match": "deals:1"}).share_tables(bura)


@pytest.mark.parametrize("workers", [0, 2])
def test_same_step_autoreset_plays_what_sync_vector_env_plays_in_that_mode(workers):
    n = 4
    batch = KozyrVectorEnv("bura", n, "builtin:greedy", rules=RULES["bura"], workers=workers, infos=True,
                           autoreset_mode="SameStep")
    sync = gymnasium.vector.SyncVectorEnv(
        [lambda: KozyrGymEnv("bura", "builtin:greedy", rules=RULES["bura"])] * n,
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    assert batch.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    try:
        observations, _ = batch.reset(seed=4)
        expected, _ = sync.reset(seed=4)
        rng = np.random.default_rng(9)
        ends = 0
        for _ in range(80):
            assert np.array_equal(observations["observation"], expected["observation"])
            # SameStep: every row is a live position, so every mask has a legal action
            assert expected["action_mask"].any(axis=1).all() and np.array_equal(
                batch.action_masks(), expected["action_mask"].astype(bool))
            actions = _actions(rng, expected["action_mask"])
            observations, rewards, terminated, _, infos = batch.step(actions)
            expected, expected_rewards, expected_terminated, _, expected_infos = sync.step(actions)
            assert np.array_equal(rewards, expected_rewards) and np.array_equal(terminated, expected_terminated)
            assert ("final_obs" in infos) == ("final_obs" in expected_infos) == bool(terminated.any())
            if terminated.any():
                assert np.array_equal(infos["_final_obs"], expected_infos["_final_obs"])
                assert np.array_equal(infos["_final_info"], expected_infos["_final_info"])
                for i in np.flatnonzero(terminated):
                    for key in ("observation", "action_mask"):
                        assert np.array_equal(infos["final_obs"][i][key], expected_infos["final_obs"][i][key])
                    assert not infos["final_obs"][i]["action_mask"].any()  # the match was over
                    assert infos["final_info"]["outcome"][i] == expected_infos["final_info"]["outcome"][i]
                ends += int(terminated.sum())
        assert ends >= n
    finally:
        batch.close()
        sync.close()


def test_same_step_gives_final_observations_without_infos_and_refuses_other_modes():
    batch = KozyrVectorEnv("bura", 3, "builtin:random", rules=RULES["bura"], workers=1, autoreset_mode="SameStep")
    try:
        observations, _ = batch.reset(seed=1)
        rng = np.random.default_rng(2)
        for _ in range(60):
            observations, _, terminated, _, infos = batch.step(_actions(rng, observations["action_mask"]))
            assert observations["action_mask"].any(axis=1).all()
            assert sorted(infos) == (["_final_obs", "final_obs"] if terminated.any() else [])
            if terminated.any():
                assert list(np.flatnonzero(infos["_final_obs"])) == list(np.flatnonzero(terminated))
                assert [infos["final_obs"][i] is None for i in range(3)] == list(~terminated)
    finally:
        batch.close()
    with pytest.raises(ValueError, match="autoreset_mode is one of NextStep, SameStep"):
        KozyrVectorEnv("bura", 2, workers=0, autoreset_mode="Disabled")
