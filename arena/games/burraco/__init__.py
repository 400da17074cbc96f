"""Burraco (RULES.md §3): the Italian rummy for two teams of two, or two players, with pozzetti.

``new_match(rules, seed)`` returns a :class:`BurracoState` (the whole match). Rules in
``docs/rules/burraco.md``; melds in :mod:`.melds`, scores in :mod:`.scoring`, what each seat sees in :mod:`.views`.
"""

from __future__ import annotations

from arena.games.burraco.rules import PRESETS, Rules
from arena.games.burraco.state import BurracoState, new_match

GAME = "burraco"

__all__ = ["GAME", "PRESETS", "BurracoState", "Rules", "new_match"]
