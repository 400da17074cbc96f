"""The MaskablePPO example (examples/training/maskable_ppo.py) in smoke form: seconds of training against a
house bot and itself, an export whose numpy actor is the trained policy, and a full match through the runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the MaskablePPO example needs the train extra: pip install -e '.[train]'")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "training"
sys.path.insert(0, str(EXAMPLE))

import action_features  # noqa: E402
import bot_export  # noqa: E402
import maskable_ppo  # noqa: E402
import policy  # noqa: E402

from arena.botspec import stage_bot  # noqa: E402
from arena.env import KozyrGymEnv  # noqa: E402
from arena.runner import TimeControl, build_schedule, run_job  # noqa: E402

VECTOR = 345  # bura's observation vector
ROWS = 35 * policy.SIZE  # bura's 35 action indices, a row of policy.py's features each


@pytest.fixture(scope="module")
def model():
    return maskable_ppo.train("bura", 256, ("builtin:greedy", "self"), seed=1, n_steps=64, batch_size=64, refresh=1)


@pytest.fixture(scope="module")
def vector_model():
    return maskable_ppo.train("bura", 128, ("builtin:greedy",), seed=1, n_steps=64, batch_size=64, features="none")


def test_it_trains_against_a_house_bot_and_itself(model):
    assert model.num_timesteps >= 256
    envs = model.get_env().envs
    opponents = [env.unwrapped.specs[1 - env.unwrapped.seat] for env in envs]
    assert opponents[0] == "builtin:greedy" and opponents[1].__class__.__name__ == "FeatureBot"
    assert model.observation_space.shape == (VECTOR + ROWS,)


def test_the_network_reads_the_vector_then_each_legal_actions_row():
    env = maskable_ppo.WithActionRows(KozyrGymEnv("bura", "builtin:random"))
    seen_rows = 0
    observation, _ = env.reset(seed=4)
    for _ in range(40):
        inner = env.unwrapped
        raw = inner.aec.infos[inner.aec.possible_agents[inner.seat]]["raw_observation"]
        moves = inner.legal_moves()
        rows = observation[VECTOR:].reshape(35, policy.SIZE)
        for index in range(35):
            wanted = policy.features(raw, dict(moves)[index]) if index in dict(moves) else [0.0] * policy.SIZE
            assert rows[index] == pytest.approx(np.float32(wanted))
        seen_rows += len(moves)
        assert env.observation_space.contains(observation)
        observation, _, done, _, _ = env.step(moves[0][0])
        if done:
            assert not observation[VECTOR:].any()  # no legal action once the deal is over
            observation, _ = env.reset()
    assert seen_rows > 40


def test_the_exported_bot_decides_what_the_model_decides(model):
    # The model reads the environment's rows; the bot (FeatureBot, as exported) builds them from the protocol's
    # observation and legal actions: they must be the same numbers, so the same choices.
    actor = maskable_ppo.actor_of(model)
    bot = action_features.FeatureBot(actor, KozyrGymEnv("bura").aec.encoder)
    env = maskable_ppo.WithActionRows(KozyrGymEnv("bura", "builtin:random"))
    observation, _ = env.reset(seed=9)
    compared = 0
    for _ in range(60):
        inner = env.unwrapped
        mask = inner.action_masks()
        wanted, _ = model.predict(observation, action_masks=mask, deterministic=True)
        raw = inner.aec.state.observation(inner.seat)
        legal = inner.aec.state.legal_actions(inner.seat)
        assert dict(inner.legal_moves())[int(wanted)] == bot.act(raw, legal)
        compared += 1
        observation, _, done, _, _ = env.step(int(wanted))
        if done:
            observation, _ = env.reset()
    assert compared == 60


def test_the_exported_bot_uploads_and_plays_a_full_match(model, tmp_path):
    bot = maskable_ppo.export(model, tmp_path / "bot", "bura", {"timesteps": 256})
    names = {p.name for p in bot.iterdir()}
    assert {"main.py", "mlp.py", "model.json", "kozyr_encoding.py", "arena", "action_features.py", "policy.py"} <= names
    assert not (bot / "arena" / "env").exists()  # the engines' sources only: no pettingzoo, gymnasium or torch
    saved = json.loads((bot / "model.json").read_text())
    assert (saved["observation_size"], saved["actions"], saved["features"]) == (VECTOR, 35, "actions")
    assert len(saved["layers"][0]["weight"][0]) == VECTOR + ROWS
    spec = stage_bot(bot, tmp_path / "staged")  # the upload's checks
    schedule = build_schedule(preset="bura", overrides={}, bots=[spec, stage_bot(bot, tmp_path / "s2")],
                              games=1, base_seed=5, duplicate=False, time_control=TimeControl(), sandbox="unsafe")
    result, _ = run_job(schedule.jobs[0])
    assert result["finished"] and all(s["verdict"] == "ok" for s in result["seats"])


def test_a_vector_only_model_exports_without_the_rows(vector_model, tmp_path):
    assert vector_model.observation_space.shape == (VECTOR,)
    actor = maskable_ppo.actor_of(vector_model)
    env = KozyrGymEnv("bura", "builtin:random")
    observation, _ = env.reset(seed=9)
    for _ in range(20):
        vector, mask = observation["observation"], observation["action_mask"]
        wanted, _ = vector_model.predict(vector, action_masks=mask.astype(bool), deterministic=True)
        assert actor.best(vector, mask) == int(wanted)
        observation, _, done, _, _ = env.step(int(wanted))
        if done:
            observation, _ = env.reset()
    bot = maskable_ppo.export(vector_model, tmp_path / "bot", "bura", {"timesteps": 128})
    assert json.loads((bot / "model.json").read_text())["features"] == "none"  # read from the actor's input
    with pytest.raises(ValueError, match="reads 345 numbers"):
        bot_export.write_bot(actor, tmp_path / "wrong", "bura", {}, trainer="t", name="n", features="actions")
    assert not (bot / "action_features.py").exists() and not (bot / "policy.py").exists()
    bots = [stage_bot(bot, tmp_path / "s1"), stage_bot(bot, tmp_path / "s2")]
    schedule = build_schedule(preset="bura", overrides={}, bots=bots,
                              games=1, base_seed=6, duplicate=False, time_control=TimeControl(), sandbox="unsafe")
    result, _ = run_job(schedule.jobs[0])
    assert result["finished"] and all(s["verdict"] == "ok" for s in result["seats"])


TRAIN_IN_A_PROCESS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import maskable_ppo
from arena import compiled
model = maskable_ppo.train("bura", 256, ("builtin:greedy", "self"), seed=1, n_steps=64, batch_size=64, refresh=1)
print(json.dumps({"digest": maskable_ppo.weights_digest(model), "engines": compiled.status()["bura"]}))
"""


def _digest_with(engines: str) -> dict:
    out = subprocess.run([sys.executable, "-c", TRAIN_IN_A_PROCESS, str(EXAMPLE)], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "KOZYR_ENGINES": engines})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_the_same_seed_and_timesteps_give_the_same_weights_on_either_build(model):
    from arena import compiled

    python, auto = _digest_with("python"), _digest_with("auto")
    assert python["engines"].startswith("python")
    assert python["digest"] == auto["digest"] == maskable_ppo.weights_digest(model)
    # Seed 2 once put a ``self`` env's learner in seat 1 while the envs were built, before the model existed.
    other = maskable_ppo.train("bura", 256, ("builtin:greedy", "self"), seed=2, n_steps=64, batch_size=64, refresh=1)
    assert maskable_ppo.weights_digest(other) != python["digest"]  # the seed does matter
    if auto["engines"] != "compiled":
        pytest.skip(f"only the Python build was compared: no current compiled bura ({compiled.check('bura')[1]})")


def test_bad_choices_are_refused_by_name(model, tmp_path):
    with pytest.raises(ValueError, match="Bura family"):
        maskable_ppo.export(model, tmp_path / "bot", "kozel", {})
    with pytest.raises(ValueError, match="features is one of actions, none"):
        maskable_ppo.train("bura", 64, ("builtin:greedy",), n_steps=64, batch_size=64, features="cards")
    with pytest.raises(SystemExit):
        maskable_ppo.main(["--timesteps", "0"])
    assert np.isfinite(maskable_ppo.actor_of(model).logits(np.zeros(VECTOR + ROWS, dtype=np.float32))).all()
