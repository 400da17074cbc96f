"""The Parallel form: PettingZoo's parallel_api_test, one actor per step, the AEC environment's match."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import parallel_api_test
from pettingzoo.utils import turn_based_aec_to_parallel

from arena.env import env, parallel_env, raw_env
from arena.games import all_presets

PRESETS = list(all_presets())


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("preset", PRESETS)
def test_it_passes_pettingzoo_parallel_api_test(preset):
    parallel_api_test(parallel_env(preset), num_cycles=1000)


def test_pettingzoos_own_turn_based_wrapper_accepts_the_aec_environment_too():
    parallel_api_test(turn_based_aec_to_parallel(env("burkozel-pairs")), num_cycles=300)


@pytest.mark.parametrize("preset", ["burkozel-pairs", "kozel-3p", "burraco-2p"])
def test_only_the_seat_to_move_acts_and_the_match_is_the_aec_ones(preset):
    par = parallel_env(preset, rules={"target": "300"} if preset.startswith("burraco") else None)
    observations, infos = par.reset(seed=9)
    rng = np.random.default_rng(3)
    chosen = []
    while par.agents:
        mover = infos[par.agents[0]]["active_agent"]
        assert all(info["active_agent"] == mover for info in infos.values())
        live = [a for a in par.agents if observations[a]["action_mask"].any()]
        assert live == [mover]
        action = int(rng.choice(np.flatnonzero(observations[mover]["action_mask"])))
        chosen.append(action)
        # Everyone sends an action; only the mover's counts.
        actions = {a: action if a == mover else 0 for a in par.agents}
        observations, rewards, terminations, _, infos = par.step(actions)
    assert all(terminations.values())

    aec = raw_env(preset, rules={"target": "300"} if preset.startswith("burraco") else None)
    aec.reset(seed=9)
    for action in chosen:
        aec.step(action)
    assert aec.state.is_over()
    assert aec.state.events(None) == par.aec.state.events(None)
    assert rewards == aec.rewards


def test_an_illegal_action_forfeits_the_match():
    par = parallel_env("bura")
    observations, infos = par.reset(seed=1)
    mover = infos["seat_0"]["active_agent"]
    illegal = int(np.flatnonzero(observations[mover]["action_mask"] == 0)[0])
    _, rewards, terminations, _, infos = par.step({mover: illegal})
    assert rewards[mover] == -1.0 and all(terminations.values()) and par.agents == []
    assert infos[mover]["illegal_action"] == illegal


def test_the_mover_must_be_given_an_action():
    par = parallel_env("bura")
    _, infos = par.reset(seed=1)
    mover = infos["seat_0"]["active_agent"]
    with pytest.raises(ValueError, match="to move"):
        par.step({a: 0 for a in par.agents if a != mover})
