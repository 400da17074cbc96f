"""The public view of a match: what every seat knows, and so what anyone watching may be shown while it runs.

A spectator of a running match must learn nothing a seat could use: assume every seat reads the page (a
remote bot does; a person may have a friend beside them). What every seat already knows gives no seat
anything, so the public view is the *common part* of every seat's view, worked out from the seats' own
views and nothing else: it needs no game to say what is public, and a game whose views are right (each seat
sees only what it may) gets a public view that is right too.

The common part of the seats' values (``common``): a value every seat sees alike is kept; dictionaries with
the same keys and lists of containers of the same length are compared part by part; anything else that
differs between seats is hidden whole — a list of cards becomes as many ``"??"`` (or nothing, when the seats
do not even agree on how many), any other value ``None``. Two seats' hands are never compared card by card
(two decks can give two seats the same card at the same place), and the ``hand`` of an observation, the
protocol's name for the seat's own cards, is always left out.

``public_frames`` and ``public_meta`` give the replay viewer's frames and meta (``arena.replay_frames``) for
this view; its name in a frame's ``views`` is ``"public"``, not a seat, so the viewer draws every hand as
backs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from arena.games.base import HIDDEN
from arena.replay_frames import ReplayRun, forfeit_marks, mark_of, summarize

VIEW = "public"
PRIVATE_KEYS = frozenset({"hand"})  # the seat's own cards (docs/protocol.md): never part of a public view


def _container(value: Any) -> bool:
    return isinstance(value, dict | list)


def common(values: Sequence[Any]) -> Any:
    """The part of ``values`` (one per seat, the same thing as each seat sees it) that every seat sees alike."""
    first = values[0]
    if all(value == first for value in values[1:]):
        return first
    if all(isinstance(value, dict) for value in values) and all(value.keys() == first.keys() for value in values):
        return {key: common([value[key] for value in values]) for key in first}
    if all(isinstance(value, list) for value in values):
        same_length = all(len(value) == len(first) for value in values)
        if same_length and any(_container(item) for value in values for item in value):
            return [common(list(items)) for items in zip(*values, strict=True)]
        return [HIDDEN] * len(first) if same_length else []
    return None


def public_observation(observations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What every seat's observation shows alike, without any seat's hand."""
    shown = common(list(observations))
    return {key: value for key, value in shown.items() if key not in PRIVATE_KEYS} if isinstance(shown, dict) \
        else {}


def public_events(per_seat: Sequence[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The events of one stretch of the log as every seat saw them alike (each seat's log has every event)."""
    return [common(list(group)) for group in zip(*per_seat, strict=True)]


def public_frames(run: ReplayRun, start: int, stop: int) -> Iterator[dict[str, Any]]:
    """Frames ``start`` .. ``stop`` (both included) of the public view, in the shape of ``run.frames``."""
    per_seat = [run.frames(seat, start, stop) for seat in range(run.seats)]
    for frames in zip(*per_seat, strict=True):
        first = frames[0]
        events = public_events([frame["events"] for frame in frames])
        marks = [m for m in (mark_of(e, run.deal_of(e)) for e in events) if m]
        if first["step"] == run.steps:
            marks += forfeit_marks(run.replay)
        actor = first["actor"]
        lines = [summarize(e, run.deal_of(e)) for e in events]
        frame = {
            "step": first["step"], "deal": first["deal"], "actor": actor, "to_move": first["to_move"],
            "text": "; ".join(lines) or (f"seat {actor} moves" if actor is not None else "the match begins"),
            "events": events,
            "views": {VIEW: public_observation([frame["views"][str(seat)] for seat, frame in enumerate(frames)])},
            "totals": first["totals"], "marks": marks,
        }
        if "ending" in first:  # the deal's end, as every seat saw it alike
            endings = [f["ending"] for f in frames]
            ended = public_events([e["events"] for e in endings])
            frame["ending"] = {
                "deal": first["ending"]["deal"], "events": ended,
                "views": {VIEW: public_observation([e["views"][str(seat)] for seat, e in enumerate(endings)])},
                "text": "; ".join(summarize(e, run.deal_of(e)) for e in ended)}
        yield frame


def public_marks(run: ReplayRun) -> list[dict[str, Any]]:
    """Every mark of the match as the public view sees it, each at its step."""
    state = run.state_at(run.steps)
    events = public_events([state.events(seat) for seat in range(run.seats)])
    found = []
    for index, event in enumerate(events):
        mark = mark_of(event, run.deal_of(event))
        if mark is not None:
            found.append({"step": run.step_of_event(index), **mark})
    return found + [{"step": run.steps, **mark} for mark in forfeit_marks(run.replay)]


def public_meta(run: ReplayRun) -> dict[str, Any]:
    """The first chunk's meta for the public view: the match, its deals and totals, and the public marks."""
    return {**run.meta(0), "marks": public_marks(run)}
