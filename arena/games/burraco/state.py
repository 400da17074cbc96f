"""A Burraco match: hands dealt from the seed, turns of draw → meld/add → discard, pozzetti, closing.

Each turn is several decisions, one request each (``observation["decision"]``):
- ``"draw"``: ``{"type": "draw"}`` (top of the stock) or ``{"type": "take_pile"}`` (the whole discard pile);
- ``"play"`` (repeated): ``{"type": "meld", "cards": [...]}``, ``{"type": "add", "meld": id, "cards": [...]}``
  (optionally ``"wild_as": "7H"``), or ``{"type": "discard", "card": "7H"}``, which ends the turn.

The turn must always be able to end with a discard, so a meld or add is refused when it would leave the
player without a legal discard (:func:`turn_end_problem`): nobody melds their last card except to take
the pozzetto direct, a lone card taken from a one-card pile cannot be discarded, and emptying the hand
once the team's pozzetto is gone is closing, which needs a burraco and a natural last card.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from typing import Any

from arena.cards import BURRACO_DECK, CardError, SeededRandom, check_seed, derive_seed, parse_card, shuffled
from arena.games.base import HIDDEN, IllegalAction, fields_of, rebuilt, set_fields
from arena.games.burraco import views
from arena.games.burraco.melds import Meld, MeldError, extend_meld, is_wild, make_meld
from arena.games.burraco.rules import STOCK_END, Rules
from arena.games.burraco.scoring import match_winner, team_hand_score, team_ranks
from arena.games.burraco.views import card_order, pozzetto_view, sort_cards

HAND_SIZE = 11
POZZETTO_SIZE = 11
LOT = 0x4C4F54  # label of the first-dealer lot's sub-seed ("LOT"); hand numbers never reach it
_CARD_TEXTS = frozenset(BURRACO_DECK)  # every text parse_card accepts
ACTION_KEYS = {"draw": {"type"}, "take_pile": {"type"}, "meld": {"type", "cards", "wild_as"},
               "add": {"type", "meld", "cards", "wild_as"}, "discard": {"type", "card"}}

def turn_end_problem(hand_after: Sequence[str], locked: str | None, team_took_pozzetto: bool,
                     team_has_burraco: bool) -> tuple[str, str] | None:
    """Why a player holding ``hand_after`` in the play phase could not finish the turn, or None if they can.

    An empty hand is fine only when it takes the team's pozzetto direct. One card is discarded to end
    the turn: it must not be the lone card taken from a one-card pile, and if the team's pozzetto is gone
    that discard closes the hand, which needs a team burraco and a natural (non-wild) card.
    """
    if not hand_after:
        if team_took_pozzetto:
            return ("last-card", "you may not meld your last card: keep one to discard "
                                 "(only taking the pozzetto direct allows melding every card)")
        return None
    if len(hand_after) > 1:
        return None
    card = hand_after[0]
    if card == locked:
        return ("discard-taken-card", f"your last card {card} is the one-card pile you took: it cannot be "
                                      f"discarded this turn, so keep another card")
    if not team_took_pozzetto:
        return None  # discarding it takes the pozzetto on discard
    if not team_has_burraco:
        return ("closing-needs-burraco", "going out (closing) needs at least one burraco on your team's side")
    if is_wild(card):
        return ("closing-discard-wild", f"the closing discard must not be a wild card ({card})")
    return None


class BurracoState:
    """The whole match (hands until a team reaches the target). See the module docstring for turns."""

    def __init__(self, rules: Any, seed: Any, *, deal: bool = True):
        if not isinstance(rules, Rules):
            raise TypeError("rules must be burraco Rules")
        self.rules = rules
        self.seed = check_seed(seed)
        self.num_seats = rules.players
        self.teams = rules.teams()
        self._team_of = [rules.team_of(s) for s in range(self.num_seats)]
        self.totals = [0, 0]
        self.deals: list[dict] = []
        self.deal_number = 0
        self.dealer = SeededRandom(derive_seed(self.seed, LOT)).below(self.num_seats)  # by lot (RULES.md §3)
        self.finished = False
        self.winner: int | None = None
        self._log: list[tuple[dict, list[dict] | None]] = []
        if deal:
            self._deal()

    # ------------------------------------------------------------------------------------------ dealing

    def _deal(self) -> None:
        n = self.num_seats
        deck = shuffled(BURRACO_DECK, derive_seed(self.seed, self.deal_number))
        hands = [deck[i * HAND_SIZE:(i + 1) * HAND_SIZE] for i in range(n)]
        at = n * HAND_SIZE
        pozzetti = [deck[at:at + POZZETTO_SIZE], deck[at + POZZETTO_SIZE:at + 2 * POZZETTO_SIZE]]
        at += 2 * POZZETTO_SIZE
        self._start_hand(hands, pozzetti, pile=[deck[at]], stock=deck[at + 1:])

    def _start_hand(self, hands, pozzetti, *, pile, stock, first: int | None = None) -> None:
        self.hands = [sort_cards(h) for h in hands]  # always in the order the seat sees them
        self.pozzetti: list[list[str] | None] = [None if p is None else list(p) for p in pozzetti]
        self.pozzetto_taken_by: list[dict | None] = [None, None]
        self._pozzetto_views = [pozzetto_view(None), pozzetto_view(None)]
        self.pile = list(pile)
        self.stock = list(stock)  # the top card is the last one
        self.melds: list[Meld] = []
        self._meld_views: list[dict] = []  # each meld's observation form, in table order
        self._has_burraco = [False, False]  # per team
        self.current = (self.dealer + 1) % self.num_seats if first is None else first
        self.phase: str | None = "draw"  # None once the match is over
        self.locked: str | None = None
        self.drew_stock = False
        self.stalemate = 0
        full = {"type": "deal", "deal": self.deal_number, "dealer": self.dealer, "first": self.current,
                "hands": [list(h) for h in self.hands], "discard": self.pile[-1] if self.pile else None,
                "stock": len(self.stock)}
        self._log.append((full, views.deal_views(full, self.num_seats)))

    @classmethod
    def from_position(cls, rules: Rules, *, hands: Sequence[Sequence[str]], stock: Sequence[str],
                      discard_pile: Sequence[str], pozzetti: Sequence[Sequence[str] | None],
                      melds: Sequence[dict] = (), to_move: int = 0, phase: str = "draw",
                      locked: str | None = None, totals: Sequence[int] = (0, 0), stalemate: int = 0,
                      drew_stock: bool = False, deal_number: int = 0, seed: int = 0) -> BurracoState:
        """A position for tests. ``stock[0]`` is the next card drawn; ``discard_pile`` runs bottom to top;
        ``pozzetti[team]`` is that team's untaken pozzetto or None once taken; ``melds`` are
        ``{"team": t, "cards": [...], "wild_as": optional}`` (validated like a real meld). Any cards may be
        used as long as no card appears more often than in the 108-card deck. Later hands are dealt from
        the seed as usual."""
        state = cls(rules, seed, deal=False)
        if len(hands) != state.num_seats or len(pozzetti) != 2:
            raise ValueError(f"need {state.num_seats} hands and 2 pozzetti entries")
        if phase not in ("draw", "play"):
            raise ValueError("phase is 'draw' or 'play'")
        everything = [c for h in hands for c in h] + list(stock) + list(discard_pile)
        everything += [c for p in pozzetti if p is not None for c in p]
        everything += [c for m in melds for c in m["cards"]]
        for card in set(everything):
            if everything.count(card) > BURRACO_DECK.count(parse_card(card)):
                raise ValueError(f"{card} appears more often than in the Burraco deck")
        state.deal_number = deal_number
        state.dealer = (to_move - 1) % state.num_seats
        state.totals = list(totals)
        state._start_hand(hands, pozzetti, pile=discard_pile, stock=list(reversed(stock)), first=to_move)
        for team, p in enumerate(pozzetti):
            if p is None:
                state._record_pozzetto(team, {"seat": None, "mode": None})
        for spec in melds:
            state._put_meld(make_meld(spec["cards"], team=spec["team"], meld_id=len(state.melds),
                                      wild_as=spec.get("wild_as")))
        state.phase = phase
        state.locked = locked
        state.stalemate = stalemate
        state.drew_stock = drew_stock
        return state

    # ------------------------------------------------------------------------------------------ reading

    def to_move(self) -> int | None:
        return None if self.finished else self.current

    def is_over(self) -> bool:
        return self.finished

    def team_of(self, seat: int) -> int:
        return self._team_of[seat]

    def legal_actions(self, seat: Any) -> None:
        """Too many to list (every meld of every subset of the hand); ``apply`` validates."""
        return None

    def _team_has_burraco(self, team: int, new: Meld | None = None) -> bool:
        """Does the team hold a burraco, counting ``new`` (a meld about to be put down or grown)? Melds
        only grow, so the team's burraco flag never needs to be taken back."""
        return self._has_burraco[team] or (new is not None and new.team == team and new.is_burraco)

    def observation(self, seat: Any) -> dict:
        return views.observation(self, seat)

    # ------------------------------------------------------------------------------------------ acting

    def apply(self, seat: Any, action: Any) -> None:
        if self.finished:
            raise IllegalAction("match-over", "the match is over")
        if seat != self.current:
            raise IllegalAction("not-your-turn", f"it is seat {self.current}'s turn, not seat {seat}'s")
        if not isinstance(action, dict):
            raise IllegalAction("bad-action", "an action is a JSON object with a 'type'")
        kind = action.get("type")
        if isinstance(kind, str) and kind in ACTION_KEYS and not action.keys() <= ACTION_KEYS[kind]:
            extra = ", ".join(sorted(map(str, action.keys() - ACTION_KEYS[kind])))
            raise IllegalAction("bad-action", f"unknown keys in a {kind!r} action: {extra:.80}; allowed: "
                                              f"{', '.join(sorted(ACTION_KEYS[kind]))}")
        if self.phase == "draw":
            if kind == "draw":
                return self._draw(seat)
            if kind == "take_pile":
                return self._take_pile(seat)
            if kind in ("meld", "add", "discard"):
                raise IllegalAction("draw-first", "start your turn with 'draw' or 'take_pile'")
        else:
            if kind == "meld":
                return self._meld(seat, action)
            if kind == "add":
                return self._add(seat, action)
            if kind == "discard":
                return self._discard(seat, action)
            if kind in ("draw", "take_pile"):
                raise IllegalAction("already-drew", "you have drawn this turn: meld, add or discard")
        raise IllegalAction("bad-action", f"unknown action type {kind!r}; expected draw, take_pile, meld, add or "
                                          f"discard")

    def _draw(self, seat: int) -> None:
        card = self.stock.pop()
        insort(self.hands[seat], card, key=card_order)
        self.drew_stock = True
        self.phase = "play"
        full = {"type": "draw", "seat": seat, "card": card, "stock": len(self.stock)}
        self._log.append((full, views.owner_views(full, seat, self.num_seats, {"card": HIDDEN})))
        if len(self.stock) <= STOCK_END and self.rules.stock_end == "immediate":
            self._end_hand("stock", None)  # the seed's "stops immediately": nothing more is melded

    def _take_pile(self, seat: int) -> None:
        if not self.pile:
            raise IllegalAction("empty-pile", "the discard pile is empty")
        cards = self.pile
        self.pile = []
        self._take_into_hand(seat, cards)
        self.locked = cards[0] if len(cards) == 1 else None
        self.phase = "play"
        self._log.append(({"type": "take_pile", "seat": seat, "cards": list(cards)}, None))

    def _meld(self, seat: int, action: dict) -> None:
        cards = _cards_of(action.get("cards"))
        rest = _without(self.hands[seat], cards)
        team = self._team_of[seat]
        try:
            meld = make_meld(cards, team=team, meld_id=len(self.melds), wild_as=_wild_as_of(action))
        except MeldError as e:
            raise IllegalAction(e.rule, e.detail) from None
        if meld.kind == "set" and self.rules.duplicate_sets == "forbidden" and any(
                m.team == team and m.kind == "set" and m.rank == meld.rank for m in self.melds):
            raise IllegalAction("duplicate-set", f"your team already holds a set of {meld.rank}s "
                                                 f"(duplicate_sets=forbidden): add to it instead")
        self._check_can_end(seat, rest, cards, meld)
        self._put_meld(meld)
        self._played(seat, rest, cards, "meld", meld)

    def _add(self, seat: int, action: dict) -> None:
        meld_id = action.get("meld")
        if isinstance(meld_id, bool) or not isinstance(meld_id, int) or not 0 <= meld_id < len(self.melds):
            raise IllegalAction("unknown-meld", f"there is no meld with id {meld_id!r} on the table")
        old = self.melds[meld_id]
        team = self._team_of[seat]
        if old.team != team:
            raise IllegalAction("not-your-meld", "you may add only to your own team's melds, never the opponents'")
        cards = _cards_of(action.get("cards"))
        rest = _without(self.hands[seat], cards)
        try:
            meld = extend_meld(old, cards, wild_as=_wild_as_of(action))
        except MeldError as e:
            raise IllegalAction(e.rule, e.detail) from None
        self._check_can_end(seat, rest, cards, meld)
        self._put_meld(meld)
        self._played(seat, rest, cards, "add", meld)

    def _put_meld(self, meld: Meld) -> None:
        """A new meld goes on the table; an extended one replaces the meld it grew from."""
        if meld.is_burraco:
            self._has_burraco[meld.team] = True
        if meld.id == len(self.melds):
            self.melds.append(meld)
            self._meld_views.append(meld.to_json())
        else:
            self.melds[meld.id] = meld
            self._meld_views[meld.id] = meld.to_json()

    def _take_into_hand(self, seat: int, cards: list[str]) -> None:
        hand = self.hands[seat]
        hand.extend(cards)
        hand.sort(key=card_order)

    def _last_turn(self) -> bool:
        """The turn whose draw left the stock at its end (only reached with ``stock_end=finish_turn``)."""
        return len(self.stock) <= STOCK_END

    def _check_can_end(self, seat: int, rest: list[str], cards: list[str], meld: Meld) -> None:
        if self._last_turn():  # the hand ends after this turn's discard: no closing, no pozzetto
            if not rest:
                raise IllegalAction("last-card", "the stock is at its end: keep one card to discard, which ends "
                                                 "the hand")
            return
        team = self._team_of[seat]
        locked = None if self.locked in cards else self.locked
        problem = turn_end_problem(rest, locked, self.pozzetti[team] is None, self._team_has_burraco(team, meld))
        if problem:
            raise IllegalAction(*problem)

    def _played(self, seat: int, rest: list[str], cards: list[str], kind: str, meld: Meld) -> None:
        self.hands[seat] = rest
        if self.locked is not None and self.locked in cards:
            self.locked = None  # melding a card of the locked text uses the taken copy first
        self._log.append(({"type": kind, "seat": seat, "cards": cards, "meld": meld.to_json()}, None))
        if not rest:
            self._take_pozzetto(seat, "direct")

    def _discard(self, seat: int, action: dict) -> None:
        card = action.get("card")
        if card.__class__ is not str or card not in _CARD_TEXTS:
            try:
                card = parse_card(card)
            except CardError as e:
                raise IllegalAction("bad-card", str(e)) from None
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction("not-in-hand", f"{card} is not in your hand")
        if card == self.locked and hand.count(card) == 1:
            raise IllegalAction("discard-taken-card", f"you took {card} as a one-card pile: you may not discard it "
                                                      f"this turn")
        team = self._team_of[seat]
        closing = False
        last_turn = self._last_turn()
        if len(hand) == 1 and self.pozzetti[team] is None and not last_turn:
            if not self._team_has_burraco(team):
                raise IllegalAction("closing-needs-burraco", "going out (closing) needs at least one burraco on "
                                                             "your team's side")
            if is_wild(card):
                raise IllegalAction("closing-discard-wild", f"the closing discard must not be a wild card ({card})")
            closing = True
        hand.remove(card)
        self.pile.append(card)
        self._log.append(({"type": "discard", "seat": seat, "card": card, "closing": closing}, None))
        if not hand and not closing and not last_turn:
            self._take_pozzetto(seat, "discard")
        self._end_turn(seat, closing)

    def _take_pozzetto(self, seat: int, mode: str) -> None:
        team = self._team_of[seat]
        cards = self.pozzetti[team]
        if cards is None:
            raise ValueError(f"team {team}'s pozzetto was taken already")
        self.pozzetti[team] = None
        self._record_pozzetto(team, {"seat": seat, "mode": mode})
        self._take_into_hand(seat, cards)
        full = {"type": "pozzetto", "seat": seat, "team": team, "mode": mode, "cards": sort_cards(cards)}
        self._log.append((full, views.owner_views(full, seat, self.num_seats, {"cards": [HIDDEN] * len(cards)})))

    def _record_pozzetto(self, team: int, taken_by: dict) -> None:
        self.pozzetto_taken_by[team] = taken_by
        self._pozzetto_views[team] = pozzetto_view(taken_by)

    def _end_turn(self, seat: int, closing: bool) -> None:
        self.stalemate = 0 if self.drew_stock else self.stalemate + 1
        if closing:
            return self._end_hand("closing", seat)
        if len(self.stock) <= STOCK_END:
            return self._end_hand("stock", None)
        if self.stalemate >= self.rules.stalemate_turns:
            return self._end_hand("stalemate", None)
        self.current = (seat + 1) % self.num_seats
        self.phase = "draw"
        self.locked = None
        self.drew_stock = False
        return None

    # ------------------------------------------------------------------------------------------ scoring

    def hand_scores(self, closed_by: int | None) -> list[dict]:
        """Each team's score breakdown if the hand ended now (``closed_by``: the closing seat or None)."""
        scores = []
        for team in range(2):
            scores.append(team_hand_score(
                [m for m in self.melds if m.team == team],
                [self.hands[s] for s in self.teams[team]],
                closed=closed_by is not None and self._team_of[closed_by] == team,
                took_pozzetto=self.pozzetti[team] is None))
        return scores

    def _end_hand(self, ended_by: str, closed_by: int | None) -> None:
        scores = self.hand_scores(closed_by)
        for team in range(2):
            self.totals[team] += scores[team]["total"]
        record = {"deal": self.deal_number, "dealer": self.dealer, "ended_by": ended_by, "closed_by": closed_by,
                  "scores": scores, "totals": list(self.totals), "hands": [list(h) for h in self.hands]}
        self.deals.append(record)
        self._log.append(({"type": "deal_end", **record}, None))
        self.winner = match_winner(self.totals, self.rules.target)
        if self.winner is not None:
            self.finished = True
            self.phase = None
            self._log.append(({"type": "match_end", "totals": list(self.totals), "winner_team": self.winner,
                               "ranks": self.outcome()["ranks"]}, None))
            return
        self.deal_number += 1
        self.dealer = (self.dealer + 1) % self.num_seats
        self._deal()

    def outcome(self) -> dict:
        ranks = team_ranks(self.totals)
        return {
            "finished": self.finished,
            "ranks": [ranks[t] for t in self._team_of],
            "points": [self.totals[t] for t in self._team_of],
            "points_kind": "score",
            "teams": [list(t) for t in self.teams],
            "team_points": list(self.totals),
            "winner_team": self.winner,
            "deals": list(self.deals),
        }

    def events(self, seat: Any, start: Any = 0) -> list[dict]:
        if seat is None:
            return [full for full, _ in self._log[start:]]
        return [full if per_seat is None else per_seat[seat] for full, per_seat in self._log[start:]]

    def clone(self) -> BurracoState:
        other = BurracoState(self.rules, self.seed, deal=False)
        set_fields(other, fields_of(self))
        other.totals = list(self.totals)
        other.deals = list(self.deals)
        other._log = list(self._log)
        other.hands = [list(h) for h in self.hands]
        other.pozzetti = [None if p is None else list(p) for p in self.pozzetti]
        other.pozzetto_taken_by = list(self.pozzetto_taken_by)
        other._pozzetto_views = list(self._pozzetto_views)
        other.pile = list(self.pile)
        other.stock = list(self.stock)
        other.melds = list(self.melds)
        other._meld_views = list(self._meld_views)
        other._has_burraco = list(self._has_burraco)
        return other

    def __deepcopy__(self, memo: dict) -> BurracoState:
        return self.clone()  # what deepcopy reaches through a holder (an OpenSpiel state's fields, say)

    def __reduce__(self) -> tuple:
        return rebuilt, (BurracoState, self.rules, self.seed, fields_of(self))



def _cards_of(value: object) -> list[str]:
    if not isinstance(value, list) or not value or len(value) > len(BURRACO_DECK):
        raise IllegalAction("bad-action", "'cards' must be a non-empty list of card strings (at most 108)")
    if value.__class__ is list and all(c.__class__ is str for c in value) and _CARD_TEXTS.issuperset(value):
        return value[:]  # every one a card already: what parse_card would return
    try:
        return [parse_card(c) for c in value]
    except CardError as e:
        raise IllegalAction("bad-card", str(e)) from None


def _wild_as_of(action: dict) -> str | None:
    value = action.get("wild_as")
    if value is None:
        return None
    try:
        return parse_card(value)
    except CardError as e:
        raise IllegalAction("bad-card", f"wild_as: {e}") from None


def _without(hand: list[str], cards: list[str]) -> list[str]:
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            raise IllegalAction("not-in-hand", f"{card} is not in your hand (or not that many copies)") from None
    return rest


def new_match(rules: Rules, seed: int) -> BurracoState:
    return BurracoState(rules, seed)
