"""Determinized search: the ``search-1``..``search-3`` built-in bots and the engine of ``arena analyse``.

A seat does not know the hidden cards (the other hands, the stock, face-down cards), so the search never
looks at them: each iteration *samples* a full position consistent with the seat's own observation (a
*determinization*, built by the game's ``Sampler``), plays one root action in it and plays on with the
sampler's playout policy on the compiled engine; the action's value is what the playout's end is worth to
the seat (``Sampler.play_out``, in the game's own points, higher is better). Root actions are chosen by UCB1 over
their running means (flat information-set Monte Carlo: one tree node, the information set itself), or
uniformly when every action's estimate matters (analysis).

Everything the search draws comes from ``random.Random(seed)``, and a sampler reads only the observation
(never a set's iteration order), so a decision is a pure function of (observation, candidates, seed,
budget) when the budget is in iterations: swapping the hidden cards cannot change it, and two processes
agree whatever their hash seeds. A budget in milliseconds stops earlier on a slow machine, so it is for
local play only; the built-in levels are budgeted in iterations.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Protocol

from arena.cards import derive_seed

EXPLORATION = 1.0  # UCB1's constant, for values scaled by ``Sampler.scale`` to about [-1, 1]
FALLBACK = 0x4642  # label of the seed stream of the greedy bot behind a search bot
DETERMINIZATION_TRIES = 20  # samples drawn again when one breaks a constraint, before giving up on them

# Levels by budget: iterations per searched decision, per game (an iteration's cost differs: Bura's and
# Kozel's playouts run to the deal's end, Burraco's greedy playouts to the end of the seat's next turn).
# search-3 is about 100 ms of one core a decision on the compiled engines (docs/benchmarks.md, "Built-in
# bot strength"); a decision with one candidate costs nothing.
LEVELS: dict[str, dict[str, int]] = {
    "bura": {"search-1": 60, "search-2": 250, "search-3": 900},
    "kozel": {"search-1": 60, "search-2": 250, "search-3": 900},
    "burraco": {"search-1": 8, "search-2": 25, "search-3": 90},
}


class Sampler(Protocol):
    """One game family's knowledge: which decisions it searches, how to deal the hidden cards, and how a
    playout goes and what its end is worth."""

    scale: float  # a typical value's size, so UCB1 sees values of about [-1, 1]

    def candidates(self, observation: dict, legal_actions: list[dict] | None) -> list[dict] | None:
        """The actions the search chooses among here, or None when the game's greedy bot decides."""

    def sample(self, observation: dict, rng: random.Random) -> Any:
        """A full position at this decision, consistent with everything ``observation`` shows; raises
        ``Inconsistent`` when the draw broke a constraint (the search draws again)."""

    def mark(self, state: Any) -> Any:
        """What ``play_out`` needs to know of the position before the root action (e.g. the deal in play)."""

    def play_out(self, state: Any, seat: int, mark: Any, rng: random.Random) -> float:
        """Play on from just after the root action and return what it was worth to ``seat`` (in the game's
        points, higher is better)."""


class Inconsistent(Exception):
    """A sampled position contradicts the observation (a seat got a card of a suit it showed it lacks)."""


@dataclass
class ActionEstimate:
    action: dict
    visits: int
    mean: float  # the action's mean deal value for the seat, in the game's points


def search(sampler: Sampler, observation: dict, legal: list[dict], *, iterations: int, seed: int,
           max_ms: float | None = None, uniform: bool = False) -> list[ActionEstimate]:
    """Every legal action's estimate after ``iterations`` determinized playouts (or ``max_ms``, first)."""
    if iterations < 1:
        raise ValueError(f"a search needs at least 1 iteration, got {iterations}")
    if not legal:
        raise ValueError("a search needs at least one legal action")
    seat = observation["seat"]
    rng = random.Random(seed)
    count = len(legal)
    visits = [0] * count
    totals = [0.0] * count
    scale = sampler.scale
    stop = None if max_ms is None else time.perf_counter() + max_ms / 1000
    for done in range(iterations):
        if uniform or done < count:
            index = done % count
        else:
            log_n = math.log(done)
            index = max(range(count), key=lambda i: totals[i] / visits[i] / scale
                        + EXPLORATION * math.sqrt(log_n / visits[i]))
        state = determinize(sampler, observation, rng)
        mark = sampler.mark(state)
        state.apply(seat, legal[index])
        visits[index] += 1
        totals[index] += sampler.play_out(state, seat, mark, rng)
        if stop is not None and done >= count and time.perf_counter() >= stop:
            break
    return [ActionEstimate(action, n, total / n if n else 0.0)
            for action, n, total in zip(legal, visits, totals, strict=True)]


def best(estimates: list[ActionEstimate]) -> ActionEstimate:
    """The most visited action (UCB1's choice), ties to the better mean, then to the first listed."""
    return max(estimates, key=lambda e: (e.visits, e.mean))


def determinize(sampler: Sampler, observation: dict, rng: random.Random) -> Any:
    for _ in range(DETERMINIZATION_TRIES):
        try:
            return sampler.sample(observation, rng)
        except Inconsistent:
            continue
    # Constraints the sampler could not meet by chance (a seat void in nearly every suit) are dropped: a
    # position that breaks an inference is still a legal one.
    return sampler.sample({**observation, "_relaxed": True}, rng)


def play_to_deal_end(state: Any, deals_of: Any, mark: int, rng: random.Random, forced: Any = None) -> None:
    """Random legal actions (but ``forced``'s, when it names one) until ``deals_of(state)`` passes ``mark``
    (the deal in play is over) or the match is."""
    bits = rng.getrandbits
    while not state.is_over() and deals_of(state) == mark:
        seat = state.to_move()
        actions = state.legal_actions(seat)
        chosen = None if forced is None else forced(state, seat, actions)
        if chosen is not None:
            state.apply(seat, chosen)
            continue
        count = len(actions)
        width = count.bit_length()
        pick = bits(width)
        while pick >= count:
            pick = bits(width)
        state.apply(seat, actions[pick])


class SearchBot:
    """A built-in bot: the search with a fixed budget, from a fresh stream of its seed at every decision."""

    def __init__(self, sampler: Sampler, seat: int, seed: int, *, iterations: int, max_ms: float | None = None,
                 fallback: Any = None):
        self.sampler = sampler
        self.seat = seat
        self.seed = seed
        self.iterations = iterations
        self.max_ms = max_ms
        self.decisions = 0
        # Decisions the search does not cover (Kozel's widow and discard, Burraco's melds) go to the game's
        # greedy bot.
        self.fallback = fallback

    def act(self, observation: dict, legal_actions: list[dict] | None) -> dict:
        self.decisions += 1
        candidates = self.sampler.candidates(observation, legal_actions)
        if candidates is None:
            if self.fallback is None:
                raise ValueError(f"the search does not cover the {observation.get('decision')!r} decision")
            return self.fallback.act(observation, legal_actions)
        if len(candidates) == 1:
            return candidates[0]
        found = search(self.sampler, observation, candidates, iterations=self.iterations,
                       seed=derive_seed(self.seed, self.decisions), max_ms=self.max_ms)
        return best(found).action


SAMPLERS: dict[str, tuple[str, str]] = {
    "bura": ("arena.bots.search_bura", "BuraSampler"),
    "kozel": ("arena.bots.search_kozel", "KozelSampler"),
    "burraco": ("arena.bots.search_burraco", "BurracoSampler"),
}


def sampler_for(game: str, rules: Any) -> Sampler:
    if game not in SAMPLERS:
        raise ValueError(f"no search for game {game!r}; games with one: {', '.join(SAMPLERS)}")
    module, name = SAMPLERS[game]
    return getattr(importlib.import_module(module), name)(rules)


def search_bots(game: str, module_name: str) -> dict[str, Any]:
    """``search-1``..``search-3`` constructors for ``game`` (none for a game without a sampler); decisions the
    search leaves out go to the ``greedy`` bot of ``module_name``."""
    if game not in SAMPLERS:
        return {}
    greedy = importlib.import_module(module_name).BOTS["greedy"]

    def level(name: str, iterations: int):
        def make(seat: int, rules: Any, seed: int) -> SearchBot:
            return SearchBot(sampler_for(game, rules), seat, seed, iterations=iterations,
                             fallback=greedy(seat, rules, derive_seed(seed, FALLBACK)))
        make.__name__ = make.__qualname__ = name
        return make

    return {name: level(name, iterations) for name, iterations in LEVELS[game].items()}
