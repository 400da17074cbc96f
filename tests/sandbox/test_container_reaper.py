"""The container backend's reaper, for real: a worker SIGKILLed mid-match leaves its containers running (the
engine keeps them); the next worker start removes them, and leaves a live worker's containers alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from sandbox import Limits, start
from sandbox.backends import container_engine, container_reaper
from tests.sandbox.conftest import HOSTILE, finish, read_until
from tests.support.polling import holds_for, wait_until

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


def labelled(engine, *, site: str, worker: str = "", owner: str = "another-host:1:1", start: bool) -> str:
    """A bot container as docker.py labels one, started (`run -d`) or only created (its worker killed between
    the engine's create and start); its name."""
    name = f"kozyr-bot-reaper-test-{uuid.uuid4().hex[:12]}"
    labels = {container_reaper.LABEL: "1", container_reaper.SITE_LABEL: site, container_reaper.OWNER_LABEL: owner,
              container_reaper.DEADLINE_LABEL: str(int(time.time()) + 3600), container_reaper.WORKER_LABEL: worker}
    runtime = ["--runtime", engine.runtime] if engine.runtime else []
    argv = engine.command("run", "--detach", "--name", name, "--pull", "never", "--network", "none", *runtime,
                          "--ulimit", "nofile=64:64", "--ulimit", "nproc=4096:4096",
                          *(arg for key, value in labels.items() for arg in ("--label", f"{key}={value}")),
                          container_engine.image(), "python3", "-c", "import time; time.sleep(600)")
    if not start:
        argv[argv.index("run") : argv.index("run") + 2] = ["create"]
    subprocess.run(argv, capture_output=True, text=True, check=True)
    return name


def remove(engine, *names: str) -> None:
    for name in names:  # one at a time: a name already reaped fails the whole command under Podman 4.3
        subprocess.run(engine.command(*engine.remove_now(name)), capture_output=True, check=False)


@pytest.fixture
def own_site(monkeypatch) -> str:
    """A site of this test's own: its reaper, with its clock moved on, touches no other run's containers."""
    site = f"reaper-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("KOZYR_SITE_ID", site)
    return site


def test_never_started_containers_are_reaped_after_the_grace_and_only_of_this_site(container_image, own_site):
    engine, _ = container_engine.find_engine()
    ours, theirs = container_engine.site_id(), f"another-site-{uuid.uuid4().hex[:8]}"
    names = {site: labelled(engine, site=site, start=False) for site in (ours, theirs)}
    try:
        assert containers(engine, *names.values()) == dict.fromkeys(names.values(), "stopped")
        # Just created: a live worker's `run` may be about to start it.
        assert container_reaper.reap_orphans() == []
        later = time.time() + container_reaper.NEVER_STARTED_GRACE_SECONDS + 5
        assert len(container_reaper.reap_orphans(now=later)) == 1
        assert containers(engine, *names.values()) == {names[theirs]: "stopped"}, "another site's was reaped"
        # That site's own reaper removes it.
        assert len(container_reaper.reap_orphans(now=later, site=theirs)) == 1
        assert containers(engine, names[theirs]) == {}
    finally:
        remove(engine, *names.values())


def test_bots_of_a_worker_container_the_engine_no_longer_runs_are_reaped_by_any_worker(container_image, own_site):
    # The worker container of another host name (a second worker host, a scaled-down worker): its bots run
    # while it does, and are reaped once it is stopped, by a worker of the site that is not its host.
    engine, _ = container_engine.find_engine()
    site = container_engine.site_id()
    worker = labelled(engine, site=f"worker-of-{site}", start=True)  # stands for the worker's own container
    worker_id = subprocess.run(engine.command("inspect", "--format", "{{.Id}}", worker), capture_output=True,
                               text=True, check=True).stdout.strip()  # fmt: skip
    bot = labelled(engine, site=site, worker=worker_id, start=True)
    try:
        wait_until(lambda: containers(engine, bot, worker) == {bot: "running", worker: "running"}, 60,
                   "the worker container and its bot to run")  # fmt: skip
        assert container_reaper.reap_orphans() == []
        assert containers(engine, bot) == {bot: "running"}, "a running worker's bot was reaped"
        subprocess.run(engine.command("stop", "--time", "0", worker), capture_output=True, check=True)
        assert len(container_reaper.reap_orphans()) == 1
        assert containers(engine, bot) == {}, "the stopped worker's bot is still there"
    finally:
        remove(engine, bot, worker)
