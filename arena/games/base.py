"""The contract every game engine keeps, and the errors it raises.

Shape (OpenSpiel-like, see ../shared/DESIGN.md): a frozen ``Rules`` dataclass with validated options
and named presets, and a deterministic match state built from ``(rules, seed)``. Engines are
synchronous, hold no global state and draw no randomness of their own beyond the seed, so many
matches can run in one process and a match is exactly ``seed + actions``.

Everything crossing this boundary is plain JSON (dicts, lists, strings, ints, bools, None), because the
referee sends observations, legal actions and events to bots as they are.
"""

from __future__ import annotations

from typing import Any, Protocol

JSON = Any


class RuleOptionError(ValueError):
    """An unknown rule option or a bad value; the message names the option and what is allowed."""


class IllegalAction(ValueError):
    """A rejected action. ``rule`` is a short stable code (e.g. ``"must-play-same-count"``)."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{message} [rule: {rule}]")
        self.rule = rule
        self.detail = message


class MatchState(Protocol):
    """What the referee, the runner, the bots and the platform may rely on.

    Seats are numbered 0..n-1 clockwise. ``to_move`` is ``None`` once the match is over.
    """

    rules: Any
    seed: int
    num_seats: int

    def to_move(self) -> int | None: ...

    def observation(self, seat: int) -> dict[str, JSON]:
        """Exactly what ``seat`` may know now: never another seat's hand or face-down cards."""

    def legal_actions(self, seat: int) -> list[dict[str, JSON]] | None:
        """Every legal action for the seat to move, or None when the set is too large to list."""

    def apply(self, seat: int, action: dict[str, JSON]) -> None:
        """Validate and play; raises IllegalAction naming the broken rule. State is unchanged on error."""

    def is_over(self) -> bool: ...

    def outcome(self) -> dict[str, JSON]:
        """Standings. Callable at any time; ``finished`` tells whether the match ended by the rules.

        Keys every game provides: ``finished`` (bool), ``ranks`` (per seat, 1 = best, ties share),
        ``points`` (per seat, the game's own match total, e.g. penalty points), ``points_kind``
        (``"penalty"``: lower is better, or ``"score"``: higher is better), ``teams`` (list of seat lists),
        ``deals`` (per-deal details).
        """

    def events(self, seat: int | None, start: int = 0) -> list[dict[str, JSON]]:
        """The event log from index ``start`` as ``seat`` sees it (None: full information, for replays).

        The log only grows; ``len(state.events(None))`` is its length. Hidden cards appear as ``"??"``
        to seats that may not see them.
        """


HIDDEN = "??"


def fields_of(state: object) -> dict[str, Any]:
    """Every attribute a match has set, by name, for copies and pickles: its instance dict or slots, or, for a
    class compiled with mypyc (which has neither, see arena/compiled.py), the attributes its class declares."""
    names = getattr(type(state), "__mypyc_attrs__", None) or getattr(type(state), "__slots__", None)
    if names is None:
        return dict(vars(state))
    found = {}
    for name in names:
        try:
            found[name] = getattr(state, name)
        except AttributeError:  # (declared, never set on this match)
            continue
    return found


def set_fields(state: object, values: dict[str, Any]) -> None:
    for name, value in values.items():
        setattr(state, name, value)


def rebuilt(cls: type, rules: Any, seed: int, values: dict[str, Any]) -> Any:
    """A match of class ``cls`` from its fields: what a match's ``__reduce__`` hands pickle (and Bura's deep copy
    uses), whose default way needs an instance dict and an argument-free constructor, which a compiled class
    lacks."""
    state = cls(rules, seed, deal=False)
    set_fields(state, values)
    return state
