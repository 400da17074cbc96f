"""A Bura-family match: every deal from the first shuffle to the goat (RULES.md §1).

The state is a seed plus the actions applied to it. Deal k is ``shuffled(deck, derive_seed(seed, k))``
(k counts every deal from 1, redeals too); the first dealer is drawn by lot from ``derive_seed(seed, 0)``.
Seats are 0..n-1 clockwise; "left" is the next seat. Three decisions are asked of bots — ``lead``,
``respond`` and ``claim`` — while drawing and combinations are done by the referee.
"""

from __future__ import annotations

import copy
from bisect import insort
from itertools import combinations, groupby
from typing import Any

from arena.cards import CardError, SeededRandom, check_seed, derive_seed, parse_card, shuffled
from arena.games.base import IllegalAction, fields_of, rebuilt
from arena.games.bura import scoring, views
from arena.games.bura.combos import _COUNT_OF, _START, _TOPS, INSTANT_WIN, SIZE, resolve_combinations
from arena.games.bura.ranking import BEATERS, card_sort_key, pairing, points, sort_cards
from arena.games.bura.rules import Rules

LEAD = "lead"
RESPOND = "respond"
CLAIM = "claim"
OVER = "over"
PASS = "pass"

_ACTION_KEYS = {LEAD: {"type", "cards"}, RESPOND: {"type", "cards", "face_down"},
                CLAIM: {"type"}, "pass": {"type"}}
_ACTION_TYPES = {CLAIM: (CLAIM, PASS), LEAD: (LEAD,), RESPOND: (RESPOND,)}  # per decision
# Actions are copies of these filled with their cards: copying a small dict is cheaper than building it.
_LEAD_ACTION: dict[str, Any] = {"type": LEAD, "cards": []}
_FACE_UP_RESPONSE: dict[str, Any] = {"type": RESPOND, "cards": [], "face_down": False}
_FACE_DOWN_RESPONSE: dict[str, Any] = {"type": RESPOND, "cards": [], "face_down": True}
_BOTH_WAYS = (False, True)  # a response's face-down flags, in the order they are listed
_FACE_UP = (False,)  # discard=open: face-up responses only


# The leads one suit's cards of a hand offer, by (those cards in card order, the lead limit): a suit holds
# at most 9 cards (a few hundred runs of up to four), so these lists are kept for good.
_RUN_SETS: dict[tuple[tuple[str, ...], int], list[tuple[str, ...]]] = {}
_SUIT_OF = {card: card[1] for card in BEATERS["S"]}.__getitem__


def _run_sets(run: tuple[str, ...], limit: int) -> list[tuple[str, ...]]:
    sets = _RUN_SETS.get((run, limit))
    if sets is None:
        # (a lone card of its suit is listed whatever the limit, as the one-pass listing always did)
        sets = _RUN_SETS[run, limit] = [run] if len(run) == 1 else [
            cs for size in range(1, min(limit, len(run)) + 1) for cs in combinations(run, size)]
    return sets


def _lead_sets(hand: list[str], limit: int) -> list[tuple[str, ...]]:
    """Every lead of 1..limit cards of one suit, suit by suit in card order.

    The hand is kept in card order, so each suit's cards lie side by side: one ``groupby`` finds every
    run, and each run's leads come from ``_run_sets``."""
    sets: list[tuple[str, ...]] = []
    for _, run in groupby(hand, _SUIT_OF):
        cards = (*run,)
        sets += _RUN_SETS.get((cards, limit)) or _run_sets(cards, limit)
    return sets


# The leads of a hand of up to three cards, remembered: those hands come back deal after deal (a 3-card
# hand of 36 cards is one of 7,140), so most such leads are listed from the lists found before. Larger
# hands are too many to keep (58,905 of 4 cards) and are listed afresh, run by run; the memory is
# bounded anyway and emptied when full.
_LEAD_SETS: dict[tuple, list[tuple[str, ...]]] = {}
_LEAD_SETS_KEPT = 1 << 15
_REMEMBERED_HAND = 3


def _lead_sets_of(hand: list[str], limit: int) -> list[tuple[str, ...]]:
    """``_lead_sets``, remembered for small hands; a list returned is shared and never changed."""
    if len(hand) > _REMEMBERED_HAND:
        return _lead_sets(hand, limit)
    key = (*hand, limit)
    sets = _LEAD_SETS.get(key)
    if sets is None:
        if len(_LEAD_SETS) >= _LEAD_SETS_KEPT:
            _LEAD_SETS.clear()
        sets = _LEAD_SETS[key] = _lead_sets(hand, limit)
    return sets


def _as_built(event: dict) -> dict:
    return event


def _deal_event(data: tuple) -> dict:
    """A deal: (deal, dealer, trump, trump card, its place, every hand as dealt, stock size)."""
    deal, dealer, trump, trump_card, place, hands, stock = data
    return {"type": "deal", "deal": deal, "dealer": dealer, "trump": trump, "trump_card": trump_card,
            "trump_card_place": place, "hands": hands, "stock": stock}


def _deal_end_event(record: dict) -> dict:
    """A deal's end: its record (``deal_records`` keeps it; nothing changes it later)."""
    return {"type": "deal_end", **record}


def _play_event(data: tuple) -> dict:
    """A set played: (deal, seat, cards, those face down, the pairing that beats or None, a lead?)."""
    deal, seat, cards, down, pairs, lead = data
    if lead:
        return {"type": "play", "deal": deal, "seat": seat, "lead": True, "cards": list(cards), "face_down": False}
    mixed = 0 < len(down) < len(cards)
    event = {"type": "play", "deal": deal, "seat": seat, "lead": False,
             "cards": [c for c in cards if c not in down] + list(down) if mixed else list(cards),
             "face_down": list(down) if mixed else bool(down), "beats": pairs is not None}
    if pairs is not None:
        event["pairing"] = [list(p) for p in pairs]
    return event


def _trick_event(data: tuple) -> dict:
    """A trick taken: (deal, taker, the trick's plays as ``trick_plays`` holds them, the pile's size after)."""
    deal, taker, plays, pile_count = data
    face_up = sort_cards(c for _, cards, down in plays for c in cards if c not in down)
    return {"type": "trick", "deal": deal, "taker": taker, "face_up": face_up,
            "face_down": [{"seat": seat, "cards": list(down)} for seat, _, down in plays if down],
            "pile_count": pile_count}


def _pass_event(data: tuple) -> dict:
    deal, seat = data
    return {"type": "pass", "deal": deal, "seat": seat}


def _draw_event(data: tuple) -> dict:
    deal, draws, stock = data
    return {"type": "draw", "deal": deal, "draws": [{"seat": seat, "card": card} for seat, card in draws],
            "stock": stock}


class BuraMatch:
    """The match state the referee drives: ``to_move``, ``observation``, ``legal_actions``, ``apply``…"""

    # Slots, because the match has more attributes than an instance dict shares keys for (30), and the
    # interpreter reads a slot faster than a key of an unshared dict; every trick reads dozens of them.
    __slots__ = (
        "_built",
        "_claims_allowed",
        "_combo_start",
        "_hand_size",
        "_issued",
        "_leader_draws_first",
        "_log",
        "_may_hide",
        "_mixed_sets",
        "_others_after",
        "_rotate_lead",
        "_shown_to_taker",
        "announced",
        "best_cards",
        "best_seat",
        "claim_target",
        "current",
        "deal_no",
        "deal_records",
        "dealer",
        "deals_played",
        "ended_by",
        "forced_lead",
        "hands",
        "known_down",
        "leader",
        "leader_limit",
        "multiplier",
        "num_seats",
        "observation_template",
        "phase",
        "pile_down",
        "pile_up",
        "piles",
        "responders",
        "revealed",
        "rubber",
        "rules",
        "seat_scores",
        "seed",
        "stock",
        "team_of",
        "team_penalties",
        "team_wins",
        "teams",
        "trick_cards",
        "trick_down",
        "trick_leader",
        "trick_plays",
        "tricks_won",
        "trump",
        "trump_at",
        "trump_card",
        "trump_in_stock",
        "turn_order",
        "unsorted_up",
    )

    def __init__(self, rules: Any, seed: Any, *, deal: bool = True):
        """The match of ``(rules, seed)`` at its first decision; ``deal=False``: an empty table (``from_position``)."""
        self._setup(rules, seed)
        if not deal:
            return
        first_dealer = SeededRandom(derive_seed(self.seed, 0)).below(self.num_seats)
        self._deal_from(first_dealer)

    # ------------------------------------------------------------------ setup
    def _setup(self, rules: Any, seed: Any) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be bura Rules, not {type(rules).__name__}")
        self.rules = rules
        self.seed = check_seed(seed)
        # Options read on every trick, looked up once.
        self._mixed_sets = rules.mixed_sets == "on"
        self._may_hide = rules.discard != "open"  # responses may be played face down
        self._rotate_lead = rules.next_lead == "rotate"
        self._leader_draws_first = rules.draw_first == "leader"
        self._hand_size = rules.hand  # a full hand, read by every draw
        n = self.num_seats = rules.players
        # turn_order[s]: every seat clockwise starting with s (the order of leading, responding and drawing)
        self.turn_order = [tuple((s + i) % n for i in range(n)) for s in range(n)]
        self._others_after = [order[1:] for order in self.turn_order]
        self._claims_allowed = rules.claims_allowed
        self._combo_start = _START[SIZE[rules.combinations]]  # resolve_combinations' cheap test, per match
        self.claim_target = rules.claim_target  # read by every observation
        self.rubber = rules.match_kind == "rubber"
        self._shown_to_taker = rules.discard == "shown_to_taker"
        self.teams = [[0, 2], [1, 3]] if rules.teams else [[s] for s in range(n)]
        self.team_of = [next(t for t, members in enumerate(self.teams) if s in members) for s in range(n)]
        self.team_penalties = [0] * len(self.teams)
        self.team_wins = [0] * len(self.teams)
        self.multiplier = 1
        self.deal_no = 0
        self.deals_played = 0  # deals that were played (redeals excluded), for ``match=deals:N``
        self.deal_records: list[dict] = []
        self.ended_by: str | None = None
        # The log as (build, data, view function or None, view argument): the full event is build(data).
        # The events of a trick are built only when somebody reads them (training runs never do), from
        # data that no later play changes; ``_built`` holds the events of the log's start once read, as
        # (full event, view, view argument).
        self._log: list[tuple] = []
        self._built: list[tuple] = []
        # What the last ``legal_actions`` call listed for the decision now: (actions, their card sets,
        # face-down flags per set or ()); ``apply`` takes one of those dicts without validating it again.
        self._issued: tuple[list[dict], list[tuple[str, ...]], tuple[bool, ...]] | None = None
        self._clear_deal()
        self._refresh_views()

    def _refresh_views(self) -> None:
        """What every observation shares until the deal opens or ends anew (``views`` reads them)."""
        self.observation_template = views.observation_template(self)
        self.seat_scores = views.seat_scores(self)

    def _clear_deal(self) -> None:
        n = self.num_seats
        self.phase = OVER
        self.current: int | None = None
        self.dealer = 0
        self.hands: list[list[str]] = [[] for _ in range(n)]  # each kept in card order
        self.stock: list[str] = []  # the next card drawn is the last of the list
        self.trump = ""
        self.trump_card = ""
        self.trump_in_stock = False
        self.trump_at = -1  # the trump card's index in the stock while it lies there
        self.piles: list[list[str]] = [[] for _ in range(n)]
        # The face-up cards of each pile, in card order once sort_piles has run (``unsorted_up``: the piles
        # a trick has added some to since): only observations show them, so only they sort them.
        self.pile_up: list[list[str]] = [[] for _ in range(n)]
        self.unsorted_up: set[int] = set()
        self.pile_down: list[list[tuple[str, int]]] = [[] for _ in range(n)]  # (card, who played it)
        self.revealed: set[int] = set()  # seats whose piles were shown at a claim
        # known_down[viewer][owner]: the face-down cards of owner's pile that viewer may see, in card order
        self.known_down: list[list[list[str]]] = [[[] for _ in range(n)] for _ in range(n)]
        self.announced: list[dict] = []
        self.tricks_won = [0] * n  # per seat, for no_trick_penalty
        # out_of_turn_lead=whole_hand: (holder, cards) the holder must lead at the next trick
        self.forced_lead: tuple[int, tuple[str, ...]] | None = None
        self.leader = 0
        self.trick_leader = 0  # the leader of the trick just taken (next_lead=rotate, draw_first=leader)
        self.leader_limit = 0  # lead_limit(leader), fixed from the start of a trick until the lead
        self.trick_plays: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = []  # seat, set, its face-down cards
        self.trick_cards: list[str] = []  # every card of the trick in progress, in the order played
        self.trick_down = False  # whether any of them is face down
        self.best_seat = 0
        self.best_cards: tuple[str, ...] = ()
        self.responders: list[int] = []

    @classmethod
    def from_position(cls, rules: Rules, *, hands, trump_card: str, stock=(), piles=None, face_down=None,
                      leader: int = 0, dealer: int | None = None, penalties=None, deals_won=None, deal: int = 1,
                      seed: int = 0, multiplier: int = 1, claim_by: int | None = None,
                      fresh_deal: bool = False, tricks=None) -> BuraMatch:
        """A position built from explicit cards, for tests and analysis.

        ``stock`` is in drawing order (first drawn first); the trump card is still in the stock when it is
        listed there (last for ``trump_card=bottom``, first for ``returned``). ``piles``: per seat, face-up
        trick cards; ``face_down``: per seat, ``(card, seat that played it)`` pairs. ``penalties`` and
        ``deals_won`` are per team. ``claim_by``: that seat has just taken a trick and decides whether to
        claim. ``fresh_deal``: the hands were just dealt, so the initial-combination rule applies (a redeal
        shuffles deal ``deal + 1`` from ``seed``). Otherwise ``leader`` leads next. ``tricks``: per seat, the
        tricks taken so far (default: 1 for a seat with a pile, else 0; it matters for ``no_trick_penalty``).
        """
        state = cls(rules, seed, deal=False)
        n = state.num_seats
        piles = piles or [[] for _ in range(n)]
        face_down = face_down or [[] for _ in range(n)]
        every = [c for h in hands for c in h] + list(stock) + [c for p in piles for c in p]
        every += [c for p in face_down for c, _ in p]
        if trump_card not in stock:
            every.append(trump_card)
        unknown = [c for c in every if c not in rules.deck_cards]
        if unknown or len(every) != len(set(every)) or not len(hands) == len(piles) == len(face_down) == n:
            raise ValueError(f"bad position: {n} hands and piles needed, every card of the deck at most once "
                             f"(unknown: {unknown})")
        state.deal_no = deal
        state.multiplier = multiplier
        state.team_penalties = list(penalties) if penalties else [0] * len(state.teams)
        state.team_wins = list(deals_won) if deals_won else [0] * len(state.teams)
        dealer = (leader - 1) % n if dealer is None else dealer
        state._open_deal(dealer, [list(h) for h in hands], list(reversed(stock)), trump_card)
        for owner in range(n):
            for card in piles[owner]:
                state.piles[owner].append(card)
                state.pile_up[owner].append(card)
            state.pile_up[owner].sort(key=card_sort_key)
            for card, by in face_down[owner]:
                state.piles[owner].append(card)
                state.pile_down[owner].append((card, by))
            state._refresh_known(owner)
            state.tricks_won[owner] = tricks[owner] if tricks is not None else int(bool(state.piles[owner]))
        if fresh_deal:
            next_dealer = state._after_initial_deal()
            if next_dealer is not None:
                state._deal_from(next_dealer)
        elif claim_by is not None:
            state.leader = state.trick_leader = claim_by
            state.phase, state.current = CLAIM, claim_by
        else:
            state._start_trick(leader)
        return state

    def clone(self) -> BuraMatch:
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict) -> BuraMatch:
        # The log, its built events and the finished deals' records are never changed once written: a copy
        # shares their entries (as the other engines' clones do), so it costs the position, not the history.
        for written in (self._log, self._built, self.deal_records):
            memo[id(written)] = list(written)
        return rebuilt(BuraMatch, self.rules, self.seed, copy.deepcopy(fields_of(self), memo))

    def __reduce__(self) -> tuple:
        return rebuilt, (BuraMatch, self.rules, self.seed, fields_of(self))

    # ------------------------------------------------------------------ the contract
    def to_move(self) -> int | None:
        return self.current

    def is_over(self) -> bool:
        return self.phase == OVER

    def observation(self, seat: Any) -> dict:
        return views.observation(self, seat)

    def legal_actions(self, seat: Any) -> list[dict]:
        if seat is not self.current:  # the seat to move is the very int object stored as ``current``
            self._check_seat(seat)
            if seat != self.current:
                return []
        return self._legal_actions(seat)

    def _legal_actions(self, seat: int) -> list[dict]:
        """``legal_actions`` for the seat to move (an int, where it is compiled: a machine integer)."""
        phase = self.phase
        if phase == CLAIM:
            return [{"type": CLAIM}, {"type": PASS}]
        hand = self.hands[seat]
        if phase == LEAD:
            if self.forced_lead is not None:  # rare: out_of_turn_lead=whole_hand after a combination
                forced = self._forced_cards()
                if forced is not None:
                    return [{"type": LEAD, "cards": list(forced)}]
            sets = _lead_sets_of(hand, self.leader_limit)
            actions: list[dict] = []
            for cs in sets:
                action = _LEAD_ACTION.copy()
                action["cards"] = [*cs]
                actions.append(action)
            self._issued = (actions, sets, ())
            return actions
        sets = list(combinations(hand, len(self.best_cards)))
        actions = []
        if self._mixed_sets:
            may_hide = self.rules.discard != "open"
            for cs in sets:
                actions.append({"type": RESPOND, "cards": list(cs), "face_down": False})
                if may_hide:
                    actions.append({"type": RESPOND, "cards": list(cs), "face_down": True})
                for size in range(1, len(cs)):
                    for down in combinations(cs, size):
                        actions.append({"type": RESPOND, "cards": list(cs), "face_down": list(down)})
            return actions
        may_hide = self._may_hide
        for cs in sets:
            action = _FACE_UP_RESPONSE.copy()
            action["cards"] = [*cs]
            actions.append(action)
            if may_hide:
                action = _FACE_DOWN_RESPONSE.copy()
                action["cards"] = [*cs]
                actions.append(action)
        self._issued = (actions, sets, _BOTH_WAYS if may_hide else _FACE_UP)
        return actions

    def apply(self, seat: Any, action: Any) -> None:
        phase = self.phase
        if phase == OVER:
            self._issued = None
            raise IllegalAction("match-over", "the match is over")
        if seat != self.current:
            raise IllegalAction("not-your-turn", f"it is seat {self.current}'s turn, not seat {seat!r}'s")
        issued = self._issued
        if issued is not None:
            self._issued = None
            # One of the dicts the last ``legal_actions`` call listed for this decision, still reading as it
            # was listed, is played without validating it again; anything else is validated in full below.
            actions, sets, downs = issued
            # (``listed``, not ``action``, is read below: the same dict, known to be one where it is compiled)
            for i, listed in enumerate(actions):
                if listed is action:
                    raw = listed.get("cards")
                    if downs:  # responses, a face-up and a face-down dict per set with discard other than open
                        down = downs[i % len(downs)]
                        cards = sets[i // len(downs)]
                        if (len(listed) == 3 and listed.get("type") is RESPOND and listed.get("face_down") is down
                                and raw.__class__ is list and tuple(raw) == cards):
                            self._respond(seat, cards, cards if down else ())
                            return
                    elif len(listed) == 2 and listed.get("type") is LEAD and raw.__class__ is list:  # leads
                        cards = sets[i]
                        if tuple(raw) == cards:
                            self._lead(seat, cards)
                            return
                    break
        elif phase == CLAIM and action.__class__ is dict and len(action) == 1:
            # The common answer, a plain {"type": "pass"} or {"type": "claim"}: the shape check in short.
            answer: dict = action
            kind = answer.get("type")
            if kind == PASS:  # _pass_claim inline, on the path of every trick
                self._log.append((_pass_event, (self.deal_no, seat), None, None))
                self._after_trick()
                return
            if kind == CLAIM:
                self._claim(seat)
                return
        kind = self._check_shape(action)
        if self.phase == CLAIM:
            if kind == CLAIM:
                self._claim(seat)
            else:
                self._pass_claim(seat)
        elif self.phase == LEAD:
            self._lead(seat, self._check_lead(seat, action))
        else:
            cards, face_down = self._check_response(seat, action)
            self._respond(seat, cards, face_down)

    def events(self, seat: Any, start: Any = 0) -> list[dict]:
        if seat is not None:
            self._check_seat(seat)
        built = self._built
        if len(built) < len(self._log):
            built.extend((build(data), view, arg) for build, data, view, arg in self._log[len(built):])
        log = built[start:] if start > 0 else built
        if seat is None:
            return [full for full, _, _ in log]
        return [full if view is None else view(full, seat, arg) for full, view, arg in log]

    def outcome(self) -> dict:
        rubber = self.rules.match_kind == "rubber"
        team_points = self.team_wins if rubber else self.team_penalties
        team_ranks = [1 + sum((o > p) if rubber else (o < p) for o in team_points) for p in team_points]
        n = self.num_seats
        goat = []
        if self.is_over() and self.rules.match_kind == "penalty":
            goat = [s for s in range(n) if self.team_penalties[self.team_of[s]] >= self.rules.match_target]
        return {
            "finished": self.is_over(),
            "ended_by": self.ended_by,
            "ranks": [team_ranks[self.team_of[s]] for s in range(n)],
            "points": [team_points[self.team_of[s]] for s in range(n)],
            "points_kind": "score" if rubber else "penalty",
            "teams": [list(t) for t in self.teams],
            "penalties": [self.team_penalties[self.team_of[s]] for s in range(n)],
            "deals_won": [self.team_wins[self.team_of[s]] for s in range(n)],
            "goat": goat,
            "deals": [dict(r) for r in self.deal_records],
        }

    # ------------------------------------------------------------------ validation
    def _check_seat(self, seat: Any) -> None:
        if type(seat) is not int or not 0 <= seat < self.num_seats:
            raise ValueError(f"seat must be an integer from 0 to {self.num_seats - 1}, not {seat!r}")

    def _check_shape(self, action) -> str:
        if not isinstance(action, dict):
            raise IllegalAction("bad-action", f"an action is a JSON object with a 'type', not {action!r:.60}")
        kind = action.get("type")
        wanted = _ACTION_TYPES[self.phase]
        if kind not in wanted:
            raise IllegalAction("wrong-decision", f"the decision now is {self.phase!r}: the action type must be "
                                                  f"{' or '.join(map(repr, wanted))}, not {kind!r:.40}")
        if not action.keys() <= _ACTION_KEYS[kind]:
            extra = action.keys() - _ACTION_KEYS[kind]
            raise IllegalAction("bad-action", f"unknown keys in a {kind!r} action: {', '.join(sorted(map(str, extra)))}"
                                              f"; allowed: {', '.join(sorted(_ACTION_KEYS[kind]))}")
        return kind

    def _check_cards(self, seat: int, action: dict) -> tuple[str, ...]:
        raw = action.get("cards")
        if not isinstance(raw, list) or len(raw) > 64:
            raise IllegalAction("bad-action", "'cards' must be a list of card strings such as [\"AS\", \"TS\"]")
        hand = self.hands[seat]
        # The hand holds only valid card strings, so membership alone proves a card valid; the slower
        # parse runs only to explain a rejection (a list or object among the cards cannot be hashed).
        try:
            named = set(raw)
        except TypeError:
            named = None
        if named is None or not named.issubset(hand):
            try:
                cards = [parse_card(c) for c in raw]
            except CardError as exc:
                raise IllegalAction("unknown-card", str(exc)) from None
            missing = [c for c in cards if c not in hand]
            raise IllegalAction("card-not-in-hand", f"{' '.join(missing)} not in your hand {' '.join(hand)}")
        if len(named) != len(raw):
            raise IllegalAction("duplicate-card", f"a card is named twice in {raw}")
        return tuple(raw) if len(raw) == 1 else tuple(sort_cards(raw))

    def _forced_cards(self) -> tuple[str, ...] | None:
        """The cards the leader must lead now (out_of_turn_lead=whole_hand), or None for a free lead."""
        if self.forced_lead is None or self.forced_lead[0] != self.leader:
            return None
        cards = self.forced_lead[1]
        return cards if len(cards) <= self.leader_limit else None  # another player holds fewer: lead freely

    def _check_lead(self, seat: int, action: dict) -> tuple[str, ...]:
        cards = self._check_cards(seat, action)
        forced = None if self.forced_lead is None else self._forced_cards()
        if forced is not None:
            if set(cards) != set(forced):
                raise IllegalAction("lead-combination", f"with out_of_turn_lead=whole_hand your combination moved "
                                                        f"the lead: lead exactly its cards {' '.join(forced)}")
            return forced
        if not cards:
            raise IllegalAction("lead-empty", "a lead needs at least one card")
        if len(cards) > 1 and len({c[1] for c in cards}) != 1:
            raise IllegalAction("lead-one-suit", f"a lead is cards of one suit, not {' '.join(cards)}")
        limit = self.leader_limit
        if len(cards) > limit:
            raise IllegalAction("lead-too-many", f"you may lead at most {limit} cards now (never more than "
                                                 f"another player holds), not {len(cards)}")
        return cards

    def _check_response(self, seat: int, action: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The set, and those of its cards played face down (all, none, or some with mixed_sets=on)."""
        cards = self._check_cards(seat, action)
        size = len(self.best_cards)
        if len(cards) != size:
            raise IllegalAction("must-play-same-count", f"play exactly {size} card(s), as many as were led, "
                                                        f"not {len(cards)}")
        face_down = action.get("face_down", False)
        if face_down.__class__ is list and self._mixed_sets:
            try:
                down = set(face_down)
            except TypeError:
                down = None
            if down is None or len(down) != len(face_down) or not down <= set(cards):
                raise IllegalAction("bad-action", "'face_down' as a list names distinct cards of the set played "
                                                  "face down")
            if not down:
                return cards, ()
            if self.rules.discard == "open":
                raise IllegalAction("face-down-not-allowed", "with discard=open every card is played face up")
            return cards, tuple(c for c in cards if c in down)
        if not isinstance(face_down, bool):
            extra = " (or, with mixed_sets=on, a list of the set's cards played face down)"
            extra = extra if self.rules.mixed_sets == "on" else ""
            raise IllegalAction("bad-action", f"'face_down' must be true or false{extra}"
                                              f", not {face_down!r:.40}")
        if face_down and self.rules.discard == "open":
            raise IllegalAction("face-down-not-allowed", "with discard=open every card is played face up")
        return cards, cards if face_down else ()

    def lead_limit(self, seat: int) -> int:
        """A lead may hold no more cards than any other player holds (players without cards sit out)."""
        limit = len(self.hands[seat])
        for other, hand in enumerate(self.hands):
            if other != seat and hand and len(hand) < limit:
                limit = len(hand)
        return limit

    # ------------------------------------------------------------------ events
    def _emit(self, event: dict, view=None, arg=None) -> None:
        self._log.append((_as_built, event, view, arg))

    # ------------------------------------------------------------------ a deal
    def _deal_from(self, dealer: int | None) -> None:
        """Deal, and keep dealing while deals end at once (redeals, instant combinations)."""
        while dealer is not None:
            self.deal_no += 1
            deck = shuffled(self.rules.deck_cards, derive_seed(self.seed, self.deal_no))
            n, size = self.num_seats, self.rules.hand
            hands: list[list[str]] = [[] for _ in range(n)]
            # One card at a time, clockwise from the dealer's left: the k-th seat in that order gets every
            # n-th card from deck[k].
            for k, seat in enumerate(self.turn_order[(dealer + 1) % n]):
                hands[seat] = deck[k:size * n:n]
            trump_card = deck[size * n]
            rest = deck[size * n + 1:]
            if self.rules.trump_card == "bottom":
                stock = [trump_card, *reversed(rest)]
            else:
                stock = [*reversed(rest), trump_card]
            self._open_deal(dealer, hands, stock, trump_card)
            dealer = self._after_initial_deal()

    def _open_deal(self, dealer: int, hands: list[list[str]], stock: list[str], trump_card: str) -> None:
        self._clear_deal()
        self.dealer = dealer
        for hand in hands:
            hand.sort(key=card_sort_key)
        self.hands = hands
        self.stock = stock
        self.trump_card = trump_card
        self.trump = trump_card[1]
        self.trump_in_stock = trump_card in stock
        self.trump_at = stock.index(trump_card) if self.trump_in_stock else -1
        self._refresh_views()
        self._log.append((_deal_event, (self.deal_no, dealer, self.trump, trump_card, self.rules.trump_card,
                                        [*map(list, hands)], len(stock)), views.view_deal, None))

    def _after_initial_deal(self) -> int | None:
        """Apply the initial-combination rule; return the next dealer if this deal ended at once."""
        first = (self.dealer + 1) % self.num_seats
        found = resolve_combinations(self.hands, self.trump, self.rules, first)
        if found is not None and self.rules.initial_combo == "redeal":
            announced = self._announce(found.combo or found.tied[0], "redeal")
            return self._end_deal(scoring.DealScore(scoring.REDEAL, [], [0] * len(self.teams)), combo=announced)
        if found is not None:  # announced like one found after a draw, so everybody sees why the lead moved
            ended, value = self._combination_effect(found, first)
            if ended or value is None:  # (value is None only when the deal ended with the match)
                return value
            first = value
        self._start_trick(first)
        return None

    def _combination_effect(self, found, due: int) -> tuple[bool, int | None]:
        """Announce what the combinations do now. Returns (True, the next dealer or None when the match is
        over) if the deal ended, else (False, the seat to lead; ``due`` is the seat whose turn it was)."""
        if found.void:  # bura_tie=void: every tied combination is announced and the deal is void
            entries = [self._announce(c, scoring.VOID) for c in found.tied]
            return True, self._end_deal(scoring.DealScore(scoring.VOID, [], [0] * len(self.teams)), combo=entries[0])
        combo = found.combo
        extra = {}
        if found.playoff:
            extra["playoff"] = [{"seat": seat, "cards": list(cards)} for seat, cards in found.playoff]
        if combo.effect == INSTANT_WIN:
            announced = self._announce(combo, INSTANT_WIN, extra)
            score = scoring.score_combination(self.rules, len(self.teams), self.team_of[combo.seat])
            return True, self._end_deal(score, combo=announced)
        self._announce(combo, "lead", extra)
        if combo.seat != due and self.rules.out_of_turn_lead == "whole_hand":
            self.forced_lead = (combo.seat, combo.cards)
        return False, combo.seat

    def _announce(self, combo, effect: str, extra: dict | None = None) -> dict:
        """Announce ``combo`` (only the cards that make it) with the effect it actually has now (a Bura in
        the initial deal only redeals)."""
        entry = {**combo.to_json(), "effect": effect, **(extra or {})}
        self.announced.append(entry)
        self._emit({"type": "combination", "deal": self.deal_no, **entry})
        return entry

    def _start_trick(self, leader: int) -> None:
        hands = self.hands
        if not hands[leader]:  # a leader without cards (short stock, many players) passes the lead on
            for seat in self.turn_order[leader]:
                if hands[seat]:
                    leader = seat
                    break
        self.leader = leader
        limit = _shortest(hands)  # lead_limit(leader) in short while every hand holds cards
        self.leader_limit = limit if limit else self.lead_limit(leader)
        self.phase, self.current = LEAD, leader

    def _lead(self, seat: int, cards: tuple[str, ...]) -> None:
        hands = self.hands
        hand = hands[seat]
        for card in cards:
            hand.remove(card)
        self.trick_plays = [(seat, cards, ())]
        self.trick_cards = [*cards]
        self.trick_down = False
        self.forced_lead = None  # it binds only the trick right after the announcement
        self.best_seat, self.best_cards = seat, cards
        self._log.append((_play_event, (self.deal_no, seat, cards, (), None, True), None, None))
        responders = self.responders = [s for s in self._others_after[seat] if hands[s]]  # those with cards
        if responders:  # _next_responder inline, on the path of every lead
            self.phase, self.current = RESPOND, responders.pop(0)
        else:
            self._take_trick()

    def _respond(self, seat: int, cards: tuple[str, ...], down: tuple[str, ...]) -> None:
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        if down:  # a set with a hidden card never beats
            pairs = None
            self.trick_down = True
        elif len(cards) == 1:  # one card against one (most responses): no matching needed
            card, beaten = cards[0], self.best_cards[0]
            pairs = [(card, beaten)] if card in BEATERS[self.trump][beaten] else None
        else:
            pairs = pairing(cards, self.best_cards, self.trump)
        self.trick_plays.append((seat, cards, down))
        self.trick_cards += cards
        if pairs is not None:
            self.best_seat, self.best_cards = seat, cards
        self._log.append((_play_event, (self.deal_no, seat, cards, down, pairs, False),
                          views.view_face_down_play if down else None, seat))
        if self.responders:  # _next_responder inline, on the path of every response
            self.phase, self.current = RESPOND, self.responders.pop(0)
        else:
            self._take_trick()

    def _next_responder(self) -> None:
        if self.responders:
            self.phase, self.current = RESPOND, self.responders.pop(0)
        else:
            self._take_trick()

    def _take_trick(self) -> None:
        taker = self.best_seat
        pile = self.piles[taker]
        pile += self.trick_cards  # every card of the trick, in the order played
        plays = self.trick_plays
        if self.trick_down:
            self._file_face_down(taker, plays)
        else:  # every card face up (most tricks): put in card order when an observation next shows them
            self.pile_up[taker] += self.trick_cards
            self.unsorted_up.add(taker)
        self.tricks_won[taker] += 1
        # The trick's event is worked out from its plays when somebody reads it (a list no later play changes).
        self._log.append((_trick_event, (self.deal_no, taker, plays, len(pile)),
                          views.view_trick if self.trick_down else None, self._shown_to_taker))
        self.trick_leader = self.leader
        self.leader = taker
        if self._claims_allowed:
            self.phase, self.current = CLAIM, taker
        else:
            self._after_trick()

    def _file_face_down(self, taker: int, plays) -> None:
        """A trick with face-down cards into the taker's pile: who may see them, and its face-up cards."""
        face_up = self.pile_up[taker]
        for seat, cards, down in plays:
            if not down:
                face_up += cards
                continue
            self.pile_down[taker] += [(c, seat) for c in down]
            if self.revealed:  # (never while tricks are played, as a claim ends the deal)
                self._learn_face_down(taker, seat, down)
            else:  # their player sees them, and with discard=shown_to_taker the taker (seat_knows_face_down)
                known = self.known_down[seat][taker]
                known += down
                known.sort(key=card_sort_key)
                if self._shown_to_taker and taker != seat:
                    known = self.known_down[taker][taker]
                    known += down
                    known.sort(key=card_sort_key)
            if len(down) < len(cards):
                face_up += [c for c in cards if c not in down]
        self.unsorted_up.add(taker)

    def sort_piles(self) -> None:
        """Put the piles' face-up cards in card order (a trick adds them as played; observations sort)."""
        for owner in self.unsorted_up:
            self.pile_up[owner].sort(key=card_sort_key)
        self.unsorted_up.clear()

    def _learn_face_down(self, owner: int, played_by: int, cards) -> None:
        for viewer in range(self.num_seats):
            if views.seat_knows_face_down(self, viewer, owner, played_by):
                known = self.known_down[viewer][owner]
                known.extend(cards)
                known.sort(key=card_sort_key)

    def _refresh_known(self, owner: int) -> None:
        down = self.pile_down[owner]
        for viewer in range(self.num_seats):
            self.known_down[viewer][owner] = sort_cards(
                c for c, by in down if views.seat_knows_face_down(self, viewer, owner, by))

    def _pass_claim(self, seat: int) -> None:
        self._log.append((_pass_event, (self.deal_no, seat), None, None))
        self._after_trick()

    def _claim(self, seat: int) -> None:
        team = self.team_of[seat]
        members = self.teams[team]
        total = sum(points(self.piles[s]) for s in members)
        self.revealed.update(members)
        for owner in members:
            self._refresh_known(owner)
        target = self.rules.claim_target
        assert target is not None, "a claim decision is only asked for under rules with a claim target"
        self._emit({"type": "claim", "deal": self.deal_no, "seat": seat, "target": target, "points": total,
                    "correct": total >= target, "piles": {str(s): sort_cards(self.piles[s]) for s in members}})
        score = scoring.score_claim(self.rules, self._team_points(), team, self._team_tricks())
        self._deal_from(self._end_deal(score, claimer=seat))

    def _after_trick(self) -> None:
        """Draw, look for combinations, then the next lead — or the end of a played-out deal."""
        taker, trick_leader = self.leader, self.trick_leader
        due = (trick_leader + 1) % self.num_seats if self._rotate_lead else taker
        hands = self.hands
        if self.stock and self._draw(trick_leader if self._leader_draws_first else taker):
            # resolve_combinations' cheap first test inline: most hands drawn to full hold no combination
            full, start = self._hand_size, self._combo_start
            for hand in hands:
                if len(hand) == full and (start + sum(map(_COUNT_OF, hand))) & _TOPS:
                    found = resolve_combinations(hands, self.trump, self.rules, due)
                    if found is not None:
                        ended, value = self._combination_effect(found, due)
                        if ended or value is None:  # (value is None only when the deal ended with the match)
                            self._deal_from(value)
                            return
                        due = value
                    break
        if not any(hands):
            score = scoring.score_played_out(self.rules, self._team_points(), self._team_tricks())
            self._deal_from(self._end_deal(score))
            return
        self._start_trick(due)

    def _draw(self, taker: int) -> bool:
        """One card at a time, ``taker`` (the trick's taker, or its leader with draw_first=leader) first and
        then clockwise, until hands are full or the stock is empty."""
        stock, hands, size = self.stock, self.hands, self._hand_size
        draws = []
        # One round per card the shortest hand lacks: in each, every seat still short draws one card.
        for _ in range(size - _shortest(hands)):
            for seat in self.turn_order[taker]:
                hand = hands[seat]
                if len(hand) < size and stock:
                    card = stock.pop()
                    insort(hand, card, key=card_sort_key)
                    draws.append((seat, card))
        if not draws:
            return False
        if len(stock) <= self.trump_at:  # the trump card was among the cards drawn
            self.trump_in_stock = False
            self.trump_at = -1
        self._log.append((_draw_event, (self.deal_no, draws, len(stock)), views.view_draw, self.trump_card))
        return True

    def _team_points(self) -> list[int]:
        return [sum(points(self.piles[s]) for s in members) for members in self.teams]

    def _team_tricks(self) -> list[int]:
        return [sum(self.tricks_won[s] for s in members) for members in self.teams]

    # ------------------------------------------------------------------ end of a deal, end of the match
    def _end_deal(self, score: scoring.DealScore, *, claimer: int | None = None,
                  combo: dict | None = None) -> int | None:
        """Write the deal's penalties and record; return the next dealer, or None when the match is over.

        ``combo`` is the announced combination that ended the deal, with the effect it had.
        """
        multiplier = self.multiplier
        for team, penalty in enumerate(score.penalties):
            self.team_penalties[team] += penalty * multiplier
        for team in score.winners:
            self.team_wins[team] += 1
        if score.doubles_next:
            self.multiplier *= 2
        elif score.winners:
            self.multiplier = 1
        if score.reason != scoring.REDEAL:
            self.deals_played += 1
        team_of, winners = self.team_of, score.winners
        record = {
            "deal": self.deal_no,
            "dealer": self.dealer,
            "reason": score.reason,
            "winners": [s for s, team in enumerate(team_of) if team in winners],  # seats in order
            "trick_points": list(map(points, self.piles)),
            "penalties": [score.penalties[team] * multiplier for team in team_of],
            "multiplier": multiplier,
            "doubles_next": score.doubles_next,
            "claimer": claimer,
            "combination": dict(combo) if combo is not None else None,
            "totals": list(map(self.team_penalties.__getitem__, team_of)),
        }
        self.deal_records.append(record)
        self._log.append((_deal_end_event, record, None, None))
        if self._match_decided():
            self.ended_by = "rules"
        elif self.deal_no >= self.rules.deal_limit:
            self.ended_by = "deal_limit"
        if self.ended_by is not None:
            self.phase, self.current = OVER, None
            self._refresh_views()  # (otherwise the next deal's opening does it)
            result = self.outcome()
            self._emit({"type": "match_end", "ended_by": self.ended_by, "ranks": result["ranks"],
                        "points": result["points"], "points_kind": result["points_kind"], "goat": result["goat"]})
            return None
        return self._next_dealer(score, claimer)

    def _match_decided(self) -> bool:
        kind, target = self.rules.match_kind, self.rules.match_target
        if kind == "penalty":
            return max(self.team_penalties) >= target
        if kind == "deals":
            return self.deals_played >= target
        best = max(self.team_wins)
        return best >= target and sorted(self.team_wins)[-2] <= best - 2

    def _next_dealer(self, score: scoring.DealScore, claimer: int | None) -> int:
        n = self.num_seats
        rules = self.rules
        if score.reason == scoring.REDEAL:  # not a new deal: the same dealer deals again in every mode
            return self.dealer
        if score.reason == scoring.FALSE_CLAIM and rules.false_claim_deals == "claimer" and claimer is not None:
            return claimer
        if rules.dealer == "rotate_left":  # after every deal, void and tied ones included
            return (self.dealer + 1) % n
        if not score.winners:  # void, all tied: the same dealer deals again
            return self.dealer
        wanted = score.winners if rules.dealer == "winner" else \
            [t for t in range(len(self.teams)) if t not in score.winners]
        for offset in range(1, n + 1):  # the first winner (loser) clockwise from the dealer's left
            seat = (self.dealer + offset) % n
            if self.team_of[seat] in wanted:
                return seat
        return self.dealer


def _shortest(hands: list[list[str]]) -> int:
    """How many cards the shortest hand holds: ``min(map(len, hands))`` as a loop, which mypyc makes native."""
    fewest = len(hands[0])
    for hand in hands:
        if len(hand) < fewest:
            fewest = len(hand)
    return fewest
