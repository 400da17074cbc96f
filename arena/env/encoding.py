"""Fixed-size encodings of what a seat sees, and a fixed discrete action space per game family.

Each encoder turns the engine's observation dict (``state.observation(seat)``: only what that seat may
know) into a float32 vector of ``size`` numbers in [0, 1], and lists the seat's legal moves as
``(index, engine action)`` pairs over ``actions`` indices. docs/training.md documents every feature and
every index; the summaries here are the reference for the code.

* Bura family (``BuraEncoder``): an action names *hand slots* (the i-th card of the sorted hand), so
  one space covers every hand size: 0 claim, 1 pass, then one index per non-empty subset of slots to
  lead (bit i = slot i), then one index per assignment of every slot to "keep", "play face up" or "play
  face down" (base-3 digit i = slot i) to respond — which also covers ``mixed_sets=on``.
* Kozel (``KozelEncoder``): one index per card of the deck to play, then take / decline the widow,
  then one index per pair of deck cards to discard.
* Burraco (``BurracoEncoder``): draw, take the pile, one index per card text to discard, then
  ``CANDIDATES`` slots for the melds and adds of this turn (the list is in ``info["candidates"]`` and
  in the observation's last features), as PettingZoo allows where a space is too large to enumerate.
"""

from __future__ import annotations

import abc
import math
from itertools import combinations
from operator import itemgetter
from typing import Any

import numpy as np

from arena.bots import burraco as burraco_bots
from arena.cards import BURRACO_DECK
from arena.games.bura.ranking import POINTS as BURA_RANK_POINTS

Move = tuple[int, dict[str, Any]]
_first = itemgetter(0)  # a move's action index, the sort key of every move list


def action_key(action: dict[str, Any]) -> tuple:
    """One hashable key per engine action, equal for two spellings of the same action: every list in an action
    is a multiset of cards (a meld's or a set's cards, a face-down subset), so its order is not part of it.
    An encoder must never list two moves with the same key, nor two with the same index."""
    return tuple(sorted((k, tuple(sorted(v)) if isinstance(v, list) else v) for k, v in action.items()))


class Encoder(abc.ABC):
    """What every game family's encoder provides (each family implements all three)."""

    game: str
    size: int  # observation vector length
    actions: int  # number of discrete actions

    @abc.abstractmethod
    def encode(self, observation: dict[str, Any]) -> np.ndarray:
        """The observation as the documented fixed-size vector."""

    @abc.abstractmethod
    def moves(self, state: Any, seat: int, observation: dict[str, Any]) -> list[Move]:
        """Every legal move of ``seat`` (the seat to move) as (action index, engine action), index order."""

    @abc.abstractmethod
    def describe(self, index: int) -> str:
        """A short human name for an action index (for docs and debugging)."""


def _one_hot(vector: np.ndarray, at: int, cards, index: dict[str, int]) -> None:
    for card in cards:
        if card in index:
            vector[at + index[card]] = 1.0


# --------------------------------------------------------------------------------------------- Bura family

BURA_DECISIONS = ("lead", "respond", "claim")
SUITS = "SHDC"
MAX_OTHERS = 5  # up to six seats: the other seats' hand sizes, in turn order from the seat's left
_BITS = tuple(1 << i for i in range(16))  # hand slot i's bit in a lead's index
_POWERS_OF_3 = tuple(3 ** i for i in range(16))  # hand slot i's digit weight in a response's index
_BURA_POINTS = {rank + suit: p for rank, p in BURA_RANK_POINTS.items() for suit in SUITS}  # card -> points


class BuraEncoder(Encoder):
    game = "bura"

    def __init__(self, rules: Any):
        self.rules = rules
        self.deck: tuple[str, ...] = tuple(rules.deck_cards)
        self.index = {card: i for i, card in enumerate(self.deck)}
        self.hand = rules.hand
        self.players = rules.players
        d, h = len(self.deck), self.hand
        self.leads = (1 << h) - 1
        self.responses = 3 ** h - 1
        self.actions = 2 + self.leads + self.responses
        self.target = rules.match_target if rules.match_kind != "deals" else 12
        # Feature blocks, in order (name, length); ``size`` is their sum.
        self.blocks = [
            ("hand slots: slot i's card, one-hot over the deck", h * d),
            ("decision: lead, respond, claim", 3),
            ("trump suit S H D C", 4),
            ("trump card while it lies in the stock", d),
            ("stock size / deck size", 1),
            ("cards to beat in the trick (the best set so far)", d),
            ("cards played face up in the trick so far", d),
            ("cards to play in the trick / hand size", 1),
            ("face-up cards in my team's piles", d),
            ("face-up cards in the other piles", d),
            ("face-down cards I may see, any pile", d),
            ("my team's known trick points / 120, the best other side's visible points / 120", 2),
            ("claim target / 120 (0 when the preset has no claim)", 1),
            ("penalty points (or deals won): my team / target, the best other side / target", 2),
            ("other seats' hand sizes / hand size, in turn order from my left (padded to 5)", MAX_OTHERS),
            ("doubling multiplier: log2 / 4", 1),
            ("lead limit / hand size (0 unless I lead)", 1),
        ]
        self.size = sum(n for _, n in self.blocks)
        # Where each block starts, and per block a card -> position table, so that a block's ones are a
        # C-level map over its cards instead of a Python loop (the encoding is a large share of a step).
        at = h * d
        self._at_decision = at
        self._at_trump = at + 3
        self._at_trump_card = at + 7
        self._at_stock = at + 7 + d
        at = self._at_stock + 1
        self._at_trick_size = at + 2 * d
        self._at_known_points = self._at_trick_size + 1 + 3 * d
        self._at_sizes = self._at_known_points + 5
        self._slot_at = [self._positions(slot * d) for slot in range(h)]
        self._trump_card_at = self._positions(self._at_trump_card)
        self._best_at = self._positions(at)
        self._face_up_at = self._positions(at + d)
        at = self._at_trick_size + 1
        self._mine_at = self._positions(at)
        self._theirs_at = self._positions(at + d)
        self._known_at = self._positions(at + 2 * d)
        self._decision_at = {name: self._at_decision + i for i, name in enumerate(BURA_DECISIONS)}
        self._trump_at = {suit: self._at_trump + i for i, suit in enumerate(SUITS)}
        self._of_deck = tuple(i / d for i in range(d + 1))  # a count of cards / deck size
        self._fraction = tuple(i / h for i in range(d + 1))  # a count of cards / hand size
        self._of_120 = tuple(min(i, 120) / 120 for i in range(max(121, sum(_BURA_POINTS[c] for c in self.deck) + 1)))
        self._templates: dict[tuple, np.ndarray] = {}
        self._card_templates: dict[tuple, np.ndarray] = {}
        self._score_values: dict[tuple, np.ndarray] = {}
        self._score_at = np.array((self._at_known_points + 2, self._at_known_points + 3, self._at_known_points + 4,
                                   self._at_sizes + MAX_OTHERS), dtype=np.intp)
        self._fields = itemgetter("hand", "decision", "trump", "trump_card", "stock", "trick", "seat", "teams",
                                  "piles", "match_points", "hand_sizes", "multiplier", "lead_limit", "claim_target")
        self._teams: list[list[int]] | None = None  # a copy of the teams the tables below were built for
        self._teams_seen: Any = None  # the very list they were last checked against
        self._side_of: list[int] = []
        self._tables: list[tuple] = []
        self._partners = False

    def _positions(self, at: int) -> dict[str, int]:
        return {card: at + i for i, card in enumerate(self.deck)}

    def _seat_tables(self, teams: list[list[int]]) -> list[tuple]:
        """Per seat, what its encoding needs of the teams (fixed for a match, so built once per teams): per
        pile owner the face-up block's card table and the owner's side (None for the seat's own side), the
        seats of the other sides, and the seats in turn order from the seat's left (and the one other seat
        alone when there are two)."""
        if teams != self._teams:
            self._teams = [list(t) for t in teams]
            n = sum(map(len, teams))
            side_of = [0] * n
            for side, team in enumerate(teams):
                for s in team:
                    side_of[s] = side
            mine, theirs = self._mine_at.__getitem__, self._theirs_at.__getitem__
            tables = []
            for seat in range(n):
                my_side = side_of[seat]
                owners = tuple((mine, None) if side_of[o] == my_side else (theirs, side_of[o]) for o in range(n))
                others = tuple(s for s in range(n) if side_of[s] != my_side)
                left = tuple((seat + k) % n for k in range(1, min(n, MAX_OTHERS + 1)))
                tables.append((owners, others, left[0] if len(left) == 1 else None, left))
            self._tables = tables
            self._partners = any(len(team) > 1 for team in teams)  # sides' points are summed over partners
            self._templates.clear()
            self._score_values.clear()
        self._teams_seen = teams
        return self._tables

    def _template(self, key: tuple, others: tuple[int, ...]) -> np.ndarray:
        """The features that change only between deals or at a doubling, in an otherwise zero vector: the
        trump suit and the trump card (a vector per card), the claim target, the penalty points (or deals
        won) and the multiplier (values per seat and scores). Kept per (seat, trump, trump card, multiplier,
        claim target, points), so that the steps of a deal share one; a miss costs a copy and a write."""
        seat, trump, trump_card, multiplier, claim_target, *points = key
        cards = self._card_templates.get((trump, trump_card))
        if cards is None:
            cards = np.zeros(self.size, dtype=np.float32)
            cards[self._at_trump + SUITS.index(trump)] = 1.0
            if trump_card is not None:
                cards[self._trump_card_at[trump_card]] = 1.0
            self._card_templates[trump, trump_card] = cards
        scores_key = (seat, multiplier, claim_target, *points)
        scores = self._score_values.get(scores_key)
        if scores is None:
            target = self.target
            scores = np.array(((claim_target or 0) / 120, min(points[seat] / target, 1.0),
                               min(max((points[s] for s in others), default=0) / target, 1.0),
                               min(math.log2(max(multiplier, 1)) / 4, 1.0)), dtype=np.float32)
            if len(self._score_values) >= 4096:
                self._score_values.clear()
            self._score_values[scores_key] = scores
        v = cards.copy()
        v.put(self._score_at, scores)
        if len(self._templates) >= 4096:  # a long run meets many deals and scores: keep the table small
            self._templates.clear()
        self._templates[key] = v
        return v

    def encode(self, obs: dict[str, Any]) -> np.ndarray:
        (hand, decision, trump, trump_card, stock, trick, seat, teams, piles, points, sizes, multiplier,
         lead_limit, claim_target) = self._fields(obs)
        # The teams list is the match's own (the same object all match long): checked by identity first.
        owners, others, single, left = (self._tables if teams is self._teams_seen else self._seat_tables(teams))[seat]
        key = (seat, trump, trump_card, multiplier, claim_target, *points)
        template = self._templates.get(key)
        if template is None:
            template = self._template(key, others)
        # The rest is a few items per block, written one by one through the copy's buffer: that costs less
        # than collecting them for numpy (its list conversions are the dearer part).
        v = template.copy()
        buffer: Any = v.data  # a float64 memoryview: item writes are cheaper than numpy's
        for i in map(dict.__getitem__, self._slot_at, hand):  # map stops at the hand's last slot
            buffer[i] = 1.0
        at = self._decision_at.get(decision)
        if at is not None:
            buffer[at] = 1.0
        # My side's points and the best other side's (with partners, summed per side first).
        mine = best = 0
        by_side: dict[Any, int] | None = None
        known = self._known_at.__getitem__
        card_points = _BURA_POINTS.__getitem__
        for owner, pile in enumerate(piles):
            if not pile["count"]:  # an empty pile shows nothing (and a side's 0 points change no maximum)
                continue
            up_at, side = owners[owner]
            up = pile["face_up"]
            down = pile["face_down_known"]
            seen = 0
            if up:
                for i in map(up_at, up):
                    buffer[i] = 1.0
                seen = sum(map(card_points, up))
            if down:
                for i in map(known, down):
                    buffer[i] = 1.0
                seen += sum(map(card_points, down))
            if side is None:
                mine += seen
            elif self._partners:
                if by_side is None:
                    by_side = {}
                by_side[side] = by_side.get(side, 0) + seen
            elif seen > best:
                best = seen
        if by_side:
            best = max(by_side.values())
        # Fractions from tables (the same floats as the divisions: a count can never exceed the deck, nor
        # points the deck's 120).
        fraction = self._fraction
        at = self._at_known_points
        buffer[self._at_stock] = self._of_deck[stock]
        buffer[at] = self._of_120[mine]
        buffer[at + 1] = self._of_120[best]
        at = self._at_sizes
        if single is not None:  # two seats: the one other hand
            buffer[at] = fraction[sizes[single]]
        else:
            for k, s in enumerate(left, at):
                buffer[k] = fraction[sizes[s]]
        if trick is not None:
            for i in map(self._best_at.__getitem__, trick["best_cards"]):
                buffer[i] = 1.0
            face_up = self._face_up_at.__getitem__
            for play in trick["plays"]:
                if play["face_down"] is False:
                    for i in map(face_up, play["cards"]):
                        buffer[i] = 1.0
            buffer[self._at_trick_size] = fraction[trick["size"]]
        if lead_limit is not None:
            buffer[at + MAX_OTHERS + 1] = fraction[lead_limit]
        return v

    def _slot_tables(self, hand: list[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Per card of the hand: its lead bit (1 << slot) and its response digit weight (3 ** slot)."""
        return dict(zip(hand, _BITS, strict=False)), dict(zip(hand, _POWERS_OF_3, strict=False))

    def index_of(self, hand: list[str], action: dict[str, Any],
                 tables: tuple[dict[str, int], dict[str, int]] | None = None) -> int:
        """The action index of an engine action, given the seat's hand (in the engine's order)."""
        kind = action["type"]
        if kind == "claim":
            return 0
        if kind == "pass":
            return 1
        bit, weight = tables or self._slot_tables(hand)
        if kind == "lead":
            return 1 + sum(map(bit.__getitem__, action["cards"]))  # 2 + mask - 1
        # Digit 1 for every card played, plus 1 more (digit 2) for every hidden one.
        down = action.get("face_down", False)
        code = sum(map(weight.__getitem__, action["cards"]))
        if down is True:
            code *= 2
        elif down:
            code += sum(map(weight.__getitem__, down))
        return 1 + self.leads + code  # 2 + leads + code - 1

    def moves(self, state: Any, seat: int, observation: dict[str, Any]) -> list[Move]:
        # index_of inlined: a card's slot is its place in the hand (list.index over a few cards costs less
        # than building a card -> slot table each step); the decision's actions are all of one kind.
        slot = observation["hand"].index
        found: list[Move] = []
        append = found.append
        first_response = 1 + self.leads
        for action in state.legal_actions(seat):
            kind = action["type"]
            if kind == "respond":
                cards = action["cards"]
                code = _POWERS_OF_3[slot(cards[0])] if len(cards) == 1 else \
                    sum(map(_POWERS_OF_3.__getitem__, map(slot, cards)))
                down = action.get("face_down", False)
                if down is True:
                    code *= 2
                elif down:
                    code += sum(map(_POWERS_OF_3.__getitem__, map(slot, down)))
                append((first_response + code, action))
            elif kind == "lead":
                cards = action["cards"]
                append((1 + (_BITS[slot(cards[0])] if len(cards) == 1 else
                             sum(map(_BITS.__getitem__, map(slot, cards)))), action))
            elif kind == "claim":
                append((0, action))
            elif kind == "pass":
                append((1, action))
            else:  # as index_of reads any other kind: a response
                cards = action["cards"]
                code = sum(map(_POWERS_OF_3.__getitem__, map(slot, cards)))
                down = action.get("face_down", False)
                if down is True:
                    code *= 2
                elif down:
                    code += sum(map(_POWERS_OF_3.__getitem__, map(slot, down)))
                append((first_response + code, action))
        found.sort(key=_first)
        return found

    def describe(self, index: int) -> str:
        if index == 0:
            return "claim"
        if index == 1:
            return "pass"
        if index < 2 + self.leads:
            mask = index - 1
            return "lead slots " + ",".join(str(i) for i in range(self.hand) if mask >> i & 1)
        code = index - 1 - self.leads
        digits = [(code // 3 ** i) % 3 for i in range(self.hand)]
        up = [str(i) for i, x in enumerate(digits) if x == 1]
        down = [str(i) for i, x in enumerate(digits) if x == 2]
        return f"respond up {','.join(up) or '-'} down {','.join(down) or '-'}"


# --------------------------------------------------------------------------------------------------- Kozel

KOZEL_DECISIONS = ("widow", "discard", "lead", "follow")
KOZEL_KINDS = ("trump", "S", "H", "D", "C")


class KozelEncoder(Encoder):
    game = "kozel"

    def __init__(self, rules: Any, deck: tuple[str, ...]):
        self.rules = rules
        self.deck = deck
        self.index = {card: i for i, card in enumerate(deck)}
        d = len(deck)
        self.pairs = list(combinations(range(d), 2))
        self.pair_index = {pair: i for i, pair in enumerate(self.pairs)}
        self.actions = d + 2 + len(self.pairs)
        self.blocks = [
            ("my hand", d),
            ("decision: widow, discard, lead, follow", 4),
            ("trick so far: the k-th card played, one-hot, k = 0..2", 3 * d),
            ("led kind: trump S H D C", 5),
            ("cards in finished tricks of this hand", d),
            ("widow and discard, when I am the soloist who took them", d),
            ("my side's points / 120, the best other side's / 120", 2),
            ("my side's tricks / 12, the best other side's / 12", 2),
            ("penalty points: mine / target, the highest other / target", 2),
            ("contract: teams, pending, solo, misere; I am the soloist", 5),
            ("doubled", 1),
        ]
        self.size = sum(n for _, n in self.blocks)

    def encode(self, obs: dict[str, Any]) -> np.ndarray:
        d = len(self.deck)
        index = self.index
        v = np.zeros(self.size, dtype=np.float32)
        _one_hot(v, 0, obs["hand"], index)
        at = d
        if obs["decision"] in KOZEL_DECISIONS:
            v[at + KOZEL_DECISIONS.index(obs["decision"])] = 1.0
        at += 4
        for k, card in enumerate(obs["trick"][:3]):
            v[at + k * d + index[card]] = 1.0
        at += 3 * d
        if obs["led"] in KOZEL_KINDS:
            v[at + KOZEL_KINDS.index(obs["led"])] = 1.0
        at += 5
        for trick in obs["tricks"]:
            _one_hot(v, at, trick["cards"], index)
        at += d
        _one_hot(v, at, obs["widow"] or (), index)
        _one_hot(v, at, obs["discard"] or (), index)
        at += d
        side = obs["my_side"]
        taken, tricks = obs["points_taken"], obs["tricks_won"]
        if side is not None and taken:
            v[at] = taken[side] / 120
            v[at + 1] = max((p for i, p in enumerate(taken) if i != side), default=0) / 120
            v[at + 2] = tricks[side] / 12
            v[at + 3] = max((t for i, t in enumerate(tricks) if i != side), default=0) / 12
        at += 4
        scores, target, seat = obs["scores"], obs["target"], obs["seat"]
        v[at] = min(scores[seat] / target, 1.0)
        v[at + 1] = min(max(s for i, s in enumerate(scores) if i != seat) / target, 1.0)
        at += 2
        contracts = ("teams", "pending", "solo", "misere")
        if obs["contract"] in contracts:
            v[at + contracts.index(obs["contract"])] = 1.0
        v[at + 4] = float(obs["soloist"] == seat)
        at += 5
        v[at] = float(obs["doubled"])
        return v

    def index_of(self, action: dict[str, Any]) -> int:
        d = len(self.deck)
        if action["type"] == "play":
            return self.index[action["card"]]
        if action["type"] == "widow":
            return d if action["take"] else d + 1
        i, j = sorted(self.index[c] for c in action["cards"])
        return d + 2 + self.pair_index[(i, j)]

    def moves(self, state: Any, seat: int, observation: dict[str, Any]) -> list[Move]:
        return sorted(((self.index_of(a), a) for a in state.legal_actions(seat)), key=lambda m: m[0])

    def describe(self, index: int) -> str:
        d = len(self.deck)
        if index < d:
            return f"play {self.deck[index]}"
        if index < d + 2:
            return "take the widow" if index == d else "decline the widow"
        i, j = self.pairs[index - d - 2]
        return f"discard {self.deck[i]} {self.deck[j]}"


# ------------------------------------------------------------------------------------------------- Burraco

CANDIDATES = 64  # meld and add slots per turn; a turn with more lists the first 64 (hand order)
BURRACO_TEXTS: tuple[str, ...] = tuple(dict.fromkeys(BURRACO_DECK))  # 52 cards and the joker, deck order


class BurracoEncoder(Encoder):
    game = "burraco"

    def __init__(self, rules: Any):
        self.rules = rules
        self.index = {card: i for i, card in enumerate(BURRACO_TEXTS)}
        t = len(BURRACO_TEXTS)
        self.first_candidate = 2 + t
        self.actions = 2 + t + CANDIDATES
        self.blocks = [
            ("my hand: copies of each card text / 2 (jokers / 4)", t),
            ("discard pile: copies of each text / 2, and its top card", 2 * t),
            ("my team's melds: copies of each text / 2", t),
            ("the other team's melds: copies of each text / 2", t),
            ("decision: draw, play", 2),
            ("locked card (taken from a one-card pile)", t),
            ("stock / 108, my hand size / 22, the others' hand sizes / 22 (padded to 3)", 5),
            ("pozzetto taken: my team, the other team", 2),
            ("team has a burraco: mine, theirs", 2),
            ("scores / target: mine, theirs; last turn; turns without stock / limit", 4),
            ("candidates: per slot present, is an add, cards / 11, meld size after / 14", 4 * CANDIDATES),
        ]
        self.size = sum(n for _, n in self.blocks)
        self._decoded: dict[Any, Any] = {}
        self._deal: Any = None
        self._table_of: dict[str, Any] | None = None  # the observation self._table_cached was built for
        self._table_cached: Any = None
        # The five card-count blocks are one bincount over card positions (block start + text index),
        # scaled per text (a card counts 1/2, the joker 1/4): no Python loop per card.
        self._hand_at = self._positions(0)
        self._pile_at = self._positions(t)
        self._top_at = self._positions(2 * t)
        self._mine_at = self._positions(3 * t)
        self._theirs_at = self._positions(4 * t)
        weight = np.array([0.25 if card == "X" else 0.5 for card in BURRACO_TEXTS])
        self._count_weights = np.tile(weight, 5)
        self._count_weights32 = self._count_weights.astype(np.float32)
        copies = {card: BURRACO_DECK.count(card) for card in BURRACO_TEXTS}
        assert all(copies[card] * w <= 1.0 for card, w in zip(BURRACO_TEXTS, weight, strict=True)), \
            "a block could hold more than its clip: encode must clip the counts again"
        self._at_decision = 5 * t
        self._at_locked = self._positions(5 * t + 2)
        self._at_sizes = 6 * t + 2
        self._at_candidates = self.size - 4 * CANDIDATES
        self._counted = 5 * t
        self._tail_at = np.arange(self._at_sizes + 5, self._at_sizes + 13, dtype=np.intp)
        self._fields = itemgetter("team", "melds", "discard_pile", "hand", "decision", "locked_card", "seat",
                                  "hand_sizes", "stock", "pozzetti", "target", "scores", "last_turn",
                                  "turns_without_stock", "stalemate_turns")

    def _positions(self, at: int) -> dict[str, int]:
        return {card: at + i for i, card in enumerate(BURRACO_TEXTS)}

    def encode(self, obs: dict[str, Any], candidates: list[dict[str, Any]] | None = None) -> np.ndarray:
        (team, melds, pile, hand, decision, locked, seat, sizes, stock, pozzetti, target, scores, last_turn,
         without_stock, stalemate_turns) = self._fields(obs)
        counted = list(map(self._hand_at.__getitem__, hand))
        if pile:
            counted += map(self._pile_at.__getitem__, pile)
        mine, theirs = self._mine_at.__getitem__, self._theirs_at.__getitem__
        my_burraco = their_burraco = False
        for meld in melds:
            if meld["team"] == team:
                counted += map(mine, meld["cards"])
                if meld["burraco"]:
                    my_burraco = True
            else:
                counted += map(theirs, meld["cards"])
                if meld["burraco"]:
                    their_burraco = True
        v = np.zeros(self.size, dtype=np.float32)
        # Copies per text times its weight (1/2, the joker 1/4), in the vector's own first blocks. The
        # documented clip at 1 never bites: no block can hold more copies of a text than the deck has
        # (checked in __init__), and the products are exact in float32.
        counts = v[:self._counted]
        counts[:] = np.bincount(counted, minlength=self._counted)
        counts *= self._count_weights32
        buffer: Any = v.data  # the rest are a few items each: written one by one through the buffer
        if pile:
            buffer[self._top_at[pile[-1]]] = 1.0
        at = self._at_decision
        buffer[at if decision == "draw" else at + 1] = float(decision is not None)
        if locked is not None:
            buffer[self._at_locked[locked]] = 1.0
        at = self._at_sizes
        n = len(sizes)
        buffer[at] = stock / 108
        buffer[at + 1] = min(sizes[seat] / 22, 1.0)
        for k in range(1, min(n, 4)):
            buffer[at + 1 + k] = min(sizes[(seat + k) % n] / 22, 1.0)
        at += 5
        # Scores / target clipped to [-1, 1] and mapped to [0, 1].
        v.put(self._tail_at, (1.0 if pozzetti[team]["taken"] else 0.0, 1.0 if pozzetti[1 - team]["taken"] else 0.0,
                              1.0 if my_burraco else 0.0, 1.0 if their_burraco else 0.0,
                              min(max(scores[team] / target, -1.0), 1.0) * 0.5 + 0.5,
                              min(max(scores[1 - team] / target, -1.0), 1.0) * 0.5 + 0.5,
                              1.0 if last_turn else 0.0, min(without_stock / stalemate_turns, 1.0)))
        if candidates:
            sizes_of = None  # meld id -> its size, needed by adds only
            at = self._at_candidates
            for cand in candidates[:CANDIDATES]:
                cards = len(cand["cards"])
                buffer[at] = 1.0
                meld = cand.get("meld")
                if meld is not None:
                    if sizes_of is None:
                        sizes_of = {m["id"]: len(m["cards"]) for m in melds}
                    after = cards + sizes_of.get(meld, 0)
                else:
                    after = cards
                buffer[at + 1] = 1.0 if cand["type"] == "add" else 0.0
                buffer[at + 2] = cards / 11
                buffer[at + 3] = min(after / 14, 1.0)
                at += 4
        return v

    def _table(self, observation: dict[str, Any]) -> Any:
        """The built-in bots' view of ``observation``, built once for its candidates and its discards."""
        if observation is not self._table_of:
            if observation["deal"] != self._deal:
                self._deal, self._decoded = observation["deal"], {}
            self._table_cached = burraco_bots._Table(observation, self._decoded, self.rules)
            self._table_of = observation
        return self._table_cached

    def candidates(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """This turn's melds and adds, as the built-in bots find them (every one keeps the turn finishable),
        each action once (by ``action_key``), the first ``CANDIDATES`` of them."""
        if observation["decision"] != "play":
            return []
        table = self._table(observation)
        # The bots' option lists may name one action twice (a 2 of a run's suit that extends it is both one of
        # its naturals and a wild): each action gets one slot, or it would have two indices and two strings.
        found: list[dict[str, Any]] = []
        seen: set[tuple] = set()
        for option in burraco_bots._meld_options(table) + burraco_bots._add_options(table):
            # action_key's meaning for these options (cards as a multiset), at a fraction of its cost
            key = (option["type"], option.get("meld"), option.get("wild_as"), *sorted(option["cards"]))
            if key not in seen:
                seen.add(key)
                found.append(option)
                if len(found) == CANDIDATES:
                    break
        return found

    def moves(self, state: Any, seat: int, observation: dict[str, Any],
              candidates: list[dict[str, Any]] | None = None) -> list[Move]:
        if observation["decision"] == "draw":
            # The engine refuses take_pile only on an empty pile (tests/arena/env check this against it).
            if observation["discard_pile"]:
                return [(0, {"type": "draw"}), (1, {"type": "take_pile"})]
            return [(0, {"type": "draw"})]
        if observation["decision"] != "play":
            return []
        if candidates is None:
            candidates = self.candidates(observation)
        index = self.index
        discards = self._table(observation).discards()
        self._table_of = None  # kept only from candidates() to moves() of one position, never across positions
        found = [(2 + index[card], {"type": "discard", "card": card}) for card in discards]
        found.sort(key=_first)
        found += [(self.first_candidate + k, cand) for k, cand in enumerate(candidates)]
        return found

    def describe(self, index: int) -> str:
        if index == 0:
            return "draw"
        if index == 1:
            return "take the discard pile"
        if index < self.first_candidate:
            return f"discard {BURRACO_TEXTS[index - 2]}"
        return f"meld or add candidate {index - self.first_candidate}"


def encoder_for(game: str, rules: Any, state: Any) -> Encoder:
    if game == "bura":
        return BuraEncoder(rules)
    if game == "kozel":
        return KozelEncoder(rules, tuple(state._table.deck))
    if game == "burraco":
        return BurracoEncoder(rules)
    raise ValueError(f"no encoder for game {game!r}")
