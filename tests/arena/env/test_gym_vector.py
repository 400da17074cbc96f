"""Gymnasium's own vector environments over KozyrGymEnv: each sub-environment plays as it would alone."""

from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest

pytest.importorskip("gymnasium")

from arena.env import KozyrGymEnv
from arena.env.infos import Record

RULES = {"bura": {"match": "deals:1"}, "burkozel-pairs": {"match": "deals:1"}, "kozel": {"target": "2"},
         "burraco-2p": {"target": "300"}}


def _make(preset):
    return lambda: KozyrGymEnv(preset, "builtin:random", rules=RULES[preset])


def _first_legal(masks):
    # A terminated sub-environment shows an all-zero mask; its next action is ignored (it resets).
    return np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])


@pytest.mark.parametrize("vector_class", [gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv])
@pytest.mark.parametrize("preset", list(RULES))
def test_each_sub_environment_plays_as_it_would_alone(vector_class, preset):
    vector = vector_class([_make(preset), _make(preset)])
    alone = [_make(preset)(), _make(preset)()]
    try:
        observations, infos = vector.reset(seed=10)
        singles = [env.reset(seed=10 + i) for i, env in enumerate(alone)]  # the vector env seeds 10, 11
        finished = [False, False]
        for _ in range(400):
            for i, (observation, info) in enumerate(singles):
                if finished[i]:
                    continue
                assert np.array_equal(observations["observation"][i], observation["observation"])
                assert np.array_equal(observations["action_mask"][i], observation["action_mask"])
                if "legal_actions" in info:
                    assert isinstance(infos["legal_actions"][i], Record)
                    assert infos["legal_actions"][i] == info["legal_actions"]
                    assert infos["raw_observation"][i] == info["raw_observation"]
            actions = _first_legal(observations["action_mask"])
            observations, rewards, terminated, _, infos = vector.step(actions)
            for i, env in enumerate(alone):
                if finished[i]:
                    continue
                observation, reward, done, _, info = env.step(int(actions[i]))
                singles[i] = (observation, info)
                assert rewards[i] == reward and terminated[i] == done
                if done:
                    finished[i] = True
                    assert infos["outcome"][i] == info["outcome"]
            if all(finished):
                break
        assert all(finished), "both episodes should end within 400 steps"
        # A finished sub-environment starts its next episode by itself and keeps going.
        just_ended = [i for i in range(2) if not observations["action_mask"][i].any()]
        assert just_ended
        observations, _, _, _, infos = vector.step(_first_legal(observations["action_mask"]))
        for i in just_ended:
            assert observations["action_mask"][i].any() and "legal_actions" in infos and infos["_legal_actions"][i]
    finally:
        vector.close()


def test_a_record_reads_like_the_dict_it_holds_and_pickles():
    record = Record({"hand": ["AS"], "trick": None})
    assert record == {"hand": ["AS"], "trick": None} and record["hand"] == ["AS"] and "trick" in record
    assert pickle.loads(pickle.dumps(record)) == record
    assert record.to_dict() == {"hand": ["AS"], "trick": None} and type(record.to_dict()) is dict
    assert not isinstance(record, dict)  # what keeps Gymnasium's _add_info from merging it key by key
    with pytest.raises(TypeError):
        record["hand"] = []  # type: ignore[index]
