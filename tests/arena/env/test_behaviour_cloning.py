"""The behaviour-cloning example: it learns the cloned bot's choices from replays and exports a bot that plays."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "training"
sys.path.insert(0, str(EXAMPLE))

import behaviour_cloning  # noqa: E402
import policy  # noqa: E402


@pytest.fixture(autouse=True)
def _demos_on_the_fastest_build(monkeypatch):
    """The demonstrations are `arena play` subprocesses of the search bot: on the compiled engines where they are
    built (the same replays on either build, tests/arena/test_compiled_engines.py), not the Python ones that
    `make test` gives this process for coverage, which made this file cost two CPU minutes."""
    monkeypatch.setenv("KOZYR_ENGINES", "auto")


def test_cloning_fits_the_demonstrated_choices_better_than_no_weights(tmp_path):
    bots = behaviour_cloning.demo_replays(tmp_path, 3)
    rows, chosen, matches = behaviour_cloning.decisions(tmp_path, bots)
    assert matches == 6 and len(rows) == len(chosen) > 50
    assert all(0 <= c < len(r) for r, c in zip(rows, chosen, strict=True))
    weights, losses = behaviour_cloning.clone(rows, chosen, steps=150)
    assert losses[-1] < losses[0]
    untrained = behaviour_cloning.agreement(np.zeros(policy.SIZE), rows, chosen)
    assert behaviour_cloning.agreement(weights, rows, chosen) > untrained + 0.1


def test_a_whole_run_exports_an_uploadable_bot_with_its_figures(tmp_path, capsys):
    behaviour_cloning.main(["--demo-matches", "2", "--eval-seeds", "3", "--finetune-minutes", "0.02",
                            "--out", str(tmp_path / "clone")])
    said = capsys.readouterr().out
    assert "decisions of builtin:search-2" in said and "win rate" in said
    saved = json.loads((tmp_path / "clone" / "bot" / "weights.json").read_text())
    assert len(saved["weights"]) == policy.SIZE and saved["training"]["evaluation"]["matches"] == 6
    assert (tmp_path / "clone" / "bot" / "main.py").exists() and (tmp_path / "clone" / "bot" / "policy.py").exists()


def test_it_refuses_data_without_the_bots_to_clone(tmp_path):
    with pytest.raises(SystemExit):
        behaviour_cloning.main(["--data", str(tmp_path)])
