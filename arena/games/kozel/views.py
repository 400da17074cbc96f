"""What each seat may see in Kozel: observations and the per-seat form of events holding hidden cards.

A seat sees its own hand, every card played (the trick in progress and every finished trick), how many
cards each hand holds, the sides of the hand and their points and tricks, and the match's penalty
points. Hidden: the other hands; the widow and the soloist's discard, which only the soloist sees once
taken. In the event log only the deal, the widow taken and the discard hold hidden cards; a seat's view
of them shows the cards it may not see as ``"??"``.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import HIDDEN


def template(state: Any, seat: int) -> dict[str, Any]:
    """Everything in ``seat``'s observation that stays the same until the sides, the discard or the scores
    change, in the observation's key order; the keys set on every call hold placeholders (None)."""
    return {
        "game": "kozel",
        "seat": seat,
        "players": state.num_seats,
        "to_move": None,
        "decision": None,
        "deal": state._deal_no,
        "dealer": state._dealer,
        "hand": None,
        "hand_sizes": None,
        "soloist": state._soloist,
        "contract": state._contract,
        "widow_holder": state._widow_holder,
        "sides": None,
        "my_side": None if state._contract == "pending" else state._side[seat],
        "widow": None,
        "discard": None,
        "leader": None,
        "led": None,
        "trick": None,
        "tricks": None,
        "tricks_won": None,
        "points_taken": None,
        "scores": None,
        "doubled": state._multiplier > 1,
        "multiplier": state._multiplier,
        "target": state.rules.target,
    }


def observation(state: Any, seat: int) -> dict[str, Any]:
    # Asked before every card played: a copy of the seat's prepared template (a dict copy is much cheaper
    # than building the dict), then only what can have changed since, every list copied with [*...].
    obs = state._templates[seat]
    if obs is None:
        obs = state._templates[seat] = template(state, seat)
    obs = obs.copy()
    turn = state._turn
    trick = state._trick
    if seat == turn:
        phase = state._phase
        obs["decision"] = ("follow" if trick else "lead") if phase == "play" else phase
    obs["to_move"] = turn
    obs["hand"] = [*state._hands[seat]]
    obs["hand_sizes"] = [*map(len, state._hands)]
    obs["sides"] = [*map(list, state._sides)]
    if seat == state._soloist:  # only the soloist sees the widow taken and the discard
        if state._widow is not None:
            obs["widow"] = [*state._widow]
        if state._discard is not None:
            obs["discard"] = [*state._discard]
    obs["leader"] = state._leader
    obs["led"] = state._led
    obs["trick"] = [*trick]
    obs["tricks"] = [{"leader": lead, "cards": [*cards], "winner": w, "points": p}
                     for lead, cards, w, p in state._tricks]
    obs["tricks_won"] = [*state._side_tricks]
    obs["points_taken"] = [*state._side_points]
    obs["scores"] = [*state._scores]
    return obs


def deal_view(full: dict[str, Any], seat: int) -> dict[str, Any]:
    """The deal event as ``seat`` sees it: its own hand, the others' and the widow as ``"??"``."""
    view = dict(full)
    view["hands"] = [list(h) if s == seat else [HIDDEN] * len(h) for s, h in enumerate(full["hands"])]
    if "widow" in view:
        view["widow"] = [HIDDEN] * len(full["widow"])
    return view


def private_view(full: dict[str, Any], owner: int, key: str, seat: int) -> dict[str, Any]:
    """An event whose ``key`` cards only ``owner`` sees (the widow taken, the discard), as ``seat`` sees it."""
    view = dict(full)
    view[key] = list(full[key]) if seat == owner else [HIDDEN] * len(full[key])
    return view
