"""The CleanRL-style PPO example (examples/training/cleanrl_ppo.py) in smoke form: a few dozen deals against a
house bot and the self-play pool, the same weights for the same seed and budget on either engine build, and an
exported numpy bot that chooses what the trained actor chooses and plays `arena play` matches."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the CleanRL-style PPO example needs the train extra: pip install -e '.[train]'")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "training"
sys.path.insert(0, str(EXAMPLE))

import cleanrl_ppo  # noqa: E402
import torch  # noqa: E402

from arena.botspec import stage_bot  # noqa: E402
from arena.cli import main as arena_main  # noqa: E402
from arena.env import KozyrGymEnv  # noqa: E402

SMOKE = {"episodes": 48, "num_steps": 16, "snapshot_every": 1, "pool": 2, "opponents": "builtin:greedy,self"}


@pytest.fixture(scope="module")
def trained():
    return cleanrl_ppo.train(cleanrl_ppo.Args(seed=1, **SMOKE), log=None)


def test_it_trains_on_the_episode_budget_against_a_house_bot_and_its_pool(trained):
    agent, summary = trained
    assert summary["episodes"] >= 48 and summary["decisions"] == summary["updates"] * 2 * 16
    assert summary["pool"] == 2  # the initial actor and the latest snapshots, capped at --pool
    torch.manual_seed(1)  # as train() seeds it before building the agent: the weights it started from
    untrained = cleanrl_ppo.Agent(345, 35, cleanrl_ppo.Args().hidden)
    assert cleanrl_ppo.weights_digest(agent) != cleanrl_ppo.weights_digest(untrained)


def test_a_forbidden_action_has_no_probability_and_no_entropy():
    agent = cleanrl_ppo.Agent(345, 35, 64)
    x = torch.rand(3, 345)
    mask = torch.zeros(3, 35, dtype=torch.bool)
    mask[:, [4, 9]] = True
    for _ in range(20):
        action, _, entropy, _ = agent.get_action_and_value(x, mask)
        assert set(action.tolist()) <= {4, 9}
    assert torch.all(entropy <= np.log(2) + 1e-6) and torch.all(entropy > 0)


TRAIN_IN_A_PROCESS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import cleanrl_ppo
from arena import compiled
agent, summary = cleanrl_ppo.train(cleanrl_ppo.Args(seed=int(sys.argv[2]), **json.loads(sys.argv[3])), log=None)
print(json.dumps({"digest": cleanrl_ppo.weights_digest(agent), "episodes": summary["episodes"],
                  "engines": compiled.status()["bura"]}))
"""


def _train_with(engines: str, seed: int) -> dict:
    out = subprocess.run([sys.executable, "-c", TRAIN_IN_A_PROCESS, str(EXAMPLE), str(seed), json.dumps(SMOKE)],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "KOZYR_ENGINES": engines})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_the_same_seed_and_budget_give_the_same_weights_on_either_build(trained):
    """Two more processes, one on the Python engines and one on the compiled ones where they are built (``make``;
    ``make test`` gives this process the Python ones, for coverage), train what this one trained."""
    from arena import compiled

    python, auto = _train_with("python", 1), _train_with("auto", 1)
    assert python["engines"].startswith("python")
    mine = (cleanrl_ppo.weights_digest(trained[0]), trained[1]["episodes"])
    assert (python["digest"], python["episodes"]) == (auto["digest"], auto["episodes"]) == mine
    other, _ = cleanrl_ppo.train(cleanrl_ppo.Args(seed=2, **SMOKE), log=None)
    assert cleanrl_ppo.weights_digest(other) != python["digest"]  # the seed does matter
    if auto["engines"] != "compiled":
        pytest.skip(f"only the Python build was compared: no current compiled bura ({compiled.check('bura')[1]})")


def test_the_exported_bot_chooses_what_the_actor_chooses_and_plays(trained, tmp_path):
    agent, summary = trained
    bot = cleanrl_ppo.export(agent, tmp_path / "bot", "bura", summary)
    assert not (bot / "arena" / "env").exists()  # the engines' sources only: no gymnasium, no torch
    actor = cleanrl_ppo.MaskedMlp.load(bot / "model.json")
    env = KozyrGymEnv("bura", "builtin:random")
    observation, _ = env.reset(seed=9)
    for _ in range(40):
        vector, mask = observation["observation"], observation["action_mask"]
        with torch.no_grad():
            logits = agent.actor(torch.tensor(vector)).numpy()
        wanted = int(np.argmax(np.where(mask > 0, logits, -np.inf)))
        assert actor.best(vector, mask) == wanted
        observation, _, done, _, _ = env.step(wanted)
        if done:
            observation, _ = env.reset()
    stage_bot(bot, tmp_path / "staged")  # the upload's checks
    out = tmp_path / "results.json"
    with contextlib.redirect_stdout(io.StringIO()):
        code = arena_main(["play", "bura", str(bot), "builtin:greedy", "--games", "1", "--duplicate", "--seed", "3",
                           "--sandbox", "unsafe", "--quiet", "--json", str(out)])
    assert code in (0, None)
    matches = json.loads(out.read_text())["matches"]
    assert len(matches) == 2 and all(m["finished"] for m in matches)
    assert all(seat["verdict"] == "ok" for m in matches for seat in m["seats"])


def test_the_command_line_reads_every_option_and_refuses_no_budget(tmp_path):
    args = cleanrl_ppo.parse(["--episodes", "7", "--no-anneal-lr", "--learning-rate", "0.001", "--out", str(tmp_path)])
    assert (args.episodes, args.anneal_lr, args.learning_rate, args.out) == (7, False, 0.001, tmp_path)
    with pytest.raises(ValueError, match="budget"):
        cleanrl_ppo.train(cleanrl_ppo.Args(episodes=0), log=None)
