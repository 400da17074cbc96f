"""Helpers of the browser tests: screenshots, the stored replay, the engine's own view of a position."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import orjson

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def stored_replay(match) -> dict:
    from bots import blobs

    return orjson.loads(gzip.decompress(blobs.get("replays", match.replay_sha256)))


def engine_state(replay: dict, step: int):
    """The engine's state after ``step`` recorded actions."""
    from arena.games import load_game, new_match

    state = new_match(load_game(replay["game"]).Rules(**replay["rules"]), replay["seed"])
    for entry in replay["actions"][:step]:
        state.apply(entry["seat"], entry["action"])
    return state


def wait_in_page(page, predicate, timeout: float, what: str):
    """Poll ``predicate`` while Playwright's event loop runs (a dialog's handler, say, only runs inside a
    Playwright call), and return its first true value; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        page.wait_for_timeout(20)
    return value
