"""The container backend's reaper, for real: a worker SIGKILLed mid-match leaves its containers running (the
engine keeps them); the next worker start removes them, and leaves a live worker's containers alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from sandbox import Limits, start
from sandbox.backends import container_engine, container_reaper
from tests.sandbox.conftest import HOSTILE, finish, read_until
from tests.sandbox.polling import holds_for, wait_until

WORKER = """
import sys, time
from pathlib import Path
from sandbox import Limits, start
bots = [start(["python3", "silent.py"], Path(sys.argv[1]), Limits(wall_seconds=600), backend="docker")
        for _ in range(2)]
print(" ".join(bot._confinement.name for bot in bots), flush=True)
time.sleep(600)
"""


def containers(engine, *names: str) -> dict[str, str]:
    """name -> "running" or "stopped", for those of `names` the engine still has."""

    def listed(*filters: str) -> set[str]:
        done = subprocess.run(engine.command("ps", "--all", *filters, "--format", "{{.Names}}"), capture_output=True,
                              text=True, check=True)  # fmt: skip
        return set(done.stdout.split())

    existing, running = listed(), listed("--filter", "status=running")
    return {name: "running" if name in running else "stopped" for name in names if name in existing}


def test_the_next_start_removes_what_a_killed_worker_left_and_spares_a_live_one(container_image, tmp_path):
    engine, _ = container_engine.find_engine()
    tmp_path.chmod(0o755)  # bind-mounted as /bot: the bot's uid must read it
    (tmp_path / "silent.py").write_text((HOSTILE / "silent.py").read_text())
    worker = subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path)], stdout=subprocess.PIPE,
                              cwd=Path(__file__).parents[2], start_new_session=True)  # fmt: skip
    try:
        names = worker.stdout.readline().decode().split()
        assert len(names) == 2, "the worker started no bots"
        wait_until(lambda: containers(engine, *names) == dict.fromkeys(names, "running"), 60,
                   "the worker's two containers to run")  # fmt: skip
    finally:
        os.killpg(worker.pid, signal.SIGKILL)  # mid-match: no finish(), no cleanup
        worker.wait()
    # Nothing stops them: the engine keeps a container whose `run` CLI was killed.
    holds_for(lambda: containers(engine, *names) == dict.fromkeys(names, "running"), 1.0,
              "the killed worker's bots running")  # fmt: skip

    live = start(["python3", "silent.py"], tmp_path, Limits(wall_seconds=60), backend="docker")
    try:
        live_name = live._confinement.name
        wait_until(lambda: containers(engine, live_name) == {live_name: "running"}, 60,
                   "the live worker's container to run")  # fmt: skip
        reaped = container_reaper.reap_orphans()  # what a worker runs when it starts
        assert len(reaped) >= 2
        assert containers(engine, *names) == {}, "the dead worker's containers are still there"
        assert containers(engine, live_name) == {live_name: "running"}, "a live worker's container was reaped"
        assert live.poll() is None
    finally:
        run = finish(live, read_until(live, seconds=0.1), grace=0)
    assert run.report.outcome == "ok" and run.report.killed_at_finish
