"""Built-in Kozel bots: ``random`` (uniform over the legal actions) and ``greedy`` (a card-counting heuristic).

Both read only their observation and the listed legal actions, exactly what an external bot receives.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.kozel.cards import TABLES, TRUMP, CardTable
from arena.games.kozel.rules import Rules

UNLISTED = "Kozel lists its legal actions, but this request had none"


def _listed(legal_actions: list[dict] | None) -> list[dict]:
    """Kozel lists every legal action in its requests; a request without them is a caller's bug."""
    if legal_actions is None:
        raise ValueError(UNLISTED)
    return legal_actions


class RandomBot:
    def __init__(self, seat: int, rules: Rules, seed: int):
        self.seat = seat
        self.rng = random.Random(seed)
        self._bits = self.rng.getrandbits

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]] | None) -> dict[str, Any]:
        # ``self.rng.choice(legal_actions)`` written out (CPython's choice: rejection sampling on
        # getrandbits of the count's bit length), the very same draws without two calls per card played.
        if legal_actions is None:
            raise ValueError(UNLISTED)
        count = len(legal_actions)
        if not count:
            raise IndexError("Cannot choose from an empty sequence")
        bits = count.bit_length()
        pick = self._bits(bits)
        while pick >= count:
            pick = self._bits(bits)
        return legal_actions[pick]


class GreedyBot:
    """Wins tricks with points as cheaply as it can, keeps high trumps for tricks worth them, gives points to
    a partner whose card is sure to hold, and otherwise throws its least useful card.

    "Sure to hold" and "boss card" come from counting: every card not in this bot's hand and not yet
    played is assumed to be in some opponent's hand.
    """

    def __init__(self, seat: int, rules: Rules, seed: int):
        self.seat = seat
        self.table: CardTable = TABLES[rules.deck]
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]] | None) -> dict[str, Any]:
        if observation["decision"] == "widow":
            return {"type": "widow", "take": self._takes_widow(observation["hand"])}
        if observation["decision"] == "discard":
            return {"type": "discard", "cards": self._discard(observation["hand"])}
        legal = [a["card"] for a in _listed(legal_actions)]
        if observation["contract"] == "misere":
            return {"type": "play", "card": self._misere(observation, legal)}
        unseen = self._unseen(observation)
        if observation["trick"]:
            card = self._follow(observation, legal, unseen)
        else:
            card = self._lead(legal, unseen)
        return {"type": "play", "card": card}

    # ------------------------------------------------------------------ knowledge

    def _unseen(self, obs: dict[str, Any]) -> set[str]:
        seen = set(obs["hand"])
        seen.update(obs["trick"])
        for trick in obs["tricks"]:
            seen.update(trick["cards"])
        if obs["discard"]:
            seen.update(obs["discard"])
        return set(self.table.deck) - seen

    def _beats(self, card: str, best: str, led: str) -> bool:
        kind = self.table.kind[card]
        return kind in (TRUMP, led) and self.table.power[card] > self.table.power[best]

    def _secure(self, card: str, led: str, unseen: set[str]) -> bool:
        """No card still out could beat it."""
        return not any(self._beats(other, card, led) for other in unseen)

    def _cheapest(self, cards: list[str]) -> str:
        """The least useful card: fewest points, then lowest power (plain cards before any trump)."""
        points, power = self.table.points, self.table.power
        return min(cards, key=lambda c: (points[c], power[c], c))

    def _trump_worth(self, card: str) -> int:
        """Fewest trick points that justify spending this trump: the six of clubs and queens are kept for big
        tricks, jacks for middling ones, diamonds are cheap."""
        if card[0] == "Q" or card == "6C":
            return 10
        if card[0] == "J":
            return 4
        return 0

    # ------------------------------------------------------------------ decisions

    def _discard(self, hand: list[str]) -> list[str]:
        """Bank the points most at risk: plain tens and kings first, never a trump unless nothing else is left."""
        table = self.table

        def risk(card: str) -> tuple:
            if table.kind[card] == TRUMP:
                return (0, -table.power[card])
            if card[0] == "A":
                return (1, 0)
            return (2, table.points[card], -table.power[card])

        return sorted(sorted(hand, key=risk, reverse=True)[:2], key=table.order.__getitem__)

    def _takes_widow(self, hand: list[str]) -> bool:
        """Play alone with a strong hand: five trumps or more, or four with a high queen or the six of clubs."""
        trumps = [c for c in hand if self.table.kind[c] == TRUMP]
        return len(trumps) >= 5 or (len(trumps) >= 4 and any(c in ("6C", "QC", "QS") for c in trumps))

    def _misere(self, obs: dict[str, Any], legal: list[str]) -> str:
        """Everyone for themselves, penalised for points taken: duck under the trick with the highest card
        that still loses it, else shed the cheapest card; lead the weakest card."""
        table = self.table
        if not obs["trick"]:
            return min(legal, key=lambda c: (table.power[c], table.points[c], c))
        trick, led = obs["trick"], obs["led"]
        best = trick[table.winner_index(trick)]
        losers = [c for c in legal if not self._beats(c, best, led)]
        if losers:
            return max(losers, key=lambda c: (table.points[c], table.power[c], c))
        return min(legal, key=lambda c: (table.power[c], c))

    def _lead(self, legal: list[str], unseen: set[str]) -> str:
        table = self.table
        trumps = [c for c in legal if table.kind[c] == TRUMP]
        plain = [c for c in legal if table.kind[c] != TRUMP]
        if trumps:
            top = max(trumps, key=table.power.__getitem__)
            if len(trumps) >= 3 and self._secure(top, TRUMP, unseen):
                return top  # draw the opponents' trumps while this one is unbeatable
        bosses = [c for c in plain if self._secure(c, table.kind[c], {u for u in unseen if table.kind[u] != TRUMP})]
        if bosses:
            return max(bosses, key=lambda c: (table.points[c], c))
        if plain:
            return self._cheapest(plain)
        return self._cheapest(trumps)

    def _follow(self, obs: dict[str, Any], legal: list[str], unseen: set[str]) -> str:
        table = self.table
        trick, led, n = obs["trick"], obs["led"], obs["players"]
        leader = obs["leader"]
        best_index = table.winner_index(trick)
        best = trick[best_index]
        best_seat = (leader + best_index) % n
        last = len(trick) == n - 1
        my_side = obs["sides"][obs["my_side"]]
        value = sum(table.points[c] for c in trick)

        if best_seat in my_side:
            if last or self._secure(best, led, unseen):
                return max(legal, key=lambda c: (table.points[c], -table.power[c], c))  # give the partner points
            return self._cheapest(legal)

        winners = [c for c in legal if self._beats(c, best, led)]
        if not last:
            winners = [c for c in winners if self._secure(c, led, unseen)]
        worth = [c for c in winners
                 if table.kind[c] != TRUMP or value + table.points[c] >= self._trump_worth(c)]
        if worth:
            plain = [c for c in worth if table.kind[c] != TRUMP]
            if plain:
                return max(plain, key=lambda c: (table.points[c], c))
            return min(worth, key=lambda c: (table.power[c], c))
        return self._cheapest(legal)


BOTS = {"random": RandomBot, "greedy": GreedyBot}
