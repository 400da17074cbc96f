"""The learning example (examples/training): a short run learns, and the exported bot plays and uploads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "training"
sys.path.insert(0, str(EXAMPLE))

import policy  # noqa: E402
import train  # noqa: E402

from arena.botspec import stage_bot  # noqa: E402
from arena.runner import TimeControl, build_schedule, run_job  # noqa: E402


def test_a_short_run_moves_the_weights_and_is_seeded():
    first, summary = train.train(10, max_episodes=60, log_every=0)
    again, _ = train.train(10, max_episodes=60, log_every=0)
    assert summary["episodes"] == 60 and np.any(first != 0)
    assert np.array_equal(first, again)


def _hand_set(claim_bias: float) -> np.ndarray:
    """Sensible weights (take points cheaply, keep trumps, claim when the target is proven) but ``claim_bias``."""
    weights = np.zeros(policy.SIZE)
    for name, value in [("claim: known points >= target", 10.0), ("respond: beats x points on the table / 22", 5.0),
                        ("respond: face down", 1.0), ("respond: trumps played / 3", -2.0),
                        ("lead: points / 22", -3.0), ("lead: trumps / 3", -3.0)]:
        weights[policy.NAMES.index(name)] = value
    weights[policy.NAMES.index("claim: bias")] = claim_bias
    return weights


def test_the_duplicate_evaluation_tells_a_careful_claimer_from_a_reckless_one():
    careful, reckless = train.evaluate(_hand_set(-5.0), 6), train.evaluate(_hand_set(5.0), 6)
    assert careful["win_rate"] > reckless["win_rate"] == 0.0
    assert careful["matches"] == 12 and careful["ci95"][0] <= careful["win_rate"] <= careful["ci95"][1]


def test_the_exported_bot_uses_only_the_standard_library_and_plays_a_full_match(tmp_path):
    bot = train.export(_hand_set(-5.0), tmp_path / "bot", {"episodes": 0})
    assert sorted(p.name for p in bot.iterdir()) == ["main.py", "policy.py", "weights.json"]
    assert json.loads((bot / "weights.json").read_text())["features"] == list(policy.NAMES)
    # python3 -I -S: no site-packages at all, as in the sandbox's Python.
    check = subprocess.run(["python3", "-I", "-S", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import main",
                            str(bot)], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr
    spec = stage_bot(bot, tmp_path / "staged")  # the upload's checks
    assert spec.command[-1] == "main.py"
    schedule = build_schedule(preset="bura", overrides={}, bots=[spec, stage_bot(bot, tmp_path / "s2")],
                              games=1, base_seed=5, duplicate=False, time_control=TimeControl(), sandbox="unsafe")
    result, _ = run_job(schedule.jobs[0])
    assert result["finished"] and all(s["verdict"] == "ok" for s in result["seats"])


TRAIN_IN_A_PROCESS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import train
from arena import compiled
weights, summary = train.train(None, max_episodes=int(sys.argv[2]), seed=3, log_every=0)
print(json.dumps({"weights": [w.hex() for w in weights.tolist()], "episodes": summary["episodes"],
                  "engines": compiled.status()["bura"]}))
"""


def _train_with(engines: str, episodes: int) -> dict:
    import os

    out = subprocess.run([sys.executable, "-c", TRAIN_IN_A_PROCESS, str(EXAMPLE), str(episodes)],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "KOZYR_ENGINES": engines})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_an_episode_budget_gives_the_same_weights_on_either_build():
    from arena import compiled

    if compiled.check("bura")[0] is None:
        pytest.skip(f"no current compiled build of the bura engine here: {compiled.check('bura')[1]}")
    python, built = _train_with("python", 150), _train_with("compiled", 150)
    assert python["engines"].startswith("python") and built["engines"] == "compiled"
    assert python["episodes"] == built["episodes"] == 150
    assert python["weights"] == built["weights"]  # bit for bit


def test_the_command_line_takes_an_episode_budget(tmp_path, capsys):
    train.main(["--episodes", "40", "--eval-seeds", "2", "--out", str(tmp_path / "run")])
    saved = json.loads((tmp_path / "run" / "bot" / "weights.json").read_text())
    assert saved["training"]["episodes"] == 40
    expected, _ = train.train(None, max_episodes=40, log_every=0)
    assert saved["weights"] == [round(float(w), 6) for w in expected]
    assert "training on 40 deals" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        train.main(["--episodes", "10", "--minutes", "1"])  # one budget or the other
    with pytest.raises(ValueError, match="budget"):
        train.train(None)
