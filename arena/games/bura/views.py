"""What each seat may see: observations and the per-seat form of hidden events.

The rule of thumb (RULES.md §1): a seat sees its own hand, everything played face up, the trump card
while it lies in the stock, how many cards every hand, pile and the stock hold, and its own face-down
cards. Face-down cards are seen by nobody else — except the taker with ``discard=shown_to_taker``, and
everybody once the pile's owner (or a partner) claims. Hidden cards are shown as ``"??"``; a hidden set
is never sorted among visible ones, so positions leak nothing.

Event views are plain module functions over the stored full event, so the log stays data and
``events(seat, start)`` costs only the events asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.games.base import HIDDEN

if TYPE_CHECKING:  # (the match imports this module; typed, compiled access to its fields is much faster)
    from arena.games.bura.state import BuraMatch


def seat_knows_face_down(state: BuraMatch, seat: int, pile_owner: int, played_by: int) -> bool:
    if played_by == seat or pile_owner in state.revealed:
        return True
    return pile_owner == seat and state.rules.discard == "shown_to_taker"


def observation_template(state: BuraMatch) -> dict:
    """The observation's keys in their order, with the values that stay the same until the deal ends.

    Copying a prepared dict and filling in its values costs far less than building a 23-key dict anew,
    and every observation is a fresh copy (its ``teams`` is the match's own list, as it always was). The
    match makes a new one whenever a deal opens or ends.
    """
    return {"game": "bura", "seat": None, "to_move": None, "decision": None, "deal": state.deal_no,
            "dealer": state.dealer, "hand": None, "trump": state.trump, "trump_card": None, "stock": None,
            "hand_sizes": None, "lead_limit": None, "forced_lead": None, "trick": None, "piles": None,
            "claim_target": state.claim_target, "combinations": None, "teams": state.teams, "penalties": None,
            "deals_won": None, "match_points": None, "multiplier": state.multiplier}


def seat_scores(state: BuraMatch) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per seat, its team's penalties and deals won: the same for every viewer, kept until a deal ends."""
    team_of = state.team_of
    return (tuple(map(state.team_penalties.__getitem__, team_of)), tuple(map(state.team_wins.__getitem__, team_of)))


def observation(state: BuraMatch, seat: Any) -> dict:
    """What ``seat`` may see now (``BuraMatch.observation``)."""
    if seat.__class__ is not int or not 0 <= seat < state.num_seats:
        state._check_seat(seat)
    return _observation(state, seat)


def _observation(state: BuraMatch, seat: int) -> dict:
    """``observation`` for a seat known to be one (an int, where it is compiled: a machine integer)."""
    phase = state.phase
    to_move = state.current
    seen = state.observation_template.copy()
    seen["seat"] = seat
    seen["to_move"] = to_move
    if seat == to_move:
        seen["decision"] = phase
        if phase == "lead":
            seen["lead_limit"] = state.leader_limit
            if state.forced_lead is not None:
                forced = state._forced_cards()
                seen["forced_lead"] = None if forced is None else list(forced)
    hands = state.hands
    seen["hand"] = hands[seat][:]
    if state.trump_in_stock:
        seen["trump_card"] = state.trump_card
    seen["stock"] = len(state.stock)
    seen["hand_sizes"] = list(map(len, hands))
    if phase == "respond":
        plays = [{"seat": s, "cards": [*cards], "face_down": False} if not down else _play_view(s, cards, down, seat)
                 for s, cards, down in state.trick_plays]  # (a face-up set, the lead among them, in short)
        seen["trick"] = {"leader": state.trick_plays[0][0], "plays": plays, "best_seat": state.best_seat,
                         "best_cards": list(state.best_cards), "size": len(state.best_cards)}
    if state.unsorted_up:
        state.sort_piles()
    known, face_up = state.known_down[seat], state.pile_up
    seen["piles"] = [{"count": len(pile), "face_up": face_up[owner][:], "face_down_known": known[owner][:]}
                     for owner, pile in enumerate(state.piles)]
    seen["combinations"] = state.announced[:]
    penalties, won = state.seat_scores
    seen["penalties"] = [*penalties]
    seen["deals_won"] = [*won]
    seen["match_points"] = [*won] if state.rubber else [*penalties]
    return seen


def _play_view(player: int, cards, down, seat: int) -> dict:
    """One set of the trick in progress as ``seat`` sees it; a mixed set lists its face-up cards first."""
    if not down:
        return {"seat": player, "cards": list(cards), "face_down": False}
    if len(down) == len(cards):
        return {"seat": player, "cards": list(cards) if player == seat else [HIDDEN] * len(cards), "face_down": True}
    up = [c for c in cards if c not in down]
    shown = list(down) if player == seat else [HIDDEN] * len(down)
    return {"seat": player, "cards": up + shown, "face_down": shown}


def view_deal(event: dict, seat: int, _arg) -> dict:
    hands = [h if s == seat else [HIDDEN] * len(h) for s, h in enumerate(event["hands"])]
    return {**event, "hands": hands}


def view_face_down_play(event: dict, seat: int, player: int) -> dict:
    if seat == player:
        return event
    down = event["face_down"]
    if isinstance(down, list):  # a mixed set (mixed_sets=on): only its face-down cards are hidden
        up = len(event["cards"]) - len(down)
        return {**event, "cards": event["cards"][:up] + [HIDDEN] * len(down), "face_down": [HIDDEN] * len(down)}
    return {**event, "cards": [HIDDEN] * len(event["cards"])}


def view_trick(event: dict, seat: int, shown_to_taker: bool) -> dict:
    taker = event["taker"]
    hidden = [part if part["seat"] == seat or (shown_to_taker and seat == taker)
              else {"seat": part["seat"], "cards": [HIDDEN] * len(part["cards"])} for part in event["face_down"]]
    return {**event, "face_down": hidden}


def view_draw(event: dict, seat: int, trump_card: str) -> dict:
    draws = [d if d["seat"] == seat or d["card"] == trump_card else {"seat": d["seat"], "card": HIDDEN}
             for d in event["draws"]]
    return {**event, "draws": draws}
