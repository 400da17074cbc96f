"""Built-in bots, per game, registered in one plain mapping.

A bot is a class ``Bot(seat, rules, seed)`` with ``act(observation, legal_actions) -> action``. It sees
only what an external bot sees through the protocol (its observation and, where listed, the legal
actions), and draws randomness only from its own seed, so matches between built-in bots are
reproducible. Each game's bots live in ``arena/bots/<game>.py`` as ``BOTS = {"random": ..., ...}``.
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.bots.graded import graded_bots  # greedy-pNN for every game, built on its greedy and random
from arena.bots.search import search_bots  # search-1..3: determinized search, where the game has a sampler

BOT_MODULES: dict[str, str] = {
    "bura": "arena.bots.bura",
    "kozel": "arena.bots.kozel",
    "burraco": "arena.bots.burraco",
}


def bots_for(game: str) -> dict[str, Any]:
    if game not in BOT_MODULES:
        raise ValueError(f"no built-in bots for game {game!r}")
    return {**importlib.import_module(BOT_MODULES[game]).BOTS, **graded_bots(BOT_MODULES[game]),
            **search_bots(game, BOT_MODULES[game])}


def make_bot(game: str, name: str, seat: int, rules: Any, seed: int):
    bots = bots_for(game)
    if name not in bots:
        raise ValueError(f"unknown built-in bot {name!r} for {game}; built-ins are: {', '.join(sorted(bots))}")
    return bots[name](seat, rules, seed)
