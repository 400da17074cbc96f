"""Built-in Bura-family bots: ``random`` (a baseline) and ``greedy`` (a simple, honest opponent).

Both see only their observation and the listed legal actions, exactly like an external bot. ``greedy``
reads the table the way a careful beginner does: take a trick when it brings points for little trump
power, otherwise throw the cheapest cards (face down when allowed), lead cheap cards, and claim only
when the points it *knows* are in its (team's) piles reach the target. Face-down cards other players
threw into its pile are unknown with ``discard=closed`` and count as zero, so a claim is never false.
"""

from __future__ import annotations

import random

from arena.games.bura.ranking import POINTS, STRENGTH, set_beats

TRUMP_COST = 6  # what spending a trump is worth in points, roughly: trumps win the tricks to come


def _listed(legal_actions: list[dict] | None) -> list[dict]:
    """The Bura family lists every legal action in its requests; a request without them is a caller's bug."""
    if legal_actions is None:
        raise ValueError("The Bura family lists its legal actions, but this request had none")
    return legal_actions


class RandomBot:
    """Uniform over the legal actions, from its own seed."""

    def __init__(self, seat: int, rules, seed: int):
        self.seat = seat
        self.rules = rules
        self.rng = random.Random(seed)
        self._bits = self.rng.getrandbits

    def act(self, observation: dict | None, legal_actions: list[dict] | None) -> dict:
        # ``self.rng.choice(legal_actions)`` written out: the same draws from the same generator (a number
        # of n.bit_length() bits, drawn again until it is below n), without the two calls choice makes;
        # training runs call this bot on every action.
        actions = _listed(legal_actions)
        count = len(actions)
        if not count:
            raise IndexError("Cannot choose from an empty sequence")
        bits = count.bit_length()
        index = self._bits(bits)
        while index >= count:
            index = self._bits(bits)
        return actions[index]


class GreedyBot:
    """Takes points cheaply, keeps trumps, claims only when sure."""

    def __init__(self, seat: int, rules, seed: int):
        self.seat = seat
        self.rules = rules
        self.rng = random.Random(seed)

    def act(self, observation: dict, legal_actions: list[dict] | None) -> dict:
        decision = observation["decision"]
        if decision == "claim":
            sure = self.known_points(observation) >= observation["claim_target"]
            return {"type": "claim"} if sure else {"type": "pass"}
        if decision == "lead":
            return self.lead(observation, _listed(legal_actions))
        return self.respond(observation, _listed(legal_actions))

    def known_points(self, observation: dict) -> int:
        """Points certainly in my team's piles: face-up cards plus face-down cards I was allowed to see."""
        team = next(t for t in observation["teams"] if self.seat in t)
        total = 0
        for seat in team:
            pile = observation["piles"][seat]
            total += sum(POINTS[c[0]] for c in pile["face_up"]) + sum(POINTS[c[0]] for c in pile["face_down_known"])
        return total

    def lead(self, observation: dict, legal_actions: list[dict]) -> dict:
        trump = observation["trump"]

        def cost(action: dict) -> tuple:
            cards = action["cards"]
            trumps = sum(c[1] == trump for c in cards)
            pts = sum(POINTS[c[0]] for c in cards)
            # Cheap cards first; several worthless cards at once are harder to beat than one.
            return trumps, pts, -len(cards) if pts == 0 else len(cards), sum(STRENGTH[c[0]] for c in cards)

        return min(legal_actions, key=cost)

    def respond(self, observation: dict, legal_actions: list[dict]) -> dict:
        trump = observation["trump"]
        trick = observation["trick"]
        best = trick["best_cards"]
        team = next(t for t in observation["teams"] if self.seat in t)
        on_table = sum(POINTS[c[0]] for play in trick["plays"] for c in play["cards"] if c in POINTS_CARDS)
        partner_best = trick["best_seat"] in team
        last_to_play = self._last_to_play(observation)

        best_take, best_value = None, 0
        if not partner_best:
            for action in legal_actions:
                if action["face_down"] or not set_beats(action["cards"], best, trump):
                    continue
                cards = action["cards"]
                value = on_table + sum(POINTS[c[0]] for c in cards) - TRUMP_COST * sum(c[1] == trump for c in cards)
                if best_take is None or value > best_value:
                    best_take, best_value = action, value
        if best_take is not None and (best_value > 0 or on_table > 0):
            return best_take

        hide = self.rules.discard != "open"
        if partner_best and last_to_play:
            # The trick is ours: add points to it, but no trumps.
            def gift(action: dict) -> tuple:
                cards = action["cards"]
                return (sum(c[1] == trump for c in cards), -sum(POINTS[c[0]] for c in cards))
            choices = [a for a in legal_actions if not a["face_down"] and not set_beats(a["cards"], best, trump)]
            if choices:
                return min(choices, key=gift)

        def throw_cost(action: dict) -> tuple:
            cards = action["cards"]
            return (sum(c[1] == trump for c in cards), sum(POINTS[c[0]] for c in cards),
                    sum(STRENGTH[c[0]] for c in cards))

        throws = [a for a in legal_actions if a["face_down"] == hide]
        return min(throws, key=throw_cost)

    def _last_to_play(self, observation: dict) -> bool:
        played = {p["seat"] for p in observation["trick"]["plays"]}
        sizes = observation["hand_sizes"]
        return all(s in played or s == self.seat or sizes[s] == 0 for s in range(len(sizes)))


POINTS_CARDS = {r + s for r in POINTS for s in "SHDC"}

BOTS = {"random": RandomBot, "greedy": GreedyBot}
