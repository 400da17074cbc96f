"""A worker killed with SIGKILL leaves its bot-file copies and cgroups behind (and, under `unsafe`, a bot that
may still run); the next worker that starts a sandbox sweeps them. Staged bot files are private to the
sandbox."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sandbox import Limits, janitor, start
from sandbox.uids import can_switch_uid
from tests.sandbox.conftest import HOSTILE, read_until

ROOT = Path(__file__).parents[2]
WORKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from sandbox import Limits, start
    proc = start(["python3", "silent.py"], Path(sys.argv[1]), Limits(wall_seconds=60), backend=sys.argv[2],
                 allow_unsafe=True)
    confinement = proc._confinement
    staging = getattr(confinement, "_staging", None)
    paths = [str(staging.root)] if staging is not None else []
    paths += [str(folder) for folder in confinement._cgroups.dirs]
    print(" ".join(paths), flush=True)
    time.sleep(60)
""")


def worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WORKER, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("backend_name", ["bwrap", "unsafe"])
def test_the_next_start_sweeps_what_a_killed_worker_left(tmp_path, backend_name):
    (tmp_path / "silent.py").write_text((HOSTILE / "silent.py").read_text())
    killed = worker(str(tmp_path), backend_name)
    left = [Path(path) for path in killed.stdout.readline().split()]
    assert left and any("kozyr-sandbox" in str(path) for path in left), left
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert all(path.exists() for path in left), "nothing to sweep: the test proves nothing"
    # The next worker: another process starting (and finishing) a sandbox.
    script = ("import sys; from pathlib import Path; from sandbox import Limits, start; "
              "p = start(['python3', 'silent.py'], Path(sys.argv[1]), Limits(wall_seconds=30)); p.close()")
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, check=True, timeout=60)
    assert [path for path in left if path.exists()] == []


@pytest.mark.skipif(not can_switch_uid(), reason="per-bot uids need a root worker")
def test_staged_bot_files_are_readable_by_the_sandbox_only(tmp_path):
    (tmp_path / "echo.py").write_text((HOSTILE / "echo.py").read_text())
    (tmp_path / "strategy.txt").write_text("secret")
    os.chmod(tmp_path / "strategy.txt", 0o644)
    with start(["python3", "echo.py"], tmp_path, Limits(wall_seconds=30)) as proc:
        assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
        run = proc._confinement._staging.root
        info = run.stat()
        assert (info.st_mode & 0o777, info.st_uid) == (0o700, proc.sandbox_uid)
        other_user = subprocess.run(["/usr/bin/python3", "-c", f"open({str(run / 'bot' / 'strategy.txt')!r}).read()"],
                                    user=65534, group=65534, extra_groups=[], cwd="/", capture_output=True, text=True,
                                    check=False)  # fmt: skip
        assert "PermissionError" in other_user.stderr
        proc.stdin.write(b"still here\n")
        assert read_until(proc, lines=1) == b"still here\n"


@pytest.mark.parametrize("backend_name", ["bwrap", "unsafe"])
def test_a_finished_run_leaves_no_folder_or_cgroup_once_the_janitor_is_done(tmp_path, backend_name):
    (tmp_path / "echo.py").write_text((HOSTILE / "echo.py").read_text())
    proc = start(["python3", "echo.py"], tmp_path, Limits(wall_seconds=30), backend=backend_name, allow_unsafe=True)
    assert read_until(proc, lines=1) == b'{"type": "ready"}\n'
    staging = getattr(proc._confinement, "_staging", None)
    held = [staging.root] if staging is not None else []
    held += list(proc._confinement._cgroups.dirs)
    assert held and all(path.exists() for path in held)
    proc.close()
    assert janitor.drain()
    assert [path for path in held if path.exists()] == []
