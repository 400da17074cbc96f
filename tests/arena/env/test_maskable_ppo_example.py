"""The MaskablePPO example (examples/training/maskable_ppo.py) in smoke form: seconds of training against a
house bot and itself, an export whose numpy actor is the trained policy, and a full match through the runner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the MaskablePPO example needs the train extra: pip install -e '.[train]'")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "training"
sys.path.insert(0, str(EXAMPLE))

import maskable_ppo  # noqa: E402

from arena.botspec import stage_bot  # noqa: E402
from arena.env import KozyrGymEnv  # noqa: E402
from arena.runner import TimeControl, build_schedule, run_job  # noqa: E402


@pytest.fixture(scope="module")
def model():
    return maskable_ppo.train("bura", 256, ("builtin:greedy", "self"), seed=1, n_steps=64, batch_size=64, refresh=1)


def test_it_trains_against_a_house_bot_and_itself(model):
    assert model.num_timesteps >= 256
    opponents = [env.unwrapped.specs[1 - env.unwrapped.seat] for env in model.get_env().envs]
    assert opponents[0] == "builtin:greedy" and opponents[1].__class__.__name__ == "Snapshot"


def test_the_exported_actor_chooses_what_the_model_chooses(model):
    actor = maskable_ppo.actor_of(model)
    env = KozyrGymEnv("bura", "builtin:random")
    observation, _ = env.reset(seed=9)
    compared = 0
    for _ in range(60):
        vector, mask = observation["observation"], observation["action_mask"]
        wanted, _ = model.predict(vector, action_masks=mask.astype(bool), deterministic=True)
        assert actor.best(vector, mask) == int(wanted)
        compared += 1
        observation, _, done, _, _ = env.step(int(wanted))
        if done:
            observation, _ = env.reset()
    assert compared == 60


def test_the_exported_bot_uploads_and_plays_a_full_match(model, tmp_path):
    bot = maskable_ppo.export(model, tmp_path / "bot", "bura", {"timesteps": 256})
    assert {"main.py", "mlp.py", "model.json", "kozyr_encoding.py", "arena"} <= {p.name for p in bot.iterdir()}
    assert not (bot / "arena" / "env").exists()  # the engines' sources only: no pettingzoo, gymnasium or torch
    saved = json.loads((bot / "model.json").read_text())
    assert (saved["observation_size"], saved["actions"]) == (345, 35)
    spec = stage_bot(bot, tmp_path / "staged")  # the upload's checks
    schedule = build_schedule(preset="bura", overrides={}, bots=[spec, stage_bot(bot, tmp_path / "s2")],
                              games=1, base_seed=5, duplicate=False, time_control=TimeControl(), sandbox="unsafe")
    result, _ = run_job(schedule.jobs[0])
    assert result["finished"] and all(s["verdict"] == "ok" for s in result["seats"])


def test_a_preset_outside_the_bura_family_is_refused_at_export(model, tmp_path):
    with pytest.raises(ValueError, match="Bura family"):
        maskable_ppo.export(model, tmp_path / "bot", "kozel", {})
    assert np.isfinite(maskable_ppo.actor_of(model).logits(np.zeros(345, dtype=np.float32))).all()
