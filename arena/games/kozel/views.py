"""What each seat may see in Kozel: observations and the per-seat form of events holding hidden cards.

A seat sees its own hand, every card played (the trick in progress and every finished trick), how many
cards each hand holds, the sides of the hand and their points and tricks, and the match's penalty
points. Hidden: the other hands; the widow and the soloist's discard, which only the soloist sees once
taken. In the event log only the deal, the widow taken and the discard hold hidden cards; they are
stored with one view per seat, where the cards a seat may not see are ``"??"``.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import HIDDEN


def observation(state: Any, seat: int) -> dict[str, Any]:
    # Asked before every card played: lists are copied with [*...] (no call) and the sides and
    # tricks come ready from the state.
    soloist_sees = seat == state._soloist
    pending = state._contract == "pending"
    widow = state._widow
    discard = state._discard
    return {
        "game": "kozel",
        "seat": seat,
        "players": state.num_seats,
        "to_move": state._turn,
        "decision": state.decision(seat),
        "deal": state._deal_no,
        "dealer": state._dealer,
        "hand": [*state._hands[seat]],
        "hand_sizes": [*map(len, state._hands)],
        "soloist": state._soloist,
        "contract": state._contract,
        "widow_holder": state._widow_holder,
        "sides": [side[:] for side in state._sides],
        "my_side": None if pending else state._side[seat],
        "widow": [*widow] if soloist_sees and widow is not None else None,
        "discard": [*discard] if soloist_sees and discard is not None else None,
        "leader": state._leader,
        "led": state._led,
        "trick": [*state._trick],
        "tricks": [{"leader": lead, "cards": [*cards], "winner": w, "points": p}
                   for lead, cards, w, p in state._tricks],
        "tricks_won": [*state._side_tricks],
        "points_taken": [*state._side_points],
        "scores": [*state._scores],
        "doubled": state._multiplier > 1,
        "multiplier": state._multiplier,
        "target": state.rules.target,
    }


def deal_views(full: dict[str, Any], hands: list[list[str]], seats: int) -> list[dict[str, Any]]:
    """The deal event as each seat sees it: its own hand, the others' and the widow as ``"??"``."""
    views = []
    for seat in range(seats):
        view = dict(full)
        view["hands"] = [list(h) if s == seat else [HIDDEN] * len(h) for s, h in enumerate(hands)]
        if "widow" in view:
            view["widow"] = [HIDDEN] * len(full["widow"])
        views.append(view)
    return views


def private_views(full: dict[str, Any], owner: int, key: str, seats: int) -> list[dict[str, Any]]:
    """An event whose ``key`` cards only ``owner`` sees (the widow taken, the discard)."""
    views = []
    for seat in range(seats):
        view = dict(full)
        if seat != owner:
            view[key] = [HIDDEN] * len(full[key])
        views.append(view)
    return views
