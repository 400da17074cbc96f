"""Kozel (RULES.md §2): a must-follow trick game with permanent trumps, 4 players in two teams or 3
with a widow and a soloist, scored in penalty points to 12 — the first to get there is the goat.

Modules: ``cards`` (trump order, points), ``rules`` (options and presets), ``scoring`` (penalties for
one hand), ``views`` (what each seat sees), ``state`` (the match). Rules in full: docs/rules/kozel.md.
"""

from arena.games.kozel.rules import PRESETS, Rules
from arena.games.kozel.state import GAME, KozelState, new_match

__all__ = ["GAME", "PRESETS", "KozelState", "Rules", "new_match"]
