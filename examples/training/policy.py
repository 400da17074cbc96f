"""A linear softmax policy over hand-made action features for the Bura family — Python's standard library only.

The same file runs in three places: the trainer (examples/training/train.py, which also does the
gradient arithmetic), the in-process evaluation, and the exported bot (copied beside its main.py, so
the uploaded bot needs nothing but python3). A decision's legal actions each get a feature vector;
the policy plays ``softmax(weights · features)`` over them (greedily, the highest score, once trained).

Features are per decision kind, each in its own block of the weight vector, so claiming, leading and
answering learn separately. All of them are read from the observation a seat receives, nothing more.
"""

from __future__ import annotations

import math
import random

POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0, "6": 0}
RANKS = "ATKQJ9876"
STRENGTH = {r: len(RANKS) - i for i, r in enumerate(RANKS)}

CLAIM_FEATURES = ("claim: bias", "claim: known points / 31", "claim: known points >= target",
                  "claim: unseen face-down cards in our piles / 3", "claim: best other side's visible points / 31",
                  "claim: stock / 36")
LEAD_FEATURES = ("lead: bias", "lead: cards / 3", "lead: points / 22", "lead: trumps / 3", "lead: mean strength / 9",
                 "lead: cards no unseen card of the suit beats", "lead: aces and tens / 3",
                 "lead: several worthless cards", "lead: trumps while the stock lasts")
RESPOND_FEATURES = ("respond: beats", "respond: beats x points on the table / 22",
                    "respond: beats x our points played / 22", "respond: trumps played / 3",
                    "respond: points given away / 22", "respond: face down", "respond: face down x points / 22",
                    "respond: taking it proves the target", "respond: trumps played while the stock lasts")
NAMES = CLAIM_FEATURES + LEAD_FEATURES + RESPOND_FEATURES
SIZE = len(NAMES)
_LEAD_AT = len(CLAIM_FEATURES)
_RESPOND_AT = _LEAD_AT + len(LEAD_FEATURES)


def points(cards) -> int:
    return sum(POINTS.get(c[0], 0) for c in cards)


def beats(card: str, target: str, trump: str) -> bool:
    if card[1] == target[1]:
        return STRENGTH[card[0]] > STRENGTH[target[0]]
    return card[1] == trump


def set_beats(cards, target, trump: str) -> bool:
    """A one-to-one pairing where every target card is beaten (augmenting paths)."""
    if len(cards) != len(target):
        return False
    owner: dict[int, int] = {}

    def augment(t: int, seen: set) -> bool:
        for i, card in enumerate(cards):
            if i not in seen and beats(card, target[t], trump):
                seen.add(i)
                if i not in owner or augment(owner[i], seen):
                    owner[i] = t
                    return True
        return False

    return all(augment(t, set()) for t in range(len(target)))


def _team(obs: dict) -> list[int]:
    return next(t for t in obs["teams"] if obs["seat"] in t)


def _known_points(obs: dict, seats) -> int:
    return sum(points(obs["piles"][s]["face_up"]) + points(obs["piles"][s]["face_down_known"]) for s in seats)


def _seen(obs: dict) -> set:
    """Every card this seat has seen leave play or sits in its hand."""
    seen = set(obs["hand"])
    for pile in obs["piles"]:
        seen.update(pile["face_up"])
        seen.update(pile["face_down_known"])
    if obs["trick"]:
        for play in obs["trick"]["plays"]:
            seen.update(c for c in play["cards"] if c != "??")
    if obs["trump_card"]:
        seen.add(obs["trump_card"])
    return seen


def features(obs: dict, action: dict) -> list[float]:
    """The feature vector of one legal action (zeros outside its decision's block)."""
    x = [0.0] * SIZE
    trump = obs["trump"]
    stock = obs["stock"] / 36
    kind = action["type"]
    if kind in ("claim", "pass"):
        if kind == "claim":
            team = _team(obs)
            known = _known_points(obs, team)
            unseen = sum(obs["piles"][s]["count"] - len(obs["piles"][s]["face_up"])
                         - len(obs["piles"][s]["face_down_known"]) for s in team)
            others = [s for s in range(len(obs["piles"])) if s not in team]
            x[0:6] = [1.0, known / 31, float(known >= (obs["claim_target"] or 31)), unseen / 3,
                      _known_points(obs, others) / 31, stock]
        return x
    cards = action["cards"]
    trumps = sum(c[1] == trump for c in cards)
    if kind == "lead":
        seen = _seen(obs)
        sure = 0
        for c in cards:
            higher = [r + c[1] for r in RANKS[:RANKS.index(c[0])]]
            sure += all(h in seen for h in higher)
        pts = points(cards)
        at = _LEAD_AT
        x[at:at + 9] = [1.0, len(cards) / 3, pts / 22, trumps / 3,
                        sum(STRENGTH[c[0]] for c in cards) / (9 * len(cards)), sure / 3,
                        sum(c[0] in "AT" for c in cards) / 3, float(pts == 0 and len(cards) > 1), trumps * stock]
        return x
    trick = obs["trick"]
    down = action.get("face_down") is True
    wins = not down and set_beats(cards, trick["best_cards"], trump)
    on_table = sum(points(p["cards"]) for p in trick["plays"] if "??" not in p["cards"])
    mine = points(cards)
    proves = wins and _known_points(obs, _team(obs)) + on_table + mine >= (obs["claim_target"] or 999)
    at = _RESPOND_AT
    x[at:at + 9] = [float(wins), wins * on_table / 22, wins * mine / 22, trumps / 3,
                    (not wins) * mine / 22, float(down), down * mine / 22, float(proves), trumps * stock]
    return x


def scores(weights: list[float], rows: list[list[float]]) -> list[float]:
    return [sum(w * f for w, f in zip(weights, row, strict=True)) for row in rows]


def probabilities(weights: list[float], rows: list[list[float]]) -> list[float]:
    s = scores(weights, rows)
    top = max(s)
    e = [math.exp(v - top) for v in s]
    total = sum(e)
    return [v / total for v in e]


class Policy:
    """``act(observation, legal_actions)`` like a built-in bot: the best-scoring action (ties: the first),
    or a sample from the softmax when ``explore`` is on."""

    def __init__(self, weights: list[float], explore: bool = False, seed: int = 0):
        if len(weights) != SIZE:
            raise ValueError(f"{SIZE} weights are needed, not {len(weights)}")
        self.weights = list(weights)
        self.explore = explore
        self.rng = random.Random(seed)

    def act(self, observation: dict, legal_actions: list) -> dict:
        rows = [features(observation, a) for a in legal_actions]
        if self.explore:
            p = probabilities(self.weights, rows)
            return legal_actions[self.rng.choices(range(len(rows)), weights=p)[0]]
        s = scores(self.weights, rows)
        return legal_actions[max(range(len(s)), key=s.__getitem__)]
