"""What the RL libraries look for on the Gymnasium env: action_masks(), gym.make ids, self-play snapshots."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env

from arena.env import KozyrGymEnv, Snapshot, raw_env
from arena.env.registration import env_id
from arena.games import all_presets

PRESETS = list(all_presets())


@pytest.mark.parametrize("preset", ["bura", "burkozel-pairs", "kozel-3p", "burraco-2p"])
def test_action_masks_is_the_observed_mask_and_empty_once_over(preset):
    gym = KozyrGymEnv(preset, "builtin:random", rules={"target": "300"} if preset.startswith("burraco") else None)
    observation, _ = gym.reset(seed=4)
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done and steps < 300:
        masks = gym.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (gym.action_space.n,)
        assert np.array_equal(masks, observation["action_mask"].astype(bool)) and masks.any()
        observation, _, done, _, _ = gym.step(int(rng.choice(np.flatnonzero(masks))))
        steps += 1
    if done:
        assert not gym.action_masks().any()
        with pytest.raises(RuntimeError, match="reset"):
            gym.step(0)


def test_a_forfeited_episode_cannot_be_played_on():
    gym = KozyrGymEnv("bura", "builtin:random", seat=0)
    observation, _ = gym.reset(seed=1)
    _, reward, terminated, _, _ = gym.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    assert (reward, terminated) == (-1.0, True) and not gym.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        gym.step(int(np.flatnonzero(observation["action_mask"])[0]))
    with pytest.raises(ValueError, match="index"):
        gym.reset(seed=2)
        gym.step("claim")


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_has_a_gymnasium_id(preset):
    env = gymnasium.make(env_id(preset), opponents="builtin:random")
    assert env.spec.id == f"kozyr/{preset}-v0" and env.unwrapped.preset == preset
    observation, _ = env.reset(seed=3)
    assert env.unwrapped.action_masks().any() and observation["action_mask"].any()
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_the_module_prefix_registers_the_ids_in_a_fresh_interpreter():
    code = ("import gymnasium; e = gymnasium.make('arena.env:kozyr/kozel-v0', rules={'target': '2'}); "
            "o, _ = e.reset(seed=1); print(e.unwrapped.preset, int(o['action_mask'].sum()) > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["kozel", "True"]


@pytest.mark.parametrize("preset", ["bura", "kozel", "burraco-2p"])
def test_a_snapshot_plays_a_seat_from_its_own_encoded_view(preset):
    seen = []

    def last_legal(observation):
        seen.append(observation)
        return int(np.flatnonzero(observation["action_mask"])[-1])

    gym = KozyrGymEnv(preset, Snapshot(last_legal), seat=0,
                      rules={"match": "deals:1"} if preset == "bura" else {"target": "300"} if preset != "kozel"
                      else {"target": "2"})
    observation, _ = gym.reset(seed=5)
    encoder = gym.aec.encoder
    done, steps = False, 0
    while not done and steps < 4000:
        observation, _, done, _, _ = gym.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1
    assert seen, "the snapshot was asked to play"
    for asked in seen:
        assert asked["observation"].shape == (encoder.size,) and asked["observation"].dtype == np.float32
        assert asked["action_mask"].shape == (encoder.actions,) and asked["action_mask"].any()
    # The same match in the AEC environment, seat 0 playing its first legal index and the others their
    # last: the snapshot was shown exactly what the AEC environment shows those seats.
    aec = raw_env(preset, rules=gym.aec.overrides)
    aec.reset(seed=5)
    expected = []
    while not aec.state.is_over():
        observation = aec.observe(aec.agent_selection)
        legal = np.flatnonzero(observation["action_mask"])
        if aec.agent_selection != "seat_0":
            expected.append(observation)
        aec.step(int(legal[0] if aec.agent_selection == "seat_0" else legal[-1]))
    assert len(expected) == len(seen) and aec.state.events(None) == gym.aec.state.events(None)
    for asked, wanted in zip(seen, expected, strict=True):
        assert np.array_equal(asked["observation"], wanted["observation"])
        assert np.array_equal(asked["action_mask"], wanted["action_mask"])


def test_a_snapshot_choosing_a_forbidden_index_is_an_error_naming_the_seat():
    gym = KozyrGymEnv("bura", Snapshot(lambda observation: int(np.flatnonzero(observation["action_mask"] == 0)[0])),
                      seat=1, rules={"match": "deals:1"})
    with pytest.raises(ValueError, match=r"seat 0 chose .* forbids"):
        gym.reset(seed=2)  # seat 0 leads first
    with pytest.raises(TypeError, match="function"):
        Snapshot("builtin:greedy")  # type: ignore[arg-type]


@pytest.mark.parametrize(("opponent", "message"), [("greedy", "neither 'builtin:NAME' nor an existing bot"),
                                                   ("builtin:nobody", "unknown built-in bot 'nobody'"),
                                                   (42, "an opponent is")])
def test_an_opponent_that_could_not_play_is_refused_when_the_env_is_made(opponent, message):
    with pytest.raises(ValueError, match=message):
        KozyrGymEnv("bura", opponent)
