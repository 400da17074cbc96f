"""The environments hand out exactly what they did before they were made faster (commit 665d66c).

Seeded random play through ``raw_env`` and ``parallel_env`` of every preset (the Bura family also under
a few option sets): at every step every agent's observation vector and action mask (their bytes, dtype
and shape), the move list, the infos, rewards, terminations and the agent to act go into a sha256. The
digests below were recorded from 665d66c, so any change in an encoding, a mask, a move's index or the
bookkeeping fails here. A changed layout must change docs/training.md, the digests and the tests together.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from arena.env import parallel_env, raw_env

CASES = {
    "bura": ("bura", None),
    "bura-mixed": ("bura", {"mixed_sets": "on", "discard": "shown_to_taker", "out_of_turn_lead": "whole_hand"}),
    "bura-open-24": ("bura", {"discard": "open", "deck": 24, "match": "rubber:3", "next_lead": "rotate"}),
    "bura-3p": ("bura-3p", None),
    "burkozel": ("burkozel", None),
    "burkozel-pairs": ("burkozel-pairs", None),
    "echki-6": ("echki-6", None),
    "kozel": ("kozel", None),
    "kozel-3p": ("kozel-3p", None),
    "burraco": ("burraco", {"target": "300"}),
    "burraco-2p": ("burraco-2p", {"target": "300"}),
}
STEPS = {"burraco": 1000, "burraco-2p": 1000}  # Burraco's steps cost more; the others play 4000


def _array(sha, array: np.ndarray) -> None:
    sha.update(repr((array.dtype.str, array.shape)).encode())
    sha.update(array.tobytes())


def aec_digest(preset: str, rules, steps: int, seed: int = 3) -> str:
    aec = raw_env(preset, rules=rules)
    rng = np.random.default_rng(seed)
    sha = hashlib.sha256()
    episode = 0
    aec.reset(seed=seed)
    for _ in range(steps):
        agent = aec.agent_selection
        sha.update(repr((agent, aec.rewards, aec._cumulative_rewards, aec.terminations, aec.truncations,
                         aec.infos)).encode())
        for other in aec.agents:
            seen = aec.observe(other)
            _array(sha, seen["observation"])
            _array(sha, seen["action_mask"])
        if aec.terminations[agent]:
            episode += 1
            aec.reset(seed=seed + episode)
            continue
        moves = aec.legal_moves()
        sha.update(repr(moves).encode())
        aec.step(moves[int(rng.integers(len(moves)))][0])
    return sha.hexdigest()


def parallel_digest(preset: str, rules, steps: int, seed: int = 4) -> str:
    par = parallel_env(preset, rules=rules)
    rng = np.random.default_rng(seed)
    sha = hashlib.sha256()
    episode = 0
    observations, infos = par.reset(seed=seed)
    for _ in range(steps):
        if not par.agents:
            episode += 1
            observations, infos = par.reset(seed=seed + episode)
        for agent in sorted(observations):
            _array(sha, observations[agent]["observation"])
            _array(sha, observations[agent]["action_mask"])
        sha.update(repr(infos).encode())
        mover = infos[par.agents[0]]["active_agent"]
        legal = np.flatnonzero(observations[mover]["action_mask"])
        observations, rewards, terminations, truncations, infos = par.step(
            {mover: int(legal[rng.integers(legal.size)])})
        sha.update(repr((rewards, terminations, truncations)).encode())
    return sha.hexdigest()


AEC_DIGESTS = {
    "bura": "3e64c06c080a442769965c492738f914976ba812a3bae544aa93e1b1420bd352",
    "bura-mixed": "bd69643ccc0261bdd2b89115a3016d5a9836c9a2e489fdb0223097b50ced2c04",
    "bura-open-24": "b9e0bffad31f136aea23a9e9757feeb27b4c43b29821f407f76735300ca60687",
    "bura-3p": "6922b7e5e43821d61da103d5cbb28909b9e15b6a6db01b6310c3cc156e40b641",
    "burkozel": "b40bf5243bf73856f016bd9473abb619078cfbf46d21e6517e015c8b1ff42eb5",
    "burkozel-pairs": "16d5b63f4dec616590b1c5b934a2f2ac3d56e701b3770acce22d1d1f4c56b559",
    "echki-6": "e8d0d73c28db30f0cd17cc1d5047ee44de6b2cd2cb20a0b9399177d261db2558",
    "kozel": "e35aa0e9bd9499dca710e4cdd2ac12c51f7908398f2ee7beb9d24687d2d92e41",
    "kozel-3p": "2b1e1dc112496d826178e6bd77e3155a20e5e80c42ed35635fca82a2ebe147cf",
    "burraco": "ea5a2055deeb65b0654d1a011ece6ee3b9032c21577b5e95332f7e9ea89e4888",
    "burraco-2p": "4d5a2b24684216d60aa8caa716fe0604eb98f677198509a971b5005bf7ca4592",
}
PARALLEL_DIGESTS = {
    "bura": "1db072ad2095ad0391f24a28d3af6bd9ad052a81406b86d569d4e0ca3370939f",
    "burkozel-pairs": "8e5510b9f10189bdb0c30cbee0b7836b44f4c1050f3644aab5c7ddb648340488",
    "kozel-3p": "b825bcaa27550da610473cd3cdba2b63a5a3e9db3c44526a6fb90b2880fd2aca",
    "burraco-2p": "e34a296d587aaaae4014dabf3bfc31acfecd7b3547c6b778f3ecbb2fa33cbe50",
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("case", list(CASES))
def test_the_aec_environment_hands_out_what_it_did(case):
    preset, rules = CASES[case]
    assert aec_digest(preset, rules, STEPS.get(preset, 4000)) == AEC_DIGESTS[case]


@pytest.mark.parametrize("case", ["bura", "burkozel-pairs", "kozel-3p", "burraco-2p"])
def test_the_parallel_environment_hands_out_what_it_did(case):
    preset, rules = CASES[case]
    assert parallel_digest(preset, rules, STEPS.get(preset, 4000) // 2) == PARALLEL_DIGESTS[case]


if __name__ == "__main__":  # prints the digests to record
    print("AEC_DIGESTS = {")
    for name, (preset, rules) in CASES.items():
        print(f'    "{name}": "{aec_digest(preset, rules, STEPS.get(preset, 4000))}",')
    print("}\nPARALLEL_DIGESTS = {")
    for name in ["bura", "burkozel-pairs", "kozel-3p", "burraco-2p"]:
        preset, rules = CASES[name]
        print(f'    "{name}": "{parallel_digest(preset, rules, STEPS.get(preset, 4000) // 2)}",')
    print("}")
