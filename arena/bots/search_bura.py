"""The Bura family's determinizations for the search bots (``arena.bots.search``).

From a seat's observation alone: the cards it has not seen (not in its hand, not face up in any pile, not
among the face-down cards it may see, not the trump card lying under the stock, not in the trick) are
shuffled and dealt into the places it cannot see, each of a known size: the other hands, the stock above
the trump card, the unknown face-down cards of every pile and the face-down sets of the trick in play.
The trick in play is rebuilt by handing its cards back to their players and playing them again, so the
engine's own rules decide what beats what. Cards announced in a combination that were not seen played
since are dealt back into their announcer's hand first, while it has room.
"""

from __future__ import annotations

import random
from typing import Any

from arena.bots.bura import GreedyBot
from arena.bots.search import play_to_deal_end
from arena.games.base import HIDDEN
from arena.games.bura.ranking import POINTS, card_sort_key, set_beats
from arena.games.bura.state import CLAIM, LEAD, BuraMatch


class BuraSampler:
    def __init__(self, rules: Any):
        self.rules = rules
        self.deck = list(rules.deck_cards)
        # A deal's value: its penalties (or won deals in rubber mode); a typical deal moves about 4 penalties.
        self.rubber = rules.match_kind == "rubber"
        self.scale = 1.0 if self.rubber else 4.0
        self.greedy = [GreedyBot(seat, rules, 0) for seat in range(rules.players)]

    def candidates(self, observation: dict, legal_actions: list[dict] | None) -> list[dict] | None:
        """Every legal action, but a face-up set that does not beat when the same set may go face down: both
        lose the trick alike, and face down shows the others nothing, so the search spends no playouts on
        the twin that gives information away."""
        if not legal_actions:
            raise ValueError("the Bura family lists its legal actions, but this request had none")
        trick = observation["trick"]
        if observation["decision"] != "respond" or self.rules.discard == "open" or trick is None:
            return legal_actions
        hidden = {tuple(a["cards"]) for a in legal_actions if a["face_down"] is True}
        best, trump = trick["best_cards"], observation["trump"]
        return [a for a in legal_actions if a["face_down"] is not False or tuple(a["cards"]) not in hidden
                or set_beats(a["cards"], best, trump)]

    def mark(self, state: BuraMatch) -> int:
        return len(state.deal_records)

    def play_out(self, state: BuraMatch, seat: int, mark: int, rng: random.Random) -> float:
        play_to_deal_end(state, _deals, mark, rng, self._rollout_action)
        return self.value(state, seat, mark)

    def _rollout_action(self, state: BuraMatch, seat: int, actions: list[dict]) -> dict | None:
        """Every player is modelled as the greedy bot (it sees only its own observation), which claims when,
        and only when, the cards it may see in its team's piles (face up, or face down but known to it)
        hold the target; random claims would make nearly every deal a false claim's."""
        if state.phase != CLAIM:
            return self.greedy[seat].act(state.observation(seat), actions)
        known = state.known_down[seat]
        total = sum(POINTS[c[0]] for s in state.teams[state.team_of[seat]] for c in state.pile_up[s] + known[s])
        target = state.claim_target
        return actions[0] if target is not None and total >= target else actions[1]

    def value(self, state: BuraMatch, seat: int, mark: int) -> float:
        """What the deal that ended after ``mark`` was worth to ``seat``: the opponents' mean penalty minus
        its team's (in rubber mode: a won deal 1, an opponent's won deal -1)."""
        if len(state.deal_records) <= mark:  # (the match stopped at its deal limit)
            return 0.0
        record = state.deal_records[mark]
        teams = state.teams
        mine = state.team_of[seat]
        others = [t for t in range(len(teams)) if t != mine]
        if self.rubber:
            won = set(record["winners"])
            return float(teams[mine][0] in won) - sum(teams[t][0] in won for t in others) / len(others)
        penalties = record["penalties"]
        return sum(penalties[teams[t][0]] for t in others) / len(others) - penalties[teams[mine][0]]

    def sample(self, obs: dict, rng: random.Random) -> BuraMatch:
        rules = self.rules
        n = rules.players
        me = obs["seat"]
        trick = obs["trick"]
        plays = trick["plays"] if trick else []
        trump_card = obs["trump_card"]  # while it lies in the stock
        seen = set(obs["hand"])
        for pile in obs["piles"]:
            seen.update(pile["face_up"])
            seen.update(pile["face_down_known"])
        for play in plays:
            seen.update(c for c in play["cards"] if c != HIDDEN)
        if trump_card:
            seen.add(trump_card)
        pool = [c for c in self.deck if c not in seen]
        rng.shuffle(pool)

        hands: list[list[str]] = [list(obs["hand"]) if s == me else [] for s in range(n)]
        sizes = obs["hand_sizes"]
        # Announced cards not seen since are most likely still in their announcer's hand.
        for combo in obs["combinations"] or ():
            holder = combo["seat"]
            for card in combo["cards"]:
                if holder != me and card in pool and len(hands[holder]) < sizes[holder]:
                    pool.remove(card)
                    hands[holder].append(card)
        for s in range(n):
            if s != me:
                need = sizes[s] - len(hands[s])
                hands[s] += pool[:need]
                del pool[:need]
        trick_sets: list[tuple[int, list[str], Any]] = []
        for play in plays:
            cards = list(play["cards"])
            hidden = [i for i, c in enumerate(cards) if c == HIDDEN]
            for i in hidden:
                cards[i] = pool.pop()
            down = play["face_down"]
            if isinstance(down, list):  # a mixed set: its face-down cards are the last ones
                down = cards[len(cards) - len(down):]
            trick_sets.append((play["seat"], cards, down))
            hands[play["seat"]] += cards
        face_down: list[list[tuple[str, int]]] = []
        for owner, pile in enumerate(obs["piles"]):
            unknown = pile["count"] - len(pile["face_up"]) - len(pile["face_down_known"])
            other = next(s for s in ((owner + 1) % n, (owner + 2) % n, (me + 1) % n) if s != me)
            face_down.append([(c, me) for c in pile["face_down_known"]] + [(pool.pop(), other)
                                                                          for _ in range(unknown)])
        stock_above = obs["stock"] - (1 if trump_card else 0)
        if stock_above != len(pool):
            raise ValueError(f"the observation does not add up: {len(pool)} unseen cards for {stock_above} "
                             "places in the stock")
        stock = pool  # in drawing order, the trump card still under it (or on top when returned)
        if trump_card:
            stock = [trump_card, *stock] if rules.trump_card == "returned" else [*stock, trump_card]
        state = _position(rules, obs, hands, stock, face_down, trump_card or f"?{obs['trump']}",
                          derive=rng.getrandbits(62))
        for seat, cards, down in trick_sets:
            if seat == trick_sets[0][0] and state.phase == LEAD:
                state.apply(seat, {"type": "lead", "cards": cards})
            else:
                state.apply(seat, {"type": "respond", "cards": cards, "face_down": down})
        return state


def _deals(state: BuraMatch) -> int:
    return len(state.deal_records)


def _position(rules: Any, obs: dict, hands: list[list[str]], stock: list[str],
              face_down: list[list[tuple[str, int]]], trump_card: str, derive: int) -> BuraMatch:
    """``BuraMatch.from_position`` without its deck check: once drawn, the trump card is in some hand or pile
    like any other card, and only its suit (``trump_card[1]``) still matters, so a stand-in names it."""
    state = BuraMatch(rules, derive, deal=False)
    teams = state.teams
    state.deal_no = obs["deal"]
    state.multiplier = obs["multiplier"]
    state.team_penalties = [obs["penalties"][t[0]] for t in teams]
    state.team_wins = [obs["deals_won"][t[0]] for t in teams]
    state._open_deal(obs["dealer"], hands, list(reversed(stock)), trump_card)
    for owner, pile in enumerate(obs["piles"]):
        up = list(pile["face_up"])
        state.piles[owner] += up
        state.pile_up[owner] += up
        state.pile_up[owner].sort(key=card_sort_key)
        for card, by in face_down[owner]:
            state.piles[owner].append(card)
            state.pile_down[owner].append((card, by))
        state._refresh_known(owner)
        state.tricks_won[owner] = int(bool(state.piles[owner]))
    state.announced = list(obs["combinations"] or ())
    decision, seat = obs["decision"], obs["seat"]
    if decision == CLAIM:
        state.leader = state.trick_leader = seat
        state.phase, state.current = CLAIM, seat
    else:
        trick = obs["trick"]
        state._start_trick(trick["leader"] if trick else seat)
        if decision == LEAD and obs["lead_limit"] is not None:
            state.leader_limit = obs["lead_limit"]
    return state
