"""Burraco's rule options and presets (RULES.md §3)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.options import option, validate_rules

STOCK_END = 2  # the hand ends when a draw leaves this many cards in the stock (or after that turn)


@dataclass(frozen=True)
class Rules:
    players: int = option(
        4, choices=(4, 2), source="001 (Uzbek, pagat); RULES.md §3",
        doc="4: two teams of two, partners opposite (seats 0 and 2 against 1 and 3); 2: each player is a team")
    target: int = option(
        2000, between=(1, 100_000), source="001 (Uzbek, pagat): 2000; Italian federation code: 2005",
        doc="the match ends after the hand in which a team reaches this total (2000 in the seed, 2005 in the "
            "federation's code; lower targets make short matches for tests and quick leagues)")
    stalemate_turns: int = option(
        24, between=(1, 1000), source="RULES.md §3 (the seed's 'no progress' end, made countable)",
        doc="the hand ends after this many consecutive turns in which nobody drew from the stock")
    duplicate_sets: str = option(
        "allowed", choices=("allowed", "forbidden"),
        source="RULES.md §3; the Italian federation's code forbids two sets of one rank",
        doc="allowed: a team may hold two sets of one rank; forbidden: a new set of a rank the team already "
            "holds as a set is refused")
    stock_end: str = option(
        "immediate", choices=("immediate", "finish_turn"),
        source="001 (Uzbek, pagat): play 'stops immediately' at two cards; pagat and the federation: the turn "
               "is finished",
        doc="immediate: the hand ends as soon as a draw leaves 2 cards in the stock, before the drawer melds; "
            "finish_turn: the drawer may still meld and discard, then the hand ends (no closing, no closing "
            "bonus, no pozzetto)")

    def __post_init__(self):
        validate_rules(self)

    def team_of(self, seat: int) -> int:
        return seat % 2

    def teams(self) -> list[list[int]]:
        return [[0, 2], [1, 3]] if self.players == 4 else [[0], [1]]


PRESETS: dict[str, Rules] = {
    "burraco": Rules(),
    "burraco-2p": Rules(players=2),
}
