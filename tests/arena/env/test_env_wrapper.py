"""env()'s one-layer wrapper behaves as PettingZoo's three classic-game wrappers do, misuse included."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.utils import wrappers

from arena.env import env, raw_env
from arena.env.aec import KozyrEnv


def pettingzoo_env(preset, **kwargs):
    """What env() was: PettingZoo's own wrappers around raw_env, as its classic games are wrapped."""
    wrapped = wrappers.TerminateIllegalWrapper(raw_env(preset, **kwargs), illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def outcome(call):
    """What a call gives: its value, or the type and message of what it raised, and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = ("value", call())
        except Exception as error:  # the kind of error is what is compared
            value = ("raised", type(error).__name__, str(error))
    return value, sorted(str(w.message) for w in caught)


def snapshot(aec):
    agent = aec.agent_selection
    observation, reward, terminated, truncated, info = aec.last()
    return (agent, observation["observation"].tobytes(), observation["action_mask"].tobytes(), reward, terminated,
            truncated, sorted(info), dict(aec.rewards), dict(aec.terminations), dict(aec.truncations),
            list(aec.agents))


PRESETS = ["bura", "burkozel-pairs", "kozel-3p", "burraco-2p"]


@pytest.mark.parametrize("name", ["agents", "rewards", "terminations", "truncations", "infos", "agent_selection",
                                  "num_agents"])
def test_attributes_before_reset_raise_the_same_error(name):
    assert outcome(lambda: getattr(env("bura"), name)) == outcome(lambda: getattr(pettingzoo_env("bura"), name))
    assert outcome(lambda: getattr(env("bura"), name))[0][1] == "AttributeError"


@pytest.mark.parametrize("call", ["step", "observe", "agent_iter", "render", "last"])
def test_calls_before_reset_raise_the_same_error(call):
    args = {"step": (0,), "observe": ("seat_0",), "agent_iter": (), "render": (), "last": ()}[call]
    ours, theirs = env("bura"), pettingzoo_env("bura")
    mine = outcome(lambda: getattr(ours, call)(*args))
    assert mine == outcome(lambda: getattr(theirs, call)(*args))
    assert mine[0][0] == "raised"


@pytest.mark.parametrize("action", [35, -1, 10**9, 1.5, "1", np.int64(99)])
def test_out_of_range_actions_raise_the_same_error(action):
    ours, theirs = env("bura"), pettingzoo_env("bura")
    ours.reset(seed=3)
    theirs.reset(seed=3)
    mine = outcome(lambda: ours.step(action))
    assert mine == outcome(lambda: theirs.step(action))
    assert mine[0] == ("raised", "AssertionError", "action is not in action space")


@pytest.mark.parametrize("preset", PRESETS)
def test_random_play_with_forfeits_and_dead_steps_matches_pettingzoos_wrappers(preset):
    """Random play, a forbidden action now and then (the match ends: -1 for the actor), the dead steps
    after, a step too many and a loop that forgets to step: both give the same values and errors."""
    rules = {"target": "300"} if preset.startswith("burraco") else {"match": "deals:1"} if "bur" in preset else None
    ours, theirs = env(preset, rules=rules), pettingzoo_env(preset, rules=rules)
    rng = np.random.default_rng(11)
    forfeits = 0
    for episode in range(6):
        ours.reset(seed=episode)
        theirs.reset(seed=episode)
        for _ in range(3000):
            assert outcome(lambda: snapshot(ours)) == outcome(lambda: snapshot(theirs))
            if not ours.agents:
                break
            _, _, terminated, truncated, _ = ours.last()
            mask = ours.observe(ours.agent_selection)["action_mask"]
            if terminated or truncated:
                action = None
            elif episode % 2 and rng.random() < 0.2 and not mask.all():
                action = int(rng.choice(np.flatnonzero(mask == 0)))  # forbidden: a forfeit
                forfeits += 1
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            assert outcome(lambda a=action: ours.step(a)) == outcome(lambda a=action: theirs.step(a))
        assert not ours.agents
        assert outcome(lambda: ours.step(None)) == outcome(lambda: theirs.step(None))  # a step too many warns
    assert forfeits

    ours.reset(seed=1)
    theirs.reset(seed=1)
    loops = [iter(ours.agent_iter()), iter(theirs.agent_iter())]
    assert outcome(lambda: next(loops[0])) == outcome(lambda: next(loops[1]))
    assert outcome(lambda: next(loops[0])) == outcome(lambda: next(loops[1]))  # no step between: an error


def test_it_is_still_an_order_enforcing_wrapper_around_raw_env():
    aec = env("kozel")
    assert isinstance(aec, KozyrEnv) and isinstance(aec, wrappers.OrderEnforcingWrapper)
    assert aec.unwrapped.__class__.__name__ == "RawEnv" and str(aec) == str(pettingzoo_env("kozel"))
    with pytest.raises(AttributeError, match="private"):
        _ = aec._legal
