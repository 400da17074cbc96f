"""The sweep removes only what dead owners of its own state folder left: never a live bot of a worker that
uses another state folder, never what a worker that starts while the sweep runs has just made, never a
folder of another thread of the same process; and the runner's own copy of the bots is swept like the rest.

Every worker here runs in a cgroup of its own made for the test, so the sweeps it causes see only the
`kozyr-sandbox` folders of these workers, never those of anyone else using the sandbox on this machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from sandbox import cgroups
from tests.sandbox.conftest import HOSTILE
from tests.support.polling import wait_until
from tests.support.resources import private_sandbox_env

ROOT = Path(__file__).parents[2]
DEAD = "999999999-deadbeef"  # an owner token of the old form that no process holds

# A worker that runs the echo bot, says where its run folder and cgroups are, and on each line it reads checks
# that the bot still answers.
WORKER = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from sandbox import Limits, start
    proc = start(["python3", "echo.py"], Path(sys.argv[1]), Limits(wall_seconds=60), backend="bwrap")
    ready = proc.stdout.readline()
    assert ready == b'{"type": "ready"}\\n', (ready, proc.finish(grace_seconds=0).to_dict())
    confinement = proc._confinement
    print(json.dumps([str(confinement._staging.root)] + [str(d) for d in confinement._cgroups.dirs]), flush=True)
    for _ in sys.stdin:
        proc.stdin.write(b"still here\\n")
        proc.stdin.flush()
        print(proc.stdout.readline().decode().strip() or "no answer", flush=True)
""")
# The next worker: start a sandbox (whose first use sweeps) and finish it.
NEXT = ("import sys; from pathlib import Path; from sandbox import Limits, start; "
        "p = start(['python3', 'echo.py'], Path(sys.argv[1]), Limits(wall_seconds=30), backend='bwrap'); "
        "p.close()")  # fmt: skip


class PrivateCgroup:
    """A cgroup of the test's own, one per hierarchy the sandbox uses, that processes are started in (none
    where this process can make no cgroup: then the sandbox uses none either)."""

    def __init__(self):
        support = cgroups.detect()
        homes = {support.v2_home, *support.v1_homes.values()} - {None}
        name = f"kozyr-leftovers-test-{secrets.token_hex(4)}"
        self.groups = [home.parent / name for home in homes]
        for group in self.groups:
            group.mkdir()

    def enter(self) -> None:
        """preexec_fn: move the new process in (its cgroups, and its `kozyr-sandbox` folders, are then here)."""
        for group in self.groups:
            fd = os.open(group / "cgroup.procs", os.O_WRONLY)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)

    def popen(self, argv: list[str], env: dict[str, str], **kwargs) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env}, preexec_fn=self.enter, **kwargs)

    def run(self, argv: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=ROOT, env={**os.environ, **env}, preexec_fn=self.enter, timeout=timeout,
                              capture_output=True, text=True, check=False)  # fmt: skip

    def remove(self) -> None:
        for group in self.groups:
            for folder in sorted((p for p in group.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                _empty_and_remove(folder)
            _empty_and_remove(group)


def _empty_and_remove(folder: Path) -> None:
    for _ in range(300):
        with contextlib.suppress(OSError, ValueError):
            for pid in (folder / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


@pytest.fixture
def private_cgroup():
    group = PrivateCgroup()
    yield group
    group.remove()


@pytest.fixture
def scratch() -> Path:
    """A folder for the state folders (and bots) of the workers: sandbox uids must be able to traverse a state
    folder's parents, which pytest's own temporary folders do not let them."""
    folder = Path(tempfile.mkdtemp(prefix="kozyr-leftovers-test-"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def bot(scratch) -> Path:
    folder = scratch / "bot"
    folder.mkdir()
    (folder / "echo.py").write_text((HOSTILE / "echo.py").read_text())
    return folder


def state(folder: Path, name: str) -> dict[str, str]:
    return private_sandbox_env(folder / name)


def start_worker(group: PrivateCgroup, bot: Path, env: dict[str, str]) -> tuple[subprocess.Popen, list[Path]]:
    worker = group.popen([sys.executable, "-c", WORKER, str(bot)], env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)  # fmt: skip
    line = worker.stdout.readline()
    assert line, "the worker did not start its bot"
    return worker, [Path(path) for path in json.loads(line)]


def still_answers(worker: subprocess.Popen) -> str:
    worker.stdin.write("\n")
    worker.stdin.flush()
    return worker.stdout.readline().strip()


def stop(worker: subprocess.Popen) -> None:
    worker.kill()
    worker.wait()


def test_a_sweep_leaves_alone_the_bots_and_leftovers_of_another_state_folder(private_cgroup, bot, scratch):
    if not private_cgroup.groups:
        pytest.skip("this process cannot create cgroups, the only thing workers of two state folders share")
    worker, held = start_worker(private_cgroup, bot, state(scratch, "a"))
    try:
        # A worker with a state folder of its own starts a sandbox, and so sweeps, in the same cgroup folder.
        other = private_cgroup.run([sys.executable, "-c", NEXT, str(bot)], state(scratch, "b"))
        assert other.returncode == 0, other.stderr
        assert [path for path in held if not path.exists()] == []
        assert still_answers(worker) == "still here"
    finally:
        stop(worker)
    # What it leaves when killed is its own state folder's to sweep: not the other one's, but its own's.
    assert all(path.exists() for path in held)
    assert private_cgroup.run([sys.executable, "-c", NEXT, str(bot)], state(scratch, "b")).returncode == 0
    assert [path for path in held if not path.exists()] == []
    assert private_cgroup.run([sys.executable, "-c", NEXT, str(bot)], state(scratch, "a")).returncode == 0
    assert [path for path in held if path.exists()] == []


def test_a_worker_that_starts_while_a_sweep_runs_keeps_its_folder_and_cgroups(private_cgroup, bot, scratch):
    env = state(scratch, "state")
    # A dead owner's big folder keeps the sweep busy long enough to stop it between its look at who is alive
    # and its removals.
    runs = scratch / "state" / "runs"
    runs.mkdir(parents=True)
    big = runs / f"{DEAD}.big"
    big.mkdir()
    (scratch / "file").touch()
    for i in range(200):
        (big / str(i)).mkdir()
        for j in range(200):
            os.link(scratch / "file", big / str(i) / str(j))
    sweeper = private_cgroup.popen([sys.executable, "-c", "from sandbox.leftovers import owner; owner()"], env)
    try:
        while len(os.listdir(big)) == 200 and sweeper.poll() is None:
            time.sleep(0.0005)
        sweeper.send_signal(signal.SIGSTOP)
        assert big.exists(), "the sweep was not caught before its removals: the test proves nothing"
        worker, held = start_worker(private_cgroup, bot, env)
    finally:
        sweeper.send_signal(signal.SIGCONT)
    try:
        assert sweeper.wait(timeout=60) == 0
        assert [path for path in held if not path.exists()] == []
        assert still_answers(worker) == "still here"
        assert not big.exists()
    finally:
        stop(worker)


THREADS = textwrap.dedent("""
    import json, sys, threading
    from pathlib import Path
    from sandbox import Limits, leftovers, start
    first_use, all_started = threading.Barrier(8), threading.Barrier(8)
    tokens, answers, errors = [], [], []

    def run():
        first_use.wait()
        try:
            tokens.append(leftovers.owner())
            proc = start(["python3", "echo.py"], Path(sys.argv[1]), Limits(wall_seconds=60), backend="bwrap")
        except Exception as error:
            errors.append(repr(error))
            return
        finally:
            all_started.wait()  # every sweep done, every bot started
        # Asked from the thread that started it: bwrap dies with that thread (--die-with-parent).
        proc.stdin.write(b"still here\\n")
        answers.append((proc.stdout.readline() + proc.stdout.readline()).decode())
        proc.close()

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"tokens": sorted(set(tokens)), "errors": errors, "answers": answers}))
""")


def test_threads_of_one_process_share_one_owner_and_keep_their_bots(private_cgroup, bot, scratch):
    env = state(scratch, "state")
    # The native launcher is built by the first start in a state folder: not what this test is about.
    assert private_cgroup.run([sys.executable, "-c", NEXT, str(bot)], env).returncode == 0
    for _ in range(3):  # the first use of owner() in a process is what races
        done = private_cgroup.run([sys.executable, "-c", THREADS, str(bot)], env)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert (len(result["tokens"]), result["errors"]) == (1, []), result
        assert result["answers"] == ['{"type": "ready"}\nstill here\n'] * 8


SLOW = """import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "slowpoke"}), flush=True)
    elif m["type"] == "request":
        time.sleep(0.8)
        print(json.dumps({"type": "action", "id": m["id"], "action": m["legal_actions"][0]}), flush=True)
"""
GOOD = SLOW.replace("time.sleep(0.8)", "pass").replace("slowpoke", "good")


def copies(folder: Path, name: str) -> list[Path]:
    """Every copy of the bot file `name` under folder, except the bots' own folder."""
    return sorted(path for path in folder.rglob(name) if path.parent != folder / "bots")


def test_the_runner_s_copy_of_the_bots_is_swept_after_it_was_killed(private_cgroup, scratch):
    bots = scratch / "bots"
    bots.mkdir()
    (bots / "slowpoke.py").write_text(SLOW)
    (bots / "good.py").write_text(GOOD)
    (scratch / "tmp").mkdir()
    env = {**state(scratch, "state"), "TMPDIR": str(scratch / "tmp")}
    play = [sys.executable, "-m", "arena.cli", "play", "bura", "builtin:random"]
    runner = private_cgroup.popen([*play, str(bots / "slowpoke.py"), "--quiet", "--seed", "5"], env)
    try:
        # Both copies made, the runner's and the sandbox's: the bot is starting or playing.
        wait_until(lambda: len(copies(scratch, "slowpoke.py")) == 2 or runner.poll() is not None, 30,
                   "the runner's and the sandbox's copies of the bot")  # fmt: skip
        assert len(copies(scratch, "slowpoke.py")) == 2 and runner.poll() is None
    finally:
        runner.kill()
        runner.wait()
    assert len(copies(scratch, "slowpoke.py")) == 2, "nothing left to sweep: the test proves nothing"
    following = private_cgroup.run([*play, str(bots / "good.py"), "--quiet", "--seed", "5"], env)
    assert following.returncode == 0, following.stderr
    assert copies(scratch, "slowpoke.py") == []
    assert copies(scratch, "good.py") == []  # the run that finished took its own copies with it


def test_a_run_of_built_in_bots_only_never_touches_the_sandbox(tmp_path):
    env = {**os.environ, **state(tmp_path, "state")}
    play = [sys.executable, "-m", "arena.cli", "play", "bura", "builtin:random", "builtin:greedy", "--quiet"]
    assert subprocess.run(play, cwd=ROOT, env=env, timeout=60, check=False).returncode == 0
    assert not (tmp_path / "state").exists()
