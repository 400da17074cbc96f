"""tests/start-services.sh, which `make test` runs first: it starts PostgreSQL, Redis and the tests' own Redis
when they are installed but down, and names the one that still does not answer. Run against stand-in programs that
record how they were called (the real servers serve the rest of the suite meanwhile)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).parent / "start-services.sh"


def stand_ins(folder: Path, *, up: bool, starts: bool) -> Path:
    """pg_isready/redis-cli answer once 'started' (or always, when ``up``); the starters mark it."""
    folder.mkdir()
    state = folder / "state"
    state.mkdir()
    mark_pg = f"touch {state / 'pg'}" if starts else "true"
    # Each Redis by its port: the machine's on 6379, the tests' own on 6390.
    port = 'port=6379; while [ $# -gt 0 ]; do [ "$1" = -p ] || [ "$1" = --port ] && port=$2; shift; done'
    mark_redis = f"touch {state}/redis-$port" if starts else "true"
    programs = {
        "pg_isready": f'[ {str(up).lower()} = true ] || [ -e {state}/pg ]',
        "redis-cli": f'{port}; [ {str(up).lower()} = true ] || [ -e {state}/redis-$port ]',
        "pg_ctlcluster": f'echo "pg_ctlcluster $*" >> {state}/calls; {mark_pg}',
        "redis-server": f'echo "redis-server $*" >> {state}/calls; {port}; {mark_redis}',
        "ls": 'echo 15',
        "seq": 'echo 1 2',
        "sleep": 'true',
    }
    for name, body in programs.items():
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return state


def run(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/bash", str(SCRIPT)], env={"PATH": f"{folder}:/usr/bin:/bin"}, capture_output=True,
                          text=True, timeout=60, check=False)


def test_it_starts_nothing_when_both_answer(tmp_path):
    state = stand_ins(tmp_path / "bin", up=True, starts=True)
    done = run(tmp_path / "bin")
    assert done.returncode == 0, done.stderr
    assert not (state / "calls").exists()


def test_it_starts_every_server_that_is_down(tmp_path):
    state = stand_ins(tmp_path / "bin", up=False, starts=True)
    done = run(tmp_path / "bin")
    assert done.returncode == 0, done.stderr
    calls = (state / "calls").read_text().splitlines()
    assert calls == ["pg_ctlcluster --skip-systemctl-redirect 15 main start",
                     "redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save  --appendonly no",
                     "redis-server --daemonize yes --bind 127.0.0.1 --port 6390 --databases 256 --save  "
                     "--appendonly no --dir /tmp --logfile "]


def test_it_names_each_server_that_still_does_not_answer(tmp_path):
    stand_ins(tmp_path / "bin", up=False, starts=False)
    done = run(tmp_path / "bin")
    assert done.returncode == 1
    assert "PostgreSQL does not answer on 127.0.0.1:5432" in done.stderr
    assert "Redis does not answer on 127.0.0.1:6379" in done.stderr
    assert "the tests' Redis does not answer on 127.0.0.1:6390" in done.stderr
