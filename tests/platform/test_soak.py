"""The soak's short form (bench/soak.py): the whole site on real processes under every fault for about two and a
half minutes, its invariants checked all along. The long form is bench/soak.py itself (30 minutes by default)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAULTS = {"worker-kill", "flushdb", "db-cut", "beat-kill", "two-beats"}
# A Redis database of its own: the soak flushes it (and refuses one another soak is using).
REDIS = os.environ.get("KOZYR_TEST_SOAK_REDIS", "redis://127.0.0.1:6379/13")

pytestmark = pytest.mark.slow


def test_it_survives_every_fault_with_every_invariant_kept(tmp_path):
    report_file = tmp_path / "soak.json"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "soak.py"), "--minutes", "2.5", "--redis", REDIS,
                           "--json", str(report_file)], capture_output=True, text=True, timeout=280)
    assert report_file.exists(), done.stderr[-6000:]
    report = json.loads(report_file.read_text())
    assert {fault for fault, row in report["faults"].items() if row["injected"]} == FAULTS, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
