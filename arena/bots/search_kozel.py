"""Kozel's determinizations for the search bots (``arena.bots.search``).

From a seat's observation alone: the cards it has not seen (not in its hand, not played, not the widow or
discard it holds as the soloist) are dealt at random into the other hands and the cards set aside (the
declined widow of a misère, the soloist's discard), each of a known size, so that no seat gets a card of a
kind it showed it lacks (it did not follow a led kind). The hand is rebuilt at the start of the trick in
play by handing that trick's cards back, and the trick is played again through the engine.

The search decides the card plays; the widow and discard decisions of three players (once a hand each)
are the greedy bot's.
"""

from __future__ import annotations

import random
from typing import Any

from arena.bots.search import Inconsistent, play_to_deal_end
from arena.games.kozel.cards import TABLES
from arena.games.kozel.state import KozelState


class KozelSampler:
    scale = 2.0  # a hand costs its losers 1 to 3 penalty points (doubled after a 60:60 hand)

    def __init__(self, rules: Any):
        self.rules = rules
        self.table = TABLES[rules.deck]
        self.deck = list(self.table.deck)
        n = rules.players
        self.teams = [[0, 2], [1, 3]] if n == 4 else [[s] for s in range(n)]

    def candidates(self, observation: dict, legal_actions: list[dict] | None) -> list[dict] | None:
        if observation["decision"] not in ("lead", "follow"):
            return None
        if not legal_actions:
            raise ValueError("Kozel lists its legal actions, but this request had none")
        return legal_actions

    def mark(self, state: KozelState) -> int:
        return len(state._deals)

    def play_out(self, state: KozelState, seat: int, mark: int, rng: random.Random) -> float:
        play_to_deal_end(state, _deals, mark, rng)
        return self.value(state, seat, mark)

    def value(self, state: KozelState, seat: int, mark: int) -> float:
        """What the hand that ended after ``mark`` cost the others on average minus what it cost ``seat``."""
        if len(state._deals) <= mark:  # (never: a playout ends with the hand)
            return 0.0
        penalties = state._deals[mark]["penalties"]
        others = [s for s in range(len(penalties)) if not any(seat in t and s in t for t in self.teams)]
        return sum(penalties[s] for s in others) / len(others) - penalties[seat]

    def sample(self, obs: dict, rng: random.Random) -> KozelState:
        rules, kind = self.rules, self.table.kind
        n = rules.players
        me = obs["seat"]
        leader = obs["leader"]
        trick = list(obs["trick"])
        seen = set(obs["hand"]) | set(trick)
        void: list[set[str]] = [set() for _ in range(n)]
        for done in obs["tricks"]:
            seen.update(done["cards"])
            _note_voids(void, done["leader"], done["cards"], kind, n)
        _note_voids(void, leader, trick, kind, n)
        contract = obs["contract"]
        aside_known = (obs["discard"] if contract == "solo" else None) or []  # the soloist's own discard
        seen.update(aside_known)
        pool = [c for c in self.deck if c not in seen]
        rng.shuffle(pool)
        room = [0 if s == me else obs["hand_sizes"][s] for s in range(n)]
        aside = 0 if aside_known or contract == "teams" else rules.widow_size
        if sum(room) + aside != len(pool):
            raise ValueError(f"the observation does not add up: {len(pool)} unseen cards for "
                             f"{sum(room) + aside} hidden places")
        relaxed = obs.get("_relaxed", False)
        hands, set_aside = _deal(pool, room, aside, [set() if relaxed else v for v in void], kind, rng)
        hands[me] = list(obs["hand"])
        for i, card in enumerate(trick):  # the trick's cards back in the hands they came from
            hands[(leader + i) % n].append(card)
        won: list[list[str]] = [[] for _ in range(n)]
        for done in obs["tricks"]:
            won[done["winner"]] += done["cards"]
        extra: dict[str, Any] = {}
        if contract == "solo":
            extra = {"soloist": obs["soloist"], "discard": aside_known or set_aside}
        elif contract == "misere":
            extra = {"widow": set_aside, "misere": True}
        state = KozelState.from_position(rules, hands, dealer=obs["dealer"], leader=leader, won=won,
                                         scores=obs["scores"], deal=obs["deal"], seed=rng.getrandbits(62),
                                         multiplier=obs["multiplier"], **extra)
        for i, card in enumerate(trick):
            state.apply((leader + i) % n, {"type": "play", "card": card})
        return state


def _deals(state: KozelState) -> int:
    return len(state._deals)


def _note_voids(void: list[set[str]], leader: int, cards: list[str], kind: dict[str, str], n: int) -> None:
    """A seat that did not follow the led kind holds none of it (cards only ever leave a hand)."""
    if not cards:
        return
    led = kind[cards[0]]
    for i, card in enumerate(cards[1:], 1):
        if kind[card] != led:
            void[(leader + i) % n].add(led)


def _deal(pool: list[str], room: list[int], aside: int, void: list[set[str]], kind: dict[str, str],
          rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """``pool`` into hands of ``room`` cards and ``aside`` cards set aside, no hand getting a kind it lacks.

    The most constrained cards go first, each to a place drawn in proportion to its free room; a card with
    no place left raises ``Inconsistent`` (the search draws again)."""
    n = len(room)
    free = [*room, aside]
    places = [[s for s in range(n) if room[s] and kind[c] not in void[s]] + ([n] if aside else []) for c in pool]
    order = sorted(range(len(pool)), key=lambda i: len(places[i]))
    hands: list[list[str]] = [[] for _ in range(n + 1)]
    for i in order:
        open_places = [p for p in places[i] if free[p]]
        total = sum(free[p] for p in open_places)
        if not total:
            raise Inconsistent(f"no place left for {pool[i]}")
        pick = rng.randrange(total)
        for place in open_places:
            pick -= free[place]
            if pick < 0:
                break
        hands[place].append(pool[i])
        free[place] -= 1
    return hands[:n], hands[n]
