"""On the real engine: a container the engine cannot start (`run` exit 125) is a sandbox failure, and a match
whose bot it could not start is aborted, nobody's loss; a bot that exits 125 by itself still loses.

Issue 26 found the platform recording podman's refusal of the seccomp profile as every uploaded bot's crash."""

from __future__ import annotations

import pytest

from arena import protocol
from arena.botspec import parse_bot
from arena.referee import TimeControl
from arena.runner import build_schedule, run_job
from sandbox import Limits, start
from sandbox.backends import docker as docker_backend
from tests.sandbox.conftest import finish, read_until

BOT_EXITING_125 = "import sys; sys.stdout.write('started\\n'); sys.stdout.flush(); sys.exit(125)"


def engine_failures():
    return [
        pytest.param({"env": ("KOZYR_SANDBOX_DOCKER_IMAGE", "localhost/kozyr-no-such-image:none")},
                     id="no-such-image"),
        pytest.param({"seccomp": "/nonexistent/kozyr-seccomp.json"}, id="unreadable-seccomp-profile"),
    ]


@pytest.fixture
def broken_engine(request, monkeypatch, container_image):
    failure = request.param
    if "env" in failure:
        monkeypatch.setenv(*failure["env"])
    if "seccomp" in failure:
        monkeypatch.setattr(docker_backend.container_seccomp, "profile_path", lambda: failure["seccomp"])


@pytest.mark.parametrize("broken_engine", engine_failures(), indirect=True)
def test_a_container_the_engine_refuses_to_start_is_a_sandbox_failure(broken_engine, tmp_path):
    (tmp_path / "bot.py").write_text("print('hello')\n")
    proc = start(["python3", "bot.py"], tmp_path, Limits(wall_seconds=30), backend="docker")
    run = finish(proc, read_until(proc, seconds=20), grace=5)
    assert run.report.outcome == "sandbox_failure", (run.report.to_dict(), run.stderr)
    assert run.report.exit_code == 125  # what `run` said; not taken as the bot's own exit
    proc.close()


def test_a_bot_that_exits_125_itself_in_a_real_container_is_a_runtime_error(container_image, tmp_path):
    proc = start(["python3", "-c", BOT_EXITING_125], tmp_path, Limits(wall_seconds=30), backend="docker")
    printed = read_until(proc, seconds=20)
    run = finish(proc, printed, grace=5)
    assert printed == b"started\n"
    assert (run.report.outcome, run.report.exit_code) == ("runtime_error", 125), run.report.to_dict()
    proc.close()


@pytest.mark.parametrize("broken_engine", engine_failures()[:1], indirect=True)
def test_a_match_whose_bot_the_engine_cannot_start_is_aborted_not_forfeited(broken_engine, tmp_path):
    script = tmp_path / "bot.py"
    script.write_text("import sys\nfor line in sys.stdin: print('{}')\n")
    spec = parse_bot(str(script), tmp_path / "staging", [])
    schedule = build_schedule(preset="bura", overrides={"match": "deals:1"}, bots=[spec, parse_bot(
        "builtin:random", tmp_path / "staging", ["random"])], games=1, base_seed=7, duplicate=False,
        time_control=TimeControl(), sandbox="docker")
    result, _ = run_job(schedule.jobs[0])
    seat = next(s for s in result["seats"] if s["bot"] == spec.label)
    assert (seat["verdict"], seat["code"]) == (protocol.ABORTED, "infrastructure"), seat
    assert result["ended_by"] == "aborted"
