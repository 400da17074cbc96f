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
from typing import Any

import numpy as np

from arena.bots import burraco as burraco_bots
from arena.cards import BURRACO_DECK
from arena.games.base import IllegalAction
from arena.games.bura.ranking import points as bura_points

Move = tuple[int, dict[str, Any]]


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

    def encode(self, obs: dict[str, Any]) -> np.ndarray:
        d, h = len(self.deck), self.hand
        index = self.index
        ones: list[int] = []  # positions set to 1, written at once at the end
        ones.extend(slot * d + index[card] for slot, card in enumerate(obs["hand"][:h]))
        at = h * d
        decision = obs["decision"]
        if decision in BURA_DECISIONS:
            ones.append(at + BURA_DECISIONS.index(decision))
        at += 3
        ones.append(at + SUITS.index(obs["trump"]))
        at += 4
        if obs["trump_card"] is not None:
            ones.append(at + index[obs["trump_card"]])
        at += d
        values = {at: obs["stock"] / d}
        at += 1
        trick = obs["trick"]
        if trick is not None:
            ones.extend(at + index[c] for c in trick["best_cards"])
            for play in trick["plays"]:
                if play["face_down"] is False:
                    ones.extend(at + d + index[c] for c in play["cards"])
            values[at + 2 * d] = trick["size"] / h
        at += 2 * d + 1
        seat = obs["seat"]
        teams = obs["teams"]
        team = next(t for t in teams if seat in t)
        mine = 0
        by_side: dict[int, int] = {}
        for owner, pile in enumerate(obs["piles"]):
            ours = owner in team
            base = at if ours else at + d
            ones.extend(base + index[c] for c in pile["face_up"])
            ones.extend(at + 2 * d + index[c] for c in pile["face_down_known"])
            seen = bura_points(pile["face_up"]) + bura_points(pile["face_down_known"])
            if ours:
                mine += seen
            else:
                side = next(i for i, t in enumerate(teams) if owner in t)
                by_side[side] = by_side.get(side, 0) + seen
        at += 3 * d
        values[at] = min(mine, 120) / 120
        values[at + 1] = min(max(by_side.values(), default=0), 120) / 120
        at += 2
        values[at] = (obs["claim_target"] or 0) / 120
        at += 1
        points = obs["match_points"]
        others = [p for s, p in enumerate(points) if s not in team]
        values[at] = min(points[seat] / self.target, 1.0)
        values[at + 1] = min(max(others, default=0) / self.target, 1.0)
        at += 2
        sizes = obs["hand_sizes"]
        n = len(sizes)
        for k in range(1, min(n, MAX_OTHERS + 1)):
            values[at + k - 1] = sizes[(seat + k) % n] / h
        at += MAX_OTHERS
        values[at] = min(math.log2(max(obs["multiplier"], 1)) / 4, 1.0)
        at += 1
        if obs["lead_limit"] is not None:
            values[at] = obs["lead_limit"] / h
        v = np.zeros(self.size, dtype=np.float32)
        v.put(ones, 1.0)
        for i, x in values.items():
            v[i] = x
        return v

    def index_of(self, hand: list[str], action: dict[str, Any], slots: dict[str, int] | None = None) -> int:
        """The action index of an engine action, given the seat's hand (in the engine's order)."""
        kind = action["type"]
        if kind == "claim":
            return 0
        if kind == "pass":
            return 1
        if slots is None:
            slots = {card: i for i, card in enumerate(hand)}
        if kind == "lead":
            mask = sum(1 << slots[c] for c in action["cards"])
            return 2 + mask - 1
        down = action.get("face_down", False)
        hidden = set(action["cards"]) if down is True else set(down or ())
        code = sum((2 if c in hidden else 1) * 3 ** slots[c] for c in action["cards"])
        return 2 + self.leads + code - 1

    def moves(self, state: Any, seat: int, observation: dict[str, Any]) -> list[Move]:
        hand = observation["hand"]
        slots = {card: i for i, card in enumerate(hand)}
        found = [(self.index_of(hand, a, slots), a) for a in state.legal_actions(seat)]
        found.sort(key=lambda m: m[0])
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

    def _count(self, v: np.ndarray, at: int, cards) -> None:
        for card in cards:
            v[at + self.index[card]] += 0.25 if card == "X" else 0.5

    def encode(self, obs: dict[str, Any], candidates: list[dict[str, Any]] | None = None) -> np.ndarray:
        t = len(BURRACO_TEXTS)
        v = np.zeros(self.size, dtype=np.float32)
        self._count(v, 0, obs["hand"])
        at = t
        self._count(v, at, obs["discard_pile"])
        if obs["discard_pile"]:
            v[at + t + self.index[obs["discard_pile"][-1]]] = 1.0
        at += 2 * t
        team = obs["team"]
        for meld in obs["melds"]:
            self._count(v, at if meld["team"] == team else at + t, meld["cards"])
        np.minimum(v, 1.0, out=v)
        at += 2 * t
        v[at + (0 if obs["decision"] == "draw" else 1)] = float(obs["decision"] is not None)
        at += 2
        if obs["locked_card"] is not None:
            v[at + self.index[obs["locked_card"]]] = 1.0
        at += t
        seat, sizes = obs["seat"], obs["hand_sizes"]
        v[at] = obs["stock"] / 108
        v[at + 1] = min(sizes[seat] / 22, 1.0)
        for k in range(1, min(len(sizes), 4)):
            v[at + 1 + k] = min(sizes[(seat + k) % len(sizes)] / 22, 1.0)
        at += 5
        v[at] = float(obs["pozzetti"][team]["taken"])
        v[at + 1] = float(obs["pozzetti"][1 - team]["taken"])
        at += 2
        v[at] = float(any(m["burraco"] for m in obs["melds"] if m["team"] == team))
        v[at + 1] = float(any(m["burraco"] for m in obs["melds"] if m["team"] != team))
        at += 2
        target = obs["target"]
        scores = obs["scores"]
        v[at] = float(np.clip(scores[team] / target, -1.0, 1.0) * 0.5 + 0.5)
        v[at + 1] = float(np.clip(scores[1 - team] / target, -1.0, 1.0) * 0.5 + 0.5)
        v[at + 2] = float(obs["last_turn"])
        v[at + 3] = min(obs["turns_without_stock"] / obs["stalemate_turns"], 1.0)
        at += 4
        sizes_of = {m["id"]: len(m["cards"]) for m in obs["melds"]}
        for k, cand in enumerate((candidates or [])[:CANDIDATES]):
            base = at + 4 * k
            v[base] = 1.0
            v[base + 1] = float(cand["type"] == "add")
            v[base + 2] = len(cand["cards"]) / 11
            v[base + 3] = min((len(cand["cards"]) + sizes_of.get(cand.get("meld"), 0)) / 14, 1.0)
        return v

    def candidates(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """This turn's melds and adds, as the built-in bots find them (every one keeps the turn finishable)."""
        if observation["decision"] != "play":
            return []
        if observation["deal"] != self._deal:
            self._deal, self._decoded = observation["deal"], {}
        table = burraco_bots._Table(observation, self._decoded, self.rules)
        return (burraco_bots._meld_options(table) + burraco_bots._add_options(table))[:CANDIDATES]

    def moves(self, state: Any, seat: int, observation: dict[str, Any],
              candidates: list[dict[str, Any]] | None = None) -> list[Move]:
        if observation["decision"] == "draw":
            found: list[Move] = [(0, {"type": "draw"})]
            if observation["discard_pile"]:
                trial = state.clone()
                try:
                    trial.apply(seat, {"type": "take_pile"})
                    found.append((1, {"type": "take_pile"}))
                except IllegalAction:
                    pass
            return found
        if observation["decision"] != "play":
            return []
        if candidates is None:
            candidates = self.candidates(observation)
        if self._deal != observation["deal"]:
            self._deal, self._decoded = observation["deal"], {}
        table = burraco_bots._Table(observation, self._decoded, self.rules)
        found = [(2 + self.index[card], {"type": "discard", "card": card}) for card in table.discards()]
        found.sort(key=lambda m: m[0])
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
