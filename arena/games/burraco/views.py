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

card_order = {card: i for i, card in enumerate([r + s for s in "SHDC" for r in "A23456789TJQK"] + [JOKER])}.__getitem__


def sort_cards(cards: Sequence[str]) -> list[str]:
    """Hands and piles in observations: by suit (S H D C), ace to king, jokers last."""
    return sorted(cards, key=card_order)


def pozzetto_view(info: dict | None) -> dict[str, Any]:
    """A pozzetto as the observation shows it, from who took it how (None: not taken yet)."""
    if info is None:
        return {"taken": False, "by": None, "mode": None}
    return {"taken": True, "by": info["seat"], "mode": info["mode"]}


def observation(state: Any, seat: int) -> dict[str, Any]:
    # The state keeps hands sorted and the melds' and pozzetti's views ready, because the seat to move
    # asks for its observation before every decision; only fresh copies are built here.
    mine = not state.finished and seat == state.current
    stock = len(state.stock)
    return {
        "game": "burraco",
        "seat": seat,
        "team": state._team_of[seat],
        "teams": list(map(list, state.teams)),
        "to_move": None if state.finished else state.current,
        "decision": state.phase if mine else None,
        "deal": state.deal_number,
        "dealer": state.dealer,
        "hand": state.hands[seat][:],
        "hand_sizes": list(map(len, state.hands)),
        "stock": stock,
        "discard_pile": state.pile[:],
        "melds": state._meld_views[:],
        "pozzetti": list(map(dict.copy, state._pozzetto_views)),
        "locked_card": state.locked if mine else None,
        "last_turn": stock <= STOCK_END,
        "turns_without_stock": state.stalemate,
        "stalemate_turns": state.rules.stalemate_turns,
        "scores": state.totals[:],
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
