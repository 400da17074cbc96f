"""The starter kits in examples/ play every preset of their game against the built-in random bot.

The presets come from `arena games` at collection time, kept to the game families whose rules page
(docs/rules/<game>.md) exists: a starter kit is written from the docs alone, so a game without a rules
page has no kit yet. Every such preset must have every kit (Python, JavaScript, C++, Rust, Go, Java); a
missing kit fails. The compiled kits are built as `arena play` builds them (in the sandbox backend in use,
here `unsafe`), once for as long as their sources and toolchains stay the same (the cache is in .cache/tests).
"""

import contextlib
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from arena.cli import main as arena_main

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = {"python": "main.py", "js": "main.js", "cpp": "main.cpp", "rust": "main.rs", "go": "main.go",
             "java": "Main.java"}
COMPILERS = {"cpp": "g++", "rust": "rustc", "go": "go", "java": "javac"}


@pytest.fixture(scope="module", autouse=True)
def _build_cache():
    """arena play's build cache ($XDG_CACHE_HOME/kozyr/builds) in the checkout's ignored .cache/tests: builds are
    kept by their content (sources, toolchain, compile command), so a kit is compiled once until it changes, and
    xdist's processes share what either built (each build is written whole, then renamed)."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(ROOT / ".cache" / "tests")
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


def _presets():
    """(preset, game, players) for every preset `arena games` lists whose game has a rules page."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        arena_main(["games"])
    found, current = [], None
    for line in out.getvalue().splitlines():
        header = re.match(r"^(\S+)\s+\(game (\S+)\)", line)
        players = re.match(r"^\s+players\s+(\d+)\s", line)
        if header:
            current = header.groups()
        elif players and current:
            found.append((current[0], current[1], int(players.group(1))))
            current = None
    return [p for p in found if (ROOT / "docs" / "rules" / f"{p[1]}.md").exists()]


PRESETS = _presets()
CASES = [(preset, game, players, lang) for preset, game, players in PRESETS for lang in LANGUAGES]


def _play(preset, bots, tmp_path, *extra):
    out = tmp_path / "results.json"
    args = ["play", preset, *bots, "--seed", "1", "--sandbox", "unsafe", "--quiet", "--json", str(out), *extra]
    with contextlib.redirect_stdout(io.StringIO()):
        code = arena_main(args)
    assert code in (0, None), f"arena play exited with {code}"
    return json.loads(out.read_text())


def test_there_is_something_to_test():
    assert PRESETS, "`arena games` lists no preset of a game with a rules page"


@pytest.mark.parametrize(("preset", "game", "players", "lang"), CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_example_plays_every_seat_without_fault(preset, game, players, lang, tmp_path):
    if lang == "js" and shutil.which("node") is None:
        pytest.fail("node is not installed, but the JavaScript starter kits need it")
    if lang in COMPILERS and shutil.which(COMPILERS[lang]) is None:
        pytest.fail(f"{COMPILERS[lang]} is not installed, but the {lang} starter kits need it "
                    f"(sandbox/image/install-runtimes.sh)")
    bot = ROOT / "examples" / game / lang
    assert (bot / LANGUAGES[lang]).is_file(), f"no {lang} starter kit for {game}"
    # One deal sequence, once per rotation of the seats: the example sits in every seat once.
    bots = [str(bot)] + ["builtin:random"] * (players - 1)
    results = _play(preset, bots, tmp_path, "--games", "1", "--duplicate")
    assert len(results["matches"]) >= players
    for match in results["matches"]:
        assert match["finished"]
        for seat in match["seats"]:
            assert seat["verdict"] == "ok", seat
            assert not any("no plan" in line for line in seat["stderr_tail"]), seat


BEATS = [(p[0], p[1], games) for p in PRESETS for name, games in (("bura", 20), ("kozel", 20), ("burraco-2p", 6))
         if p[0] == name]


@pytest.mark.parametrize(("preset", "game", "games"), BEATS, ids=[b[0] for b in BEATS])
def test_python_example_beats_random(preset, game, games, tmp_path):
    bot = str(ROOT / "examples" / game / "python")
    results = _play(preset, [bot, "builtin:random"], tmp_path, "--games", str(games))
    score = {row["bot"]: row["score"] for row in results["summary"]}
    assert score[bot] > 0.5, results["summary"]


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "python"])
def test_every_other_kit_beats_random_at_bura(lang, tmp_path):
    """The kits in other languages play the Python kit's strategy: they beat random as it does."""
    bot = str(ROOT / "examples" / "bura" / lang)
    results = _play("bura", [bot, "builtin:random"], tmp_path, "--games", "10")
    score = {row["bot"]: row["score"] for row in results["summary"]}
    assert score[bot] > 0.5, results["summary"]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_burraco_kit_keeps_the_federations_options(lang, tmp_path):
    """With duplicate_sets=forbidden and stock_end=finish_turn (no preset's defaults), a kit never puts
    down a second set of one rank and keeps a card for the hand's last discard."""
    bot = str(ROOT / "examples" / "burraco" / lang)
    results = _play("burraco-2p", [bot, "builtin:greedy"], tmp_path, "--games", "5", "--duplicate",
                    "--rule", "duplicate_sets=forbidden", "--rule", "stock_end=finish_turn")
    faults = [seat for match in results["matches"] for seat in match["seats"] if seat["verdict"] != "ok"]
    assert not faults, faults
