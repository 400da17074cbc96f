"""Built-in Burraco bots: ``random`` (a baseline that always plays legal turns) and ``greedy``.

Burraco lists no legal actions (``legal_actions`` is None), so both bots work from the observation alone,
as an external bot does, checking their melds with the pure functions of ``arena.games.burraco.melds``
and the turn-end rule of ``arena.games.burraco.state.turn_end_problem`` before sending anything.

``greedy`` plays like a sensible beginner: it takes the discard pile when the pile's cards meld at once,
adds natural cards to its team's melds, puts down every natural set and run, spends a wild only to reach
a burraco or to get rid of its last cards, and discards a card that neither it nor the opponents can use,
the more valuable the better (cards left in hand count against it). Closing happens by itself: once the
team has its pozzetto and a burraco, melding everything but one natural card and discarding it closes.
"""

from __future__ import annotations

import random
from functools import lru_cache

from arena.games.burraco.melds import (
    POSITION_RANK,
    RANK_POSITION,
    Meld,
    MeldError,
    extend_meld,
    is_wild,
    make_meld,
    meld_from_json,
)
from arena.games.burraco.scoring import card_value
from arena.games.burraco.state import turn_end_problem


class _Table:
    """What a bot needs from one observation, decoded once per decision (the melds only when asked)."""

    def __init__(self, obs: dict, decoded: dict, rules):
        self.obs = obs
        self.decoded = decoded
        self.last_turn: bool = obs["last_turn"]  # stock_end=finish_turn: no closing, no pozzetto this turn
        self.forbid_duplicate_sets = rules.duplicate_sets == "forbidden"
        self.hand: list[str] = obs["hand"]
        self.team: int = obs["team"]
        self.locked: str | None = obs["locked_card"]
        self.took_pozzetto: bool = obs["pozzetti"][self.team]["taken"]
        self.has_burraco = any(m["burraco"] for m in obs["melds"] if m["team"] == self.team)
        self._own: list[Meld] | None = None

    @property
    def own(self) -> list[Meld]:
        if self._own is None:
            self._own = [self.decode(m) for m in self.obs["melds"] if m["team"] == self.team]
        return self._own

    @property
    def theirs(self) -> list[Meld]:
        return [self.decode(m) for m in self.obs["melds"] if m["team"] != self.team]

    def decode(self, obj: dict) -> Meld:
        """Melds only grow, so a meld's id and cards name one table meld within a deal: decode it once."""
        key = (obj["id"], *obj["cards"])
        meld = self.decoded.get(key)
        if meld is None:
            meld = self.decoded[key] = meld_from_json(obj)
        return meld

    def without(self, cards: list[str]) -> list[str] | None:
        rest = list(self.hand)
        for c in cards:
            if c not in rest:
                return None
            rest.remove(c)
        return rest

    def playable(self, cards: list[str], meld: Meld) -> bool:
        """Could we put ``cards`` into ``meld`` and still end the turn legally?"""
        rest = self.without(cards)
        if rest is None:
            return False
        if self.last_turn:
            return bool(rest)  # keep a card for the discard that ends the hand
        locked = None if self.locked in cards else self.locked
        return turn_end_problem(rest, locked, self.took_pozzetto, self.has_burraco or meld.is_burraco) is None

    def try_new(self, cards: list[str]) -> Meld | None:
        meld = _new_meld(tuple(cards), self.team)
        if meld is None:
            return None
        if meld.kind == "set" and self.forbid_duplicate_sets and any(
                m.kind == "set" and m.rank == meld.rank for m in self.own):
            return None
        return meld if self.playable(cards, meld) else None

    def try_add(self, meld: Meld, cards: list[str]) -> Meld | None:
        grown = _grown_meld(meld, tuple(cards))
        if grown is None:
            return None
        return grown if self.playable(cards, grown) else None

    def discards(self) -> list[str]:
        """Every card this player may discard now (deterministic order)."""
        hand = self.hand
        out = []
        for card in sorted(set(hand)):
            if card == self.locked and hand.count(card) == 1:
                continue
            closing = len(hand) == 1 and self.took_pozzetto and not self.last_turn
            if closing and (not self.has_burraco or is_wild(card)):
                continue
            out.append(card)
        return out


class _Bot:
    """Seat, rules, its own random stream, and decoded melds kept for the current deal."""

    def __init__(self, seat: int, rules, seed: int):
        self.seat = seat
        self.rules = rules
        self.rng = random.Random(seed)
        self._decoded: dict = {}
        self._deal: int | None = None

    def decoded_melds(self, observation: dict) -> dict:
        if observation["deal"] != self._deal:
            self._deal, self._decoded = observation["deal"], {}
        return self._decoded


class RandomBot(_Bot):
    """Draws or takes the pile at random, often puts down a random valid meld or add, discards at random."""

    TAKE_PILE = 0.25
    TRY_MELD = 0.8

    def act(self, observation: dict, legal_actions: list[dict] | None) -> dict:
        if observation["decision"] == "draw":
            take = observation["discard_pile"] and self.rng.random() < self.TAKE_PILE
            return {"type": "take_pile"} if take else {"type": "draw"}
        table = _Table(observation, self.decoded_melds(observation), self.rules)
        if self.rng.random() < self.TRY_MELD:
            # One family of moves first (adds or new melds, at random), the other if the first has none.
            families = (_add_options, _meld_options) if self.rng.random() < 0.5 else (_meld_options, _add_options)
            for options in families:
                found = options(table)
                if found:
                    return self.rng.choice(found)
        return {"type": "discard", "card": self.rng.choice(table.discards())}


@lru_cache(maxsize=4096)
def _new_meld(cards: tuple[str, ...], team: int) -> Meld | None:
    """The meld these cards make, or None. Remembered: a hand offers the same candidate melds turn after
    turn until they are put down, and checking one is most of the candidate search (melds never change)."""
    try:
        return make_meld(cards, team=team, meld_id=-1)
    except MeldError:
        return None


_GROWN: dict[tuple, Meld | None] = {}
GROWN_REMEMBERED = 4096


def _grown_meld(meld: Meld, cards: tuple[str, ...]) -> Meld | None:
    """The meld with these cards added, or None; remembered like _new_meld, by everything the meld holds
    (a decoded meld is a new object each deal, so not by the object)."""
    key = (meld.id, meld.team, meld.kind, meld.cards, meld.wild, meld.rank, meld.suit, meld.low, cards)
    try:
        return _GROWN[key]
    except KeyError:
        pass
    try:
        grown: Meld | None = extend_meld(meld, list(cards))
    except MeldError:
        grown = None
    if len(_GROWN) >= GROWN_REMEMBERED:
        _GROWN.clear()
    _GROWN[key] = grown
    return grown


def _add_options(table: _Table) -> list[dict]:
    """Every single-card add to our melds that keeps the turn finishable."""
    out = []
    distinct = set(table.hand)
    wilds = sorted(c for c in distinct if is_wild(c))
    for meld in table.own:
        for card in sorted(_joiners(meld, distinct)) + (wilds if meld.wild is None else []):
            if table.try_add(meld, [card]) is not None:
                out.append({"type": "add", "meld": meld.id, "cards": [card]})
    return out


def _joiners(meld: Meld, cards: set[str]) -> set[str]:
    """The natural cards among ``cards`` that could extend ``meld`` (a cheap filter before the real test)."""
    if meld.kind == "set":
        return {c for c in cards if c[0] == meld.rank}
    spots = {meld.low - 1, meld.high + 1}
    if meld.wild is not None:
        spots.add(meld.low + meld.wild)
    return {POSITION_RANK[p] + meld.run_suit for p in spots if 1 <= p <= 14} & cards


def _meld_options(table: _Table) -> list[dict]:
    """New melds from the hand: natural sets and runs, and a pair or near-run completed by one wild."""
    naturals = [c for c in table.hand if not is_wild(c)]
    candidates = _natural_melds(naturals)
    wilds = sorted({c for c in table.hand if is_wild(c)})
    for wild in wilds:
        candidates += _pairs_with(table.hand, wild)
    return [{"type": "meld", "cards": cards} for cards in candidates if table.try_new(cards) is not None]


def _position(card: str) -> int:
    return 14 if card[0] == "A" else RANK_POSITION.get(card[0], 2)


class GreedyBot(_Bot):
    """Melds as much as it can, saves wilds for burraco, discards what helps nobody."""


    def act(self, observation: dict, legal_actions: list[dict] | None) -> dict:
        table = _Table(observation, self.decoded_melds(observation), self.rules)
        if observation["decision"] == "draw":
            return self.draw(observation, table)
        action = self.best_play(table)
        if action is not None:
            return action
        return {"type": "discard", "card": self.choose_discard(table)}

    # -------------------------------------------------------------------------------------- drawing

    def draw(self, observation: dict, table: _Table) -> dict:
        pile = observation["discard_pile"]
        if not pile:
            return {"type": "draw"}
        before = _meldable_count(table.hand, table)
        after = _meldable_count(table.hand + pile, table)
        gain = after - before
        if gain >= 2 or (gain >= 1 and gain * 3 >= len(pile)):
            return {"type": "take_pile"}
        return {"type": "draw"}

    # -------------------------------------------------------------------------------------- melding

    def best_play(self, table: _Table) -> dict | None:
        """The next meld or add, best first: naturals onto our melds, new natural melds, then wilds."""
        naturals = [c for c in table.hand if not is_wild(c)]
        for meld in sorted(table.own, key=lambda m: -len(m.cards)):
            for card in sorted(set(naturals), key=lambda c: (-card_value(c), c)):  # ties by name: never by hash order
                if table.try_add(meld, [card]) is not None:
                    return {"type": "add", "meld": meld.id, "cards": [card]}
        for cards in _natural_melds(naturals):
            if table.try_new(cards) is not None:
                return {"type": "meld", "cards": cards}
        return self.wild_play(table)

    def wild_play(self, table: _Table) -> dict | None:
        wilds = sorted((c for c in table.hand if is_wild(c)), key=card_value)
        if not wilds:
            return None
        wild = wilds[0]
        going_out = len(table.hand) <= 4
        for meld in table.own:
            reaches_burraco = len(meld.cards) == 6 and not table.has_burraco
            if (reaches_burraco or going_out) and table.try_add(meld, [wild]) is not None:
                return {"type": "add", "meld": meld.id, "cards": [wild]}
        if going_out or len(table.hand) >= 9:
            for cards in _pairs_with(table.hand, wild):
                if table.try_new(cards) is not None:
                    return {"type": "meld", "cards": cards}
        return None

    # -------------------------------------------------------------------------------------- discarding

    def choose_discard(self, table: _Table) -> str:
        options = table.discards()

        def cost(card: str) -> tuple:
            if is_wild(card):
                return (3, -card_value(card))
            helps_them = any(_extends(m, card) for m in table.theirs)
            helps_us = any(_extends(m, card) for m in table.own)
            return (2 if helps_them else 1 if helps_us else 0, _neighbours(table.hand, card), -card_value(card), card)

        return min(options, key=cost)


def _extends(meld: Meld, card: str) -> bool:
    try:
        extend_meld(meld, [card])
    except MeldError:
        return False
    return True


def _neighbours(hand: list[str], card: str) -> int:
    """How many other hand cards could join this one in a meld (same rank, or same suit within two)."""
    count = 0
    pos = _position(card)
    for other in hand:
        if is_wild(other):
            continue
        if other[0] == card[0] or (other[1] == card[1] and abs(_position(other) - pos) <= 2):
            count += 1
    return count - 1  # the card itself matched its own rank once


def _natural_melds(naturals: list[str]) -> list[list[str]]:
    """Natural sets (3+ of a rank) and runs (3+ consecutive of a suit) in a hand, biggest first."""
    found = []
    by_rank: dict[str, list[str]] = {}
    by_suit: dict[str, set[int]] = {}
    for c in naturals:
        by_rank.setdefault(c[0], []).append(c)
        positions = by_suit.setdefault(c[1], set())
        if c[0] == "A":
            positions.update((1, 14))
        else:
            positions.add(RANK_POSITION[c[0]])
    for cards in by_rank.values():
        if len(cards) >= 3:
            found.append(cards[:9])
    for suit, positions in by_suit.items():
        if len(positions) < 3:
            continue
        run: list[int] = []
        for pos in sorted(positions):
            if run and (pos != run[-1] + 1 or (run[0] == 1 and pos == 14)):  # the ace is low or high, not both
                if len(run) >= 3:
                    found.append([POSITION_RANK[p] + suit for p in run])
                run = []
            run.append(pos)
        if len(run) >= 3:
            found.append([POSITION_RANK[p] + suit for p in run])
    found.sort(key=len, reverse=True)
    return found


def _pairs_with(hand: list[str], wild: str) -> list[list[str]]:
    """Two naturals that a wild turns into a meld: a pair of one rank, or two of a suit one or two apart."""
    naturals = sorted({c for c in hand if not is_wild(c)})
    out = []
    for i, a in enumerate(naturals):
        if hand.count(a) >= 2:
            out.append([a, a, wild])
        for b in naturals[i + 1:]:
            if a[0] == b[0] or (a[1] == b[1] and 1 <= abs(_position(a) - _position(b)) <= 2):
                out.append([a, b, wild])
    return out


def _meldable_count(cards: list[str], table: _Table) -> int:
    """Roughly how many of ``cards`` could go onto the table at once (natural adds and natural melds)."""
    rest = [c for c in cards if not is_wild(c)]
    placed = 0
    for meld in table.own:
        for card in list(rest):
            try:
                meld = extend_meld(meld, [card])
            except MeldError:
                continue
            rest.remove(card)
            placed += 1
    while True:
        melds = _natural_melds(rest)
        if not melds:
            return placed
        for c in melds[0]:
            rest.remove(c)
        placed += len(melds[0])


BOTS = {"random": RandomBot, "greedy": GreedyBot}
