"""Burraco's determinizations and playouts for the search bots (``arena.bots.search``).

Burraco lists no legal actions, and a turn's melds are many, so the search takes the two decisions the
greedy bot is weakest at and leaves the melding to it: whether to draw from the stock or take the discard
pile, and which card to discard once the greedy bot has nothing left to meld. Every other decision is the
greedy bot's own.

From a seat's observation alone: the cards it has not seen (the 108-card deck less its hand, the discard
pile and every meld on the table) are dealt at random into the other hands, the stock and the untaken
pozzetti, each of a known size. A hand lasts hundreds of turns, so a playout does not reach its end: every
seat plays as the greedy bot until the seat has finished its next turn (or the hand ends), and the position
is then scored as if the hand ended there (``BurracoState.hand_scores``) but for the cards still in hands,
which mid-hand are melds to come as much as a debt (counted, they steer the search away from the discard
pile; it did worse against greedy so, docs/benchmarks.md): the seat's team's score minus the other team's.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.bots.burraco import GreedyBot, _Table
from arena.cards import BURRACO_DECK
from arena.games.burraco.melds import meld_from_json
from arena.games.burraco.state import BurracoState

DRAW, TAKE_PILE = {"type": "draw"}, {"type": "take_pile"}
TURN_LIMIT = 40  # decisions within one seat's turn in a playout (a greedy turn melds a few times, then discards)


class BurracoSampler:
    scale = 100.0  # a burraco is worth 100 or 200, a closing 100; a turn moves a team's score by tens

    def __init__(self, rules: Any):
        self.rules = rules
        self.deck = Counter(BURRACO_DECK)
        # The greedy bots every seat plays as in a playout (and the one that says whether a turn still melds).
        self.greedy = [GreedyBot(seat, rules, 0) for seat in range(rules.players)]

    def candidates(self, observation: dict, legal_actions: list[dict] | None) -> list[dict] | None:
        decision = observation["decision"]
        if decision == "draw":
            return [DRAW, TAKE_PILE] if observation["discard_pile"] else [DRAW]
        if decision != "play":
            return None
        greedy = self.greedy[observation["seat"]]
        table = _Table(observation, greedy.decoded_melds(observation), self.rules)
        if greedy.best_play(table) is not None:
            return None  # a meld or an add: the greedy bot's
        return [{"type": "discard", "card": card} for card in table.discards()]

    def sample(self, obs: dict, rng: random.Random) -> BurracoState:
        me = obs["seat"]
        unseen = self.deck.copy()
        unseen.subtract(obs["hand"])
        unseen.subtract(obs["discard_pile"])
        for meld in obs["melds"]:
            unseen.subtract(meld["cards"])
        pool = sorted(unseen.elements())
        rng.shuffle(pool)
        hands = []
        for seat, size in enumerate(obs["hand_sizes"]):
            if seat == me:
                hands.append(list(obs["hand"]))
            else:
                hands.append(pool[:size])
                del pool[:size]
        pozzetti: list[list[str] | None] = []
        for pozzetto in obs["pozzetti"]:
            if pozzetto["taken"]:
                pozzetti.append(None)
            else:
                pozzetti.append(pool[:11])
                del pool[:11]
        if len(pool) != obs["stock"]:
            raise ValueError(f"the observation does not add up: {len(pool)} unseen cards for a stock of "
                             f"{obs['stock']}")
        state = BurracoState.from_position(
            self.rules, hands=hands, stock=pool, discard_pile=obs["discard_pile"], pozzetti=pozzetti,
            to_move=me, phase=obs["decision"], locked=obs["locked_card"], totals=obs["scores"],
            stalemate=obs["turns_without_stock"], drew_stock=obs["locked_card"] is None,
            deal_number=obs["deal"], seed=rng.getrandbits(62))
        state.dealer = obs["dealer"]
        for team, pozzetto in enumerate(obs["pozzetti"]):
            if pozzetto["taken"]:  # who took it, and how, as the table saw it
                state._record_pozzetto(team, {"seat": pozzetto["by"], "mode": pozzetto["mode"]})
        for meld in obs["melds"]:
            state._put_meld(meld_from_json(meld))
        return state

    def mark(self, state: BurracoState) -> int:
        return len(state.deals)

    def play_out(self, state: BurracoState, seat: int, mark: int, rng: random.Random) -> float:
        """Greedy play by every seat until ``seat`` has ended its next turn; then the hand's score as it
        stands but for the cards in hand (or as it ended), the seat's team's minus the other team's."""
        greedy = self.greedy
        turns_ended, last = 0, seat
        decisions = 0
        while not state.is_over() and len(state.deals) == mark:
            mover = state.current  # (the match is not over)
            if mover != last:
                if last == seat:
                    turns_ended += 1
                    if turns_ended == 2:  # the root's own turn, then its next one
                        break
                last, decisions = mover, 0
            decisions += 1
            if decisions > TURN_LIMIT:
                break
            state.apply(mover, greedy[mover].act(state.observation(mover), None))
        team = state.team_of(seat)
        if len(state.deals) > mark:
            totals = [score["total"] for score in state.deals[mark]["scores"]]
        else:  # (cards still in hand are not counted: mid-hand they are melds to come as much as a debt)
            totals = [score["total"] - score["in_hand"] for score in state.hand_scores(None)]
        return float(totals[team] - totals[1 - team])
