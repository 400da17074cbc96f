"""The plain data every format module speaks: entrants are any hashable ids, a round is pairings plus byes,
and a result is one finished match unit (a duplicate set) seen from its first seat."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

EntrantId = Hashable

#: Match points for a pairing-allocated bye: a full point, as FIDE's default for the PAB (C.04.1 c).
BYE_POINTS = 1.0
MATCH_POINTS = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Pairing:
    """Two entrants meet; `first` takes the first seat (the "white" of chess pairing rules)."""

    first: EntrantId
    second: EntrantId

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError(f"an entrant cannot be paired with itself: {self.first!r}")


@dataclass(frozen=True)
class Round:
    pairings: tuple[Pairing, ...]
    byes: tuple[EntrantId, ...] = ()

    def entrants(self) -> list[EntrantId]:
        return [e for p in self.pairings for e in (p.first, p.second)] + list(self.byes)


@dataclass(frozen=True)
class Result:
    """One finished pairing (or a bye when `second` is None), in round `round` (1-based).

    `score` is the match points of `first`: 1 win, 0.5 draw, 0 loss; `second` gets 1 - score. A forfeit is an
    ordinary loss. `margin` is the duplicate point difference of `first` (its deal points minus the opponent's
    over the whole duplicate set); the opponent's margin is its negative.
    """

    round: int
    first: EntrantId
    second: EntrantId | None
    score: float
    margin: float = 0.0

    def __post_init__(self) -> None:
        if self.round < 1:
            raise ValueError(f"result round must be 1 or more, got {self.round}")
        if self.second is None:
            if self.score != BYE_POINTS and self.score not in MATCH_POINTS:
                raise ValueError(f"bye of {self.first!r} scores {self.score}, expected one of {MATCH_POINTS}")
        elif self.score not in MATCH_POINTS:
            raise ValueError(f"result {self.first!r} v {self.second!r} scores {self.score}, expected 0, 0.5 or 1")
        if self.first == self.second:
            raise ValueError(f"result pairs {self.first!r} with itself")

    @property
    def is_bye(self) -> bool:
        return self.second is None

    def points_of(self, entrant: EntrantId) -> float:
        return self.score if entrant == self.first else 1.0 - self.score

    def margin_of(self, entrant: EntrantId) -> float:
        return self.margin if entrant == self.first else -self.margin

    def opponent_of(self, entrant: EntrantId) -> EntrantId | None:
        return self.second if entrant == self.first else self.first


def bye(round: int, entrant: EntrantId, points: float = BYE_POINTS) -> Result:
    return Result(round=round, first=entrant, second=None, score=points)


@dataclass
class History:
    """What the pairing rules need to know about each entrant, folded from the results in round order."""

    score: dict[EntrantId, float] = field(default_factory=dict)
    opponents: dict[EntrantId, set[EntrantId]] = field(default_factory=dict)
    seats: dict[EntrantId, list[int]] = field(default_factory=dict)  # +1 first seat, -1 second, per played round
    byes: dict[EntrantId, int] = field(default_factory=dict)
    rounds_played: int = 0


def check_entrants(entrants: Sequence[EntrantId], minimum: int = 2) -> list[EntrantId]:
    listed = list(entrants)
    if len(set(listed)) != len(listed):
        dupes = sorted({repr(e) for e in listed if listed.count(e) > 1})
        raise ValueError(f"entrants listed twice: {', '.join(dupes)}")
    if len(listed) < minimum:
        raise ValueError(f"needs at least {minimum} entrants, got {len(listed)}")
    return listed


def fold(entrants: Sequence[EntrantId], results: Iterable[Result]) -> History:
    """Fold results into per-entrant history; a result naming an unknown entrant is refused."""
    known = set(entrants)
    history = History(
        score={e: 0.0 for e in entrants},
        opponents={e: set() for e in entrants},
        seats={e: [] for e in entrants},
        byes={e: 0 for e in entrants},
    )
    seen: set[tuple[int, EntrantId]] = set()
    for result in sorted(results, key=lambda r: r.round):
        for who in (result.first, result.second):
            if who is not None and who not in known:
                raise ValueError(f"result of round {result.round} names {who!r}, who is not an entrant")
            if who is not None and (result.round, who) in seen:
                raise ValueError(f"{who!r} has two results in round {result.round}")
            seen.add((result.round, who))
        history.rounds_played = max(history.rounds_played, result.round)
        if result.is_bye:
            history.score[result.first] += result.score
            history.byes[result.first] += 1
            continue
        history.score[result.first] += result.score
        history.score[result.second] += 1.0 - result.score
        history.opponents[result.first].add(result.second)
        history.opponents[result.second].add(result.first)
        history.seats[result.first].append(+1)
        history.seats[result.second].append(-1)
    return history


class SwissPairingError(ValueError):
    """No complete round exists under the rules (every pairing left would be a rematch or a second bye)."""
