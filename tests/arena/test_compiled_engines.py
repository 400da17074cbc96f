"""The compiled engines (arena/compiled.py): built by make, the same code as the source, never stale.

`make test` runs the suite on the engines' Python source (coverage sees it); here the engine tests run again
in a process that may only use the compiled build, and the guard against a stale build is tried on a copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import compiled

REPO = Path(__file__).resolve().parents[2]
# The engine tests that drive every decision, hostile input, copies, pickles and the environments through
# every family's engine (Burraco's slow OpenSpiel check is left to the main run).
ENGINE_TESTS = [
    *sorted(str(p.relative_to(REPO)) for family in compiled.FAMILIES
            for p in (REPO / "tests" / "arena").glob(f"test_{family}_*.py")),
    "tests/arena/test_hostile_actions.py", "tests/arena/test_replay_frames_games.py",
    "tests/arena/test_replays_before_issue10.py", "tests/arena/env/test_env_digest.py",
    "tests/arena/env/test_env.py", "tests/arena/env/test_openspiel.py",
]


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_make_built_every_family_from_the_source_here():
    for family in compiled.FAMILIES:
        files, why = compiled.check(family)
        assert files is not None, f"{family}: {why}"


def test_the_engine_tests_pass_on_the_compiled_build():
    # KOZYR_ENGINES=compiled: importing a family without a current build fails, so passing means compiled.
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov",
               "-k", "not burraco_passes_openspiels", *ENGINE_TESTS]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "KOZYR_ENGINES": "compiled"})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "error" not in result.stdout.splitlines()[-1]


@pytest.mark.parametrize(("preset", "bot"), [("burkozel", "greedy"), ("kozel-3p", "greedy"),
                                             ("burraco-2p", "random")])
def test_a_compiled_process_runs_the_compiled_modules_and_the_same_match(preset, bot):
    probe = ("import json\nfrom arena import compiled\nfrom arena.games import resolve, new_match\n"
             "from arena.bots import make_bot\n"
             f"game, rules = resolve({preset!r})\nstate = new_match(rules, 77)\n"
             f"bots = [make_bot(game, {bot!r}, s, rules, s) for s in range(state.num_seats)]\n"
             "while not state.is_over():\n"
             "    seat = state.to_move()\n"
             "    state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))\n"
             "print(json.dumps({'compiled': [compiled.is_compiled(m) for m in compiled.FAMILIES[game]],\n"
             "    'events': state.events(None), 'seen': [state.events(s) for s in range(state.num_seats)],\n"
             "    'outcome': state.outcome()}))\n")
    fast, plain = (run(probe, KOZYR_ENGINES=mode) for mode in ("compiled", "python"))
    assert fast.returncode == 0 and plain.returncode == 0, fast.stderr + plain.stderr
    fast_out, plain_out = json.loads(fast.stdout), json.loads(plain.stdout)
    assert set(fast_out.pop("compiled")) == {True}
    assert set(plain_out.pop("compiled")) == {False}
    assert fast_out == plain_out


@pytest.fixture
def build_copy(tmp_path) -> Path:
    """A copy of this checkout's Bura build, to spoil."""
    files, why = compiled.check("bura")
    assert files is not None, why
    shutil.copytree(compiled.BUILD_DIR / "bura", tmp_path / "bura")
    return tmp_path


def spoil(build: Path, **changes) -> None:
    manifest_file = build / "bura" / compiled.MANIFEST
    manifest = json.loads(manifest_file.read_text())
    manifest.update(changes)
    manifest_file.write_text(json.dumps(manifest))


def test_a_source_changed_since_the_build_runs_as_python_and_says_so(build_copy):
    assert compiled.check("bura", build_copy)[1] == "compiled"
    sources = json.loads((build_copy / "bura" / compiled.MANIFEST).read_text())["sources"]
    spoil(build_copy, sources={**sources, "arena.games.bura.views": "0" * 64})
    assert compiled.check("bura", build_copy) == (None, "arena/games/bura/views.py changed since the build")

    probe = ("from arena import compiled\nimport arena.games.bura\n"
             "print(compiled.is_compiled('arena.games.bura.state'), compiled.status()['bura'])")
    auto = run(probe, KOZYR_ENGINES="auto", KOZYR_ENGINES_DIR=str(build_copy))
    assert auto.returncode == 0, auto.stderr
    assert auto.stdout.strip() == "False python: arena/games/bura/views.py changed since the build"

    strict = run(probe, KOZYR_ENGINES="compiled", KOZYR_ENGINES_DIR=str(build_copy))
    assert strict.returncode != 0
    assert ("has no current compiled build: arena/games/bura/views.py changed since the build"
            in strict.stderr.splitlines()[-1])
    assert strict.stderr.splitlines()[-1].startswith("ImportError: KOZYR_ENGINES=compiled, but arena.")


def test_a_build_for_another_interpreter_or_missing_files_is_not_used(build_copy):
    spoil(build_copy, abi="cpython-399-elsewhere")
    files, why = compiled.check("bura", build_copy)
    assert files is None and why.startswith("built for cpython-399-elsewhere, and this interpreter is cpython-")

    shutil.rmtree(build_copy / "bura")
    shutil.copytree(compiled.BUILD_DIR / "bura", build_copy / "bura")
    (build_copy / "bura" / json.loads((build_copy / "bura" / compiled.MANIFEST).read_text())
     ["files"]["arena.games.bura.state"]).unlink()
    files, why = compiled.check("bura", build_copy)
    assert files is None and why.startswith("compiled files are missing: ") and "state" in why

    assert compiled.check("bura", build_copy / "nowhere") == (
        None, "not built (`arena engines build` builds it; `make` runs that)")


def test_python_mode_never_loads_a_compiled_module():
    probe = ("from arena import compiled\nimport arena.games.bura\n"
             "print(compiled.is_compiled('arena.games.bura.state'), compiled.status()['bura'])")
    plain = run(probe, KOZYR_ENGINES="python")
    assert plain.stdout.strip() == "False python (KOZYR_ENGINES=python)", plain.stderr


def test_a_bad_engines_setting_is_named():
    result = run("import arena.games", KOZYR_ENGINES="fast")
    assert result.returncode != 0
    assert "ValueError: KOZYR_ENGINES must be one of auto, python, compiled, not 'fast'" in result.stderr


def test_arena_engines_reports_each_family_and_refuses_unknown_ones():
    arena = [sys.executable, "-m", "arena.cli", "engines"]
    status = subprocess.run(arena, cwd=REPO, capture_output=True, text=True, env={**os.environ,
                                                                                 "KOZYR_ENGINES": "auto"})
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines()[0] == f"KOZYR_ENGINES=auto; builds in {compiled.BUILD_DIR}"
    assert "bura     compiled" in status.stdout.splitlines()

    unknown = subprocess.run([*arena, "build", "poker"], cwd=REPO, capture_output=True, text=True,
                             env={**os.environ, "KOZYR_ENGINES": "python"})
    assert unknown.returncode == 2
    assert f"unknown engine family 'poker'; families: {', '.join(compiled.FAMILIES)}" in unknown.stderr


def test_without_a_c_compiler_the_build_says_so_and_leaves_the_engines_as_they_are(tmp_path):
    result = subprocess.run([sys.executable, "-m", "arena.cli", "engines", "build"], cwd=REPO, capture_output=True,
                            text=True, env={**os.environ, "PATH": str(tmp_path), "KOZYR_ENGINES_DIR": str(tmp_path),
                                                "KOZYR_ENGINES": "python"})
    assert result.returncode == 1
    assert "arena: the engines stay plain Python: no C compiler (" in result.stderr
    assert not (tmp_path / "bura").exists()
