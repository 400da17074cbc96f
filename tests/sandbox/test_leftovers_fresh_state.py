"""A worker's first start on a fresh state folder (a new WORKER_DIR): the sweep of what dead workers left finds
nothing to sweep and says nothing, rather than failing on the owners' folder no worker has made yet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

SWEEP = """
import json
from sandbox import identity, leftovers
print(json.dumps({"swept": leftovers.sweep(), "owners": sorted(identity.live_owners())}))
"""


def test_the_first_sweep_of_a_fresh_state_folder_finds_nothing_and_fails_nothing(tmp_path):
    (tmp_path / "worker-dir").mkdir()  # as the operator makes WORKER_DIR; the sandbox's folder in it is new
    state = tmp_path / "worker-dir" / "sandbox"
    env = {**os.environ, "KOZYR_SANDBOX_STATE_DIR": str(state)}
    done = subprocess.run([sys.executable, "-c", SWEEP], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"swept": [], "owners": []}
    assert state.is_dir()
