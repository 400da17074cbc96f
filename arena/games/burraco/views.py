"""What each seat may see in Burraco: observations and the per-seat form of events holding hidden cards.

A seat sees its own hand (sorted), how many cards every hand and the stock hold, the whole discard pile,
every meld on the table, which pozzetti were taken (by whom, how), the turn's locked card when it is its
turn, and the scores. Hidden: the other hands, the stock, the pozzetti's cards (except to the player
who took one). In the event log the deal, a card drawn from the stock and a pozzetto taken hold hidden
cards; they are stored with one view per seat, where a card that seat may not see is ``"??"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.cards import JOKER
from arena.games.base import HIDDEN
from arena.games.burraco.rules import STOCK_END

_ORDER = {card: i for i, card in enumerate([r + s for s in "SHDC" for r in "A23456789TJQK"] + [JOKER])}


def sort_cards(cards: Sequence[str]) -> list[str]:
    """Hands and piles in observations: by suit (S H D C), ace to king, jokers last."""
    return sorted(cards, key=_ORDER.__getitem__)


def observation(state: Any, seat: int) -> dict[str, Any]:
    mine = not state.finished and seat == state.current
    return {
        "game": "burraco",
        "seat": seat,
        "team": state._team_of[seat],
        "teams": [list(t) for t in state.teams],
        "to_move": state.to_move(),
        "decision": state.phase if mine else None,
        "deal": state.deal_number,
        "dealer": state.dealer,
        "hand": sort_cards(state.hands[seat]),
        "hand_sizes": [len(h) for h in state.hands],
        "stock": len(state.stock),
        "discard_pile": list(state.pile),
        "melds": [m.to_json() for m in state.melds],
        "pozzetti": [{"taken": p is None, "by": None if info is None else info["seat"],
                      "mode": None if info is None else info["mode"]}
                     for p, info in zip(state.pozzetti, state.pozzetto_taken_by, strict=True)],
        "locked_card": state.locked if mine else None,
        "last_turn": len(state.stock) <= STOCK_END,
        "turns_without_stock": state.stalemate,
        "stalemate_turns": state.rules.stalemate_turns,
        "scores": list(state.totals),
        "target": state.rules.target,
    }


def deal_views(full: dict[str, Any], seats: int) -> list[dict[str, Any]]:
    """The deal event as each seat sees it: its own hand, the others' cards as ``"??"``."""
    views = []
    for seat in range(seats):
        view = dict(full)
        view["hands"] = [h if s == seat else [HIDDEN] * len(h) for s, h in enumerate(full["hands"])]
        views.append(view)
    return views


def owner_views(full: dict[str, Any], owner: int, seats: int, hidden: dict[str, Any]) -> list[dict[str, Any]]:
    """An event only ``owner`` sees in full; every other seat sees ``full`` with ``hidden``'s values."""
    others = {**full, **hidden}
    return [full if s == owner else others for s in range(seats)]
