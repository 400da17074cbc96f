"""Kozel's rule options and presets (RULES.md §2, from the Uzbek 000 document)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.kozel.cards import DECKS
from arena.games.options import option, validate_rules

SOURCE_4P = "000 (Uzbek), 'maqtanchoqlik / shim' section; RULES.md §2"
SOURCE_3P = "000 (Uzbek), 3-player section; RULES.md §2"


@dataclass(frozen=True)
class Rules:
    players: int = option(
        4, choices=(4, 3), source=f"{SOURCE_4P}; {SOURCE_3P}",
        doc="4: two teams, partners opposite, 8 cards each. 3: 10 cards each and a 2-card widow; the hand "
            "with the most card points may take it unseen, discard 2, lead and play alone against the other "
            "two, or decline it: a misere, everyone for themselves.")
    deck: str = option(
        "no-sevens", choices=tuple(DECKS), source=f"{SOURCE_4P} (no sevens); {SOURCE_3P} (no sixes)",
        doc="no-sevens: A T K Q J 9 8 6, the six of clubs is the top trump. no-sixes: A T K Q J 9 8 7, the "
            "queen of clubs is the top trump and the sevens rank lowest. Follows 'players' (4: no-sevens, "
            "3: no-sixes) when only the player count is changed.",
        follows=("players", {4: "no-sevens", 3: "no-sixes"}))
    target: int = option(
        12, between=(1, 99), source="000 (Uzbek), 3-player section ('12 ball ... ECHKI'); RULES.md §2",
        doc="Penalty points that end the match; whoever reaches them first is the goat.")
    tie_doubles: bool = option(
        True, source="000 (Uzbek), Burkozel section (a drawn deal doubles the next); RULES.md §2",
        doc="A 60:60 hand scores nothing and the next decided hand's penalties are doubled; each further 60:60 "
            "hand in a row doubles again (x4, x8...). Off: a 60:60 hand simply scores nothing.")

    def __post_init__(self):
        validate_rules(self)

    @property
    def hand_size(self) -> int:
        return 8 if self.players == 4 else 10

    @property
    def widow_size(self) -> int:
        return 32 - self.players * self.hand_size


PRESETS: dict[str, Rules] = {
    "kozel": Rules(),
    "kozel-3p": Rules(players=3, deck="no-sixes"),  # 000's 3-player section removes the sixes
}
