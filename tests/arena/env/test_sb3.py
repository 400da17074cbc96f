"""The batched environment as a Stable-Baselines3 vector environment (arena.env.sb3)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the SB3 adapter needs the train extra: pip install -e '.[train]'")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from arena.env import KozyrGymEnv
from arena.env.sb3 import KozyrSB3VecEnv

RULES = {"match": "deals:1"}


class _VectorOnly(gymnasium.ObservationWrapper):
    """What SB3 users wrap a single KozyrGymEnv in: the vector as the observation, the mask by action_masks()."""

    def __init__(self, env):
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation):
        return observation["observation"]

    def action_masks(self):
        return self.env.action_masks()


@pytest.mark.parametrize("workers", [0, 1])
def test_it_plays_what_dummy_vec_env_over_single_environments_plays(workers):
    n = 4
    batch = KozyrSB3VecEnv("bura", n, "builtin:greedy", rules=RULES, workers=workers)
    dummy = DummyVecEnv([lambda: _VectorOnly(KozyrGymEnv("bura", "builtin:greedy", rules=RULES))] * n)
    try:
        assert batch.observation_space == dummy.observation_space and batch.action_space == dummy.action_space
        batch.seed(30)
        dummy.seed(30)
        observations, expected = batch.reset(), dummy.reset()
        rng = np.random.default_rng(1)
        ends = 0
        for _ in range(100):
            assert np.array_equal(observations, expected)
            masks = get_action_masks(batch)
            assert np.array_equal(masks, get_action_masks(dummy)) and masks.any(axis=1).all()
            actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
            observations, rewards, dones, infos = batch.step(actions)
            expected, expected_rewards, expected_dones, expected_infos = dummy.step(actions)
            assert np.array_equal(rewards, expected_rewards) and np.array_equal(dones, expected_dones)
            assert rewards.dtype == expected_rewards.dtype and dones.dtype == expected_dones.dtype
            for i in range(n):
                if dones[i]:
                    assert np.array_equal(infos[i]["terminal_observation"], expected_infos[i]["terminal_observation"])
                    assert infos[i]["TimeLimit.truncated"] is expected_infos[i]["TimeLimit.truncated"] is False
                else:
                    assert infos[i] == {}
            ends += int(dones.sum())
        assert ends >= n
    finally:
        batch.close()
        dummy.close()


def test_maskable_ppo_learns_on_it_and_only_plays_legal_actions():
    env = VecMonitor(KozyrSB3VecEnv("bura", 4, "builtin:random", rules=RULES, workers=1))
    try:
        assert is_masking_supported(env)
        model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=3)
        model.learn(128)  # one rollout of 4 x 32 decisions, and its update
        assert model.num_timesteps == 128
        assert len(model.ep_info_buffer) > 0  # whole matches were played, and counted by VecMonitor
        # The last rollout: every action the learner took was legal under the mask the env gave for it.
        buffer = model.rollout_buffer
        actions = buffer.actions.reshape(-1).astype(int)
        masks = buffer.action_masks.reshape(len(actions), -1)
        assert masks.any(axis=1).all() and masks[np.arange(len(actions)), actions].all()
        observations = env.reset()
        actions, _ = model.predict(observations, action_masks=get_action_masks(env), deterministic=True)
        assert get_action_masks(env)[np.arange(4), actions].all()
    finally:
        env.close()


def test_what_it_cannot_do_is_refused_by_name():
    with pytest.raises(ValueError, match="sets infos itself"):
        KozyrSB3VecEnv("bura", 2, infos=True)
    with pytest.raises(ValueError, match="autoreset_mode"):
        KozyrSB3VecEnv("bura", 2, autoreset_mode="NextStep")
    env = KozyrSB3VecEnv("bura", 2, "builtin:random", rules=RULES, workers=0)
    try:
        assert env.get_attr("preset") == ["bura", "bura"] and env.get_attr("render_mode", indices=[1]) == [None]
        assert env.env_is_wrapped(VecMonitor) == [False, False]
        with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
            env.get_attr("nonsense")
        with pytest.raises(AttributeError, match="cannot set 'preset'"):
            env.set_attr("preset", "kozel")
        with pytest.raises(AttributeError, match="only action_masks"):
            env.env_method("render")
        with pytest.raises(RuntimeError, match="step_async"):
            env.step_wait()
        env.set_options([{"game": 1}, {"game": 2}])
        with pytest.raises(ValueError, match="one set of reset options"):
            env.reset()
        env.set_options({"game": 1})
        env.seed(5)
        first = env.reset()
        env.set_options({"game": 1})
        env.seed(5)
        assert np.array_equal(env.reset(), first)
    finally:
        env.close()
