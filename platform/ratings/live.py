"""The live rating: an OpenSkill Plackett–Luce update after every finished ranked match.

Used for matchmaking and instant feedback; the official leaderboard is the batch fit (fit.py). Each bot
version has a skill (mu, sigma). A match's sides are its teams (or single seats); a side's players are
the distinct versions in its seats, so a team that is one bot in both seats counts that bot once, and a
mixed team credits both of its bots. A version sitting on two sides met itself: it is left out of that
match, and the rest is rated without it (nothing is rated when fewer than two sides are left).

A new version starts from its bot's previous version's mu with sigma reset to the initial value: it is
probably about as strong, but that is unproven (``successor``).

Display on the Elo scale: the Plackett–Luce likelihood that a beats b is e^(μa/c) / (e^(μa/c) + e^(μb/c))
with c = √(σa² + σb² + 2β²) (Weng & Lin 2011, the model openskill implements). For settled ratings
(σ → 0) the odds are e^(Δμ/(√2·β)), and Elo odds are 10^(D/400), so D = Δμ · 400 / (ln 10 · √2 · β):
with openskill's β = 25/6, one mu point is about 29.5 Elo, and mu 25 (a new bot) is shown as 1500.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce

from ratings.scale import BASE, Z95

Player = TypeVar("Player", bound=Hashable)  # whatever identifies a rated player (a version id)

# openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300. tau adds a little uncertainty every game,
# so the live rating keeps following a version as the pool around it changes; versions are immutable, so
# their true strength only moves relative to a changing field, and the official fit needs no such term.
MODEL = PlackettLuce()
ELO_PER_MU = 400.0 / (math.log(10.0) * math.sqrt(2.0) * MODEL.beta)


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def elo(self) -> float:
        return to_elo(self.mu)

    @property
    def elo_half_width(self) -> float:
        """Half the 95% interval, in Elo points."""
        return Z95 * self.sigma * ELO_PER_MU


def to_elo(mu: float, model: PlackettLuce = MODEL) -> float:
    per_mu = 400.0 / (math.log(10.0) * math.sqrt(2.0) * model.beta)
    return BASE + (mu - model.mu) * per_mu


def initial(model: PlackettLuce = MODEL) -> Skill:
    return Skill(model.mu, model.sigma)


def successor(previous: Skill | None, model: PlackettLuce = MODEL) -> Skill:
    """A new version's skill: its bot's previous version's mu (if any), with the initial sigma."""
    return Skill(previous.mu if previous is not None else model.mu, model.sigma)


def rate_match(skills: Mapping[Player, Skill], seats: Sequence[Player], ranks: Sequence[int],
               teams: Sequence[Sequence[int]] | None = None, model: PlackettLuce = MODEL) -> dict[Player, Skill]:
    """New skills of the versions rated by one match.

    ``skills``: the current skill of every version seated; ``seats``: the version in each seat; ``ranks``:
    each seat's rank (1 = best, equal = tie, as the referee reports it, forfeits included); ``teams``: seat
    indices per team, or None when every seat plays for itself.
    """
    if len(seats) != len(ranks):
        raise ValueError("rate_match needs one rank per seat")
    teams = [list(t) for t in teams] if teams is not None else [[s] for s in range(len(seats))]
    if sorted(s for t in teams for s in t) != list(range(len(seats))):
        raise ValueError(f"teams must split seats 0..{len(seats) - 1} exactly once")
    sides, side_ranks = [], []
    for team in teams:
        if len({ranks[s] for s in team}) != 1:
            raise ValueError("seats of one team have different ranks")
        sides.append(list(dict.fromkeys(seats[s] for s in team)))
        side_ranks.append(ranks[team[0]])
    on_sides: dict[Player, int] = {}
    for side in sides:
        for player in side:
            on_sides[player] = on_sides.get(player, 0) + 1
    kept = [([p for p in side if on_sides[p] == 1], rank) for side, rank in zip(sides, side_ranks, strict=True)]
    kept = [(side, rank) for side, rank in kept if side]
    if len(kept) < 2:
        return {}
    missing = [p for side, _ in kept for p in side if p not in skills]
    if missing:
        raise ValueError(f"no live skill for {missing[0]!r}: give a new version successor(...) first")
    teams_in = [[model.rating(mu=skills[p].mu, sigma=skills[p].sigma) for p in side] for side, _ in kept]
    rated = model.rate(teams_in, ranks=[float(rank) for _, rank in kept])
    return {p: Skill(r.mu, r.sigma)
            for (side, _), team in zip(kept, rated, strict=True) for p, r in zip(side, team, strict=True)}
