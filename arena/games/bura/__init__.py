"""The Bura family — Bura, Burkozel, Echki — as one parameterised engine (RULES.md §1, docs/rules/bura.md).

Modules: ``ranking`` (card order, points, set beats set), ``rules`` (options and presets), ``combos``
(combinations), ``scoring`` (penalties of a deal), ``views`` (what each seat sees) and ``state`` (the match).
"""

from __future__ import annotations

from arena.games.bura.rules import PRESETS, Rules
from arena.games.bura.state import BuraMatch

GAME = "bura"

__all__ = ["GAME", "PRESETS", "BuraMatch", "Rules", "new_match"]


def new_match(rules: Rules, seed: int) -> BuraMatch:
    return BuraMatch(rules, seed)
