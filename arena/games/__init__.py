"""The games Kozyr hosts, registered in one plain mapping.

Each game module provides ``GAME`` (its name), a frozen ``Rules`` dataclass, ``PRESETS`` (preset name →
Rules) and ``new_match(rules, seed)`` returning a state that keeps ``arena.games.base.MatchState``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from arena.games.base import RuleOptionError
from arena.games.options import with_options

GAME_MODULES: dict[str, str] = {
    "bura": "arena.games.bura",
    "kozel": "arena.games.kozel",
    "burraco": "arena.games.burraco",
}


def load_game(name: str) -> ModuleType:
    if name not in GAME_MODULES:
        raise RuleOptionError(f"unknown game {name!r}; games are: {', '.join(sorted(GAME_MODULES))}")
    return importlib.import_module(GAME_MODULES[name])


def all_presets() -> dict[str, tuple[str, Any]]:
    """Preset name → (game name, Rules), in registry order."""
    found: dict[str, tuple[str, Any]] = {}
    for game in GAME_MODULES:
        for preset, rules in load_game(game).PRESETS.items():
            found[preset] = (game, rules)
    return found


def game_of_rules(rules: Any) -> str:
    for game in GAME_MODULES:
        if isinstance(rules, load_game(game).Rules):
            return game
    raise RuleOptionError(f"{type(rules).__name__} is not the Rules of a registered game")


def resolve(preset: str, overrides: Mapping[str, Any] | None = None) -> tuple[str, Any]:
    """(game, Rules) for a preset name with optional ``key=value`` overrides, validated."""
    presets = all_presets()
    if preset not in presets:
        raise RuleOptionError(f"unknown preset {preset!r}; presets are: {', '.join(presets)}")
    game, rules = presets[preset]
    return game, with_options(rules, overrides or {})


def new_match(rules: Any, seed: int):
    return load_game(game_of_rules(rules)).new_match(rules, seed)
