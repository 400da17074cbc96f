"""Graded built-in bots: ``greedy-pNN`` plays the game's ``greedy`` move with probability NN% and its
``random`` move otherwise, for every game.

They exist to test and benchmark ratings: the strength order ``random`` < ``greedy-p10`` < … <
``greedy-p90`` < ``greedy`` is known in advance (more greedy decisions win more), so a rating system
can be checked against it. Each decision flips its own coin; the coin and both inner bots draw from
streams derived from the bot's seed, so a graded bot is as reproducible as any other built-in bot.
The inner bots decide from the observation alone (Burraco's greedy only caches melds it decoded, keyed
by the observation's deal), so either may take any decision, whoever took the previous one.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from arena.cards import derive_seed

GRADES = (10, 25, 50, 75, 90)  # percent of decisions taken by greedy

COIN, GREEDY, RANDOM = 0, 1, 2  # labels of the seed streams


def graded_name(percent: int) -> str:
    return f"greedy-p{percent}"


class GradedBot:
    """Greedy with probability ``p`` per decision, random otherwise."""

    def __init__(self, base_bots: dict[str, Any], p: float, seat: int, rules: Any, seed: int):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"greedy probability must be within [0, 1], got {p}")
        self.p = p
        self.seat = seat
        self.coin = random.Random(derive_seed(seed, COIN))
        self.greedy = base_bots["greedy"](seat, rules, derive_seed(seed, GREEDY))
        self.random = base_bots["random"](seat, rules, derive_seed(seed, RANDOM))

    def act(self, observation: dict, legal_actions: list[dict] | None) -> dict:
        bot = self.greedy if self.coin.random() < self.p else self.random
        return bot.act(observation, legal_actions)


def graded_bots(module_name: str) -> dict[str, Any]:
    """``greedy-pNN`` constructors built on the ``greedy`` and ``random`` bots of one game's bot module."""
    base = importlib.import_module(module_name).BOTS

    def grade(percent: int):
        def make(seat: int, rules: Any, seed: int) -> GradedBot:
            return GradedBot(base, percent / 100, seat, rules, seed)
        make.__name__ = make.__qualname__ = graded_name(percent)
        return make

    return {graded_name(percent): grade(percent) for percent in GRADES}
