"""A Kozel match: every hand until a seat reaches the target in penalty points.

The state is deterministic from ``(rules, seed)``: hand k is dealt from ``shuffled(deck, derive_seed(seed, k))``
and the first dealer is drawn by lot from ``derive_seed(seed, LOT)``. Everything a seat may know is in
``observation``; the event log keeps one full record per event (for the commonest, just what it is made
from), and a seat's view of the few events holding hidden cards (the deal, the widow, the discard) is made
from that record when asked for.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import combinations
from typing import Any

from arena.cards import CardError, SeededRandom, check_seed, derive_seed, parse_card, parse_cards, shuffled
from arena.games.base import IllegalAction, fields_of, rebuilt, set_fields
from arena.games.kozel import views
from arena.games.kozel.cards import TABLES, TRUMP
from arena.games.kozel.rules import Rules
from arena.games.kozel.scoring import misere_penalties, solo_penalties, team_penalties

GAME = "kozel"
LOT = 0x4C4F54  # label of the first-dealer lot's sub-seed ("LOT"); deal numbers never reach it

WIDOW = "widow"
DISCARD = "discard"
PLAY = "play"
# The contract of a hand: two teams (4 players); with 3 the widow decision is pending, then a soloist
# plays alone against the other two ("solo") or, the widow declined, everyone for themselves ("misere").
TEAMS, PENDING, SOLO, MISERE = "teams", "pending", "solo", "misere"
# How a log entry's per-seat part reads (see ``events``): FLAT marks a public event whose values are all
# scalars (a shallow copy is a full copy); PLAYED and TRICK mark the two commonest events, kept as a bare
# tuple and made into their event only when asked for; DEAL_END marks a deal's record as kept in _deals
# (never changed); DEALT, and an (owner, key) pair, mark events holding hidden cards, whose view for a
# seat is made when asked for. They are told apart by ==, not by identity: a state may have been through
# pickle (replay frames), which keeps () but may not keep a string's identity.
FLAT, PLAYED, TRICK, DEALT, DEAL_END = (), "played", "trick", "dealt", "deal_end"
SUIT_WORDS = {"C": "clubs", "S": "spades", "H": "hearts", TRUMP: "trumps"}
# The play action of every card, prepared once: legal actions are copies of these (a dict copy is cheaper
# than a dict literal), and apply compares a played card's entry with them.
PLAY_ACTIONS = {c: {"type": PLAY, "card": c} for table in TABLES.values() for c in table.deck}


class KozelState:
    """A whole match. Seats 0..n-1 clockwise; the seat to the left of seat s is s+1."""

    def __init__(self, rules: Any, seed: Any, *, deal: bool = True):
        """The match of ``(rules, seed)`` at its first decision; ``deal=False``: nothing dealt yet, for
        ``from_position``, copies and pickles."""
        self._setup(rules, seed)
        if not deal:
            return
        self._dealer = SeededRandom(derive_seed(self.seed, LOT)).below(self.num_seats)
        self._deal_next()

    def _setup(self, rules: Any, seed: Any) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"kozel needs kozel Rules, not {type(rules).__name__}")
        self.rules = rules
        self.seed = check_seed(seed)
        self.num_seats = rules.players
        self._table = TABLES[rules.deck]
        self._scores = [0] * self.num_seats
        self._deals: list[dict[str, Any]] = []
        # (the event or what it is made from, how it is made and seen: see FLAT, PLAYED... above)
        self._log: list[tuple[Any, Any]] = []
        self._deal_no = -1
        self._multiplier = 1  # the current hand's penalties count this many times (x2 per 60:60 hand before)
        self._over = False
        # Per seat, the prepared observation template of views.template (None: not made yet); made again
        # whenever what it holds changes (the sides, the discard, the scores).
        self._templates: list[dict[str, Any] | None] = [None] * self.num_seats

    # ------------------------------------------------------------------ construction for tests

    @classmethod
    def from_position(cls, rules: Rules, hands, *, dealer: int = 0, leader: int | None = None, widow=None,
                      soloist: int | None = None, discard=None, won=None, scores=None, doubled: bool = False,
                      deal: int = 0, seed: int = 0, multiplier: int | None = None,
                      misere: bool = False) -> KozelState:
        """A match whose current hand starts from explicit cards (for tests and puzzles).

        ``hands``: the cards each seat holds, all the same count, no trick in progress. ``won``: cards
        each seat already took in tricks (a multiple of the player count each). With 3 players give
        either ``widow`` (the hand starts at the widow decision of the seat with the most card points;
        with ``misere=True`` the widow was declined and a misère is being played) or ``soloist`` and
        ``discard`` (the widow was taken and play has begun). Hands, widow or discard and won cards together
        must be exactly the deck. ``leader`` defaults to the soloist, else the dealer's left.
        ``multiplier`` (or ``doubled`` for 2) is the pending doubling. Later hands are dealt from ``seed`` as
        usual, numbered from ``deal + 1``.
        """
        state = cls(rules, seed, deal=False)
        n = state.num_seats
        hands = [parse_cards(h) for h in hands]
        won = [parse_cards(w) for w in won] if won is not None else [[] for _ in range(n)]
        widow = parse_cards(widow) if widow is not None else None
        discard = parse_cards(discard) if discard is not None else None
        if len(hands) != n or len(won) != n:
            raise ValueError(f"give {n} hands and {n} won piles")
        if len({len(h) for h in hands}) != 1 or not hands[0]:
            raise ValueError("every hand must hold the same number of cards, at least one")
        if any(len(w) % n for w in won):
            raise ValueError(f"each won pile must be whole tricks of {n} cards")
        if n == 4 and (widow or discard or soloist is not None or misere):
            raise ValueError("the 4-player game has no widow, discard, soloist or misère")
        widow_phase = widow is not None and soloist is None and discard is None
        play_phase = widow is None and soloist is not None and discard is not None and not misere
        if n == 3 and not (widow_phase or play_phase):
            raise ValueError("with 3 players give either widow (and perhaps misere), or soloist and discard")
        for extra in (widow, discard):
            if extra is not None and len(extra) != rules.widow_size:
                raise ValueError(f"the widow and the discard hold {rules.widow_size} cards")
        every = [c for h in hands for c in h] + [c for w in won for c in w] + (widow or []) + (discard or [])
        if sorted(every) != sorted(state._table.deck):
            raise ValueError("hands, won cards, widow and discard must be exactly the deck, each card once")
        for seat in (dealer, leader, soloist):
            if seat is not None and seat not in range(n):
                raise ValueError(f"seats are 0..{n - 1}")
        state._dealer = dealer
        state._deal_no = deal
        state._multiplier = multiplier if multiplier is not None else (2 if doubled else 1)
        if scores is not None:
            state._scores = list(scores)
        state._begin_hand(hands, widow, soloist=soloist, discard=discard, won=won, leader=leader, misere=misere)
        return state

    def clone(self) -> KozelState:
        other = KozelState(self.rules, self.seed, deal=False)
        set_fields(other, fields_of(self))
        other._scores = list(self._scores)
        other._deals = list(self._deals)  # finished deal records are never changed
        other._log = list(self._log)  # logged events are never changed
        other._hands = [list(h) for h in self._hands]
        other._plays = [list(p) for p in self._plays]
        other._plays_of_kind = [{k: list(p) for k, p in of_kind.items()} for of_kind in self._plays_of_kind]
        other._trick = list(self._trick)
        other._tricks = list(self._tricks)
        other._side = list(self._side)
        other._sides = [side[:] for side in self._sides]
        other._side_points = list(self._side_points)
        other._side_tricks = list(self._side_tricks)
        other._templates = list(self._templates)  # templates are only ever copied, never changed
        return other

    def __deepcopy__(self, memo: dict) -> KozelState:
        return self.clone()  # what deepcopy reaches through a holder (an OpenSpiel state's fields, say)

    def __reduce__(self) -> tuple:
        return rebuilt, (KozelState, self.rules, self.seed, fields_of(self))

    # ------------------------------------------------------------------ dealing

    def _deal_next(self) -> None:
        self._deal_no += 1
        deck = shuffled(self._table.deck, derive_seed(self.seed, self._deal_no))
        n, size = self.num_seats, self.rules.hand_size
        # One card at a time, clockwise from the dealer's left: the seat k places after the dealer gets every
        # n-th card from the (k-1)-th on.
        hands = [deck[(seat - self._dealer - 1) % n:n * size:n] for seat in range(n)]
        widow = deck[n * size:] if n == 3 else None
        self._begin_hand(hands, widow)

    def _begin_hand(self, hands, widow, *, soloist=None, discard=None, won=None, leader=None,
                    misere=False) -> None:
        n = self.num_seats
        table = self._table
        self._pick_up(hands)
        self._trick: list[str] = []
        self._led: str | None = None
        self._tricks: list[tuple[int, tuple[str, ...], int, int]] = []  # leader, cards, winner, points
        self._widow = table.sort(widow) if widow is not None else None
        self._discard = table.sort(discard) if discard is not None else None
        self._soloist = soloist
        self._widow_holder: int | None = None
        if n == 4:
            self._contract = TEAMS
        elif soloist is not None:
            self._contract = SOLO
        elif misere:
            self._contract = MISERE
        else:
            self._contract = PENDING
            self._widow_holder = self._widow_taker()
        first = soloist if self._contract == SOLO else (self._dealer + 1) % n  # the lone player leads
        self._leader = first if leader is None else leader
        self._set_sides(won)
        self._log_deal()
        if self._contract == PENDING:
            self._phase = WIDOW
            self._turn: int | None = self._widow_holder
        else:
            self._phase = PLAY
            self._turn = self._leader

    def _set_sides(self, won=None) -> None:
        """Sides of the hand: teams; the soloist (side 0) and the others (side 1); or every seat alone."""
        n = self.num_seats
        # Every observation shows the sides, so they are worked out once per kind of hand and shared: the
        # lists in _SIDES are never changed (clone copies them; everything handed out is a copy).
        key = (n, self._contract, self._soloist)
        if key not in _SIDES:
            if self._contract == TEAMS:
                side = [s % 2 for s in range(n)]
            elif self._contract == SOLO:
                side = [0 if s == self._soloist else 1 for s in range(n)]
            else:  # misère, or the widow decision still pending (nothing is won before it)
                side = list(range(n))
            count = 0 if self._contract == PENDING else max(side) + 1
            _SIDES[key] = side, [[s for s in range(n) if side[s] == i] for i in range(count)]
        self._side, self._sides = _SIDES[key]
        count = len(self._sides)
        self._templates = [None] * n
        self._side_points = [0] * count
        self._side_tricks = [0] * count
        for seat, pile in enumerate(won or ()):
            if pile and not count:
                raise ValueError("no trick is taken before the widow decision: give won cards with a soloist "
                                 "or misere")
            if not pile:
                continue
            self._side_points[self._side[seat]] += sum(self._table.points[c] for c in pile)
            self._side_tricks[self._side[seat]] += len(pile) // n

    def _pick_up(self, hands: list[list[str]]) -> None:
        """Every seat sorts its cards (CardTable.order); beside each hand are kept its cards' play actions, all
        of them and by the kind they follow, in step as cards leave: listing the legal cards and checking
        suit-following then need no pass over the hand."""
        self._hands: list[list[str]] = [[] for _ in hands]
        self._plays: list[list[dict[str, Any]]] = [[] for _ in hands]
        self._plays_of_kind: list[dict[str, list[dict[str, Any]]]] = [{} for _ in hands]
        for seat, hand in enumerate(hands):
            self._pick_up_hand(seat, hand)

    def _pick_up_hand(self, seat: int, cards: list[str]) -> None:
        """``seat`` sorts ``cards`` as its new hand (see _pick_up)."""
        table = self._table
        place = table.order.__getitem__
        hand = self._hands[seat] = sorted(cards, key=place)
        plays = self._plays[seat] = [*map(PLAY_ACTIONS.__getitem__, hand)]
        # A kind's cards sit side by side in a sorted hand; the kinds in sorted order are trumps, then clubs,
        # spades and hearts (PLAIN_SUITS): three binary searches find where each of the last three starts.
        clubs, spades, hearts = table.suit_starts
        c = bisect_left(hand, clubs, key=place)
        s = bisect_left(hand, spades, c, key=place)
        h = bisect_left(hand, hearts, s, key=place)
        self._plays_of_kind[seat] = {TRUMP: plays[:c], "C": plays[c:s], "S": plays[s:h], "H": plays[h:]}

    def _widow_taker(self) -> int:
        """Most card points in hand; a tie goes to the first of the tied seats from the dealer's left."""
        n = self.num_seats
        best_seat, best_points = -1, -1
        for i in range(1, n + 1):
            seat = (self._dealer + i) % n
            points = sum(self._table.points[c] for c in self._hands[seat])
            if points > best_points:
                best_seat, best_points = seat, points
        return best_seat

    # ------------------------------------------------------------------ the MatchState API

    def to_move(self) -> int | None:
        return self._turn

    def is_over(self) -> bool:
        return self._over

    def decision(self, seat: int) -> str | None:
        if seat != self._turn:
            return None
        if self._phase == WIDOW:
            return "widow"
        if self._phase == DISCARD:
            return "discard"
        return "follow" if self._trick else "lead"

    def legal_cards(self, seat: int) -> list[str]:
        """The cards ``seat`` may play now (empty when it is not that seat's turn to play)."""
        if self.is_over() or seat != self._turn or self._phase != PLAY:
            return []
        hand = self._hands[seat]
        if not self._trick:
            return list(hand)
        kind, led = self._table.kind, self._led
        following = [c for c in hand if kind[c] == led]
        return following or list(hand)

    def legal_actions(self, seat: Any) -> list[dict[str, Any]]:
        if seat != self._turn or self._over:
            return []
        if self._phase == PLAY:  # the common case first: asked before every card played
            led = self._led
            if led is not None:  # following: the cards of the led kind if any, else any card
                return [*map(dict.copy, self._plays_of_kind[seat][led] or self._plays[seat])]
            return [*map(dict.copy, self._plays[seat])]
        if self._phase == WIDOW:
            return [{"type": "widow", "take": True}, {"type": "widow", "take": False}]
        return [{"type": "discard", "cards": [a, b]} for a, b in combinations(self._hands[seat], 2)]

    def observation(self, seat: Any) -> dict[str, Any]:
        if seat.__class__ is not int or not 0 <= seat < self.num_seats:
            self._check_seat(seat)
        return views.observation(self, seat)

    def sides(self) -> list[list[int]]:
        """The sides of the current hand: teams [[0, 2], [1, 3]]; [[soloist], [the others]]; in a misère
        every seat alone; none while the widow decision is pending."""
        return [side[:] for side in self._sides]

    def apply(self, seat: Any, action: Any) -> None:
        # The common case first, checked in as few steps as possible: the seat to move plays a card it holds
        # and may play (``action`` equal to one of the prepared play actions). Anything else goes the long
        # way, which checks everything in order and names the rule broken.
        if seat == self._turn and self._phase == PLAY and seat.__class__ is int and action.__class__ is dict:
            card = action.get("card")
            if card.__class__ is str and action == PLAY_ACTIONS.get(card) and card in self._hands[seat]:
                kind = self._table.kind[card]
                led = self._led
                if led is None:  # it leads the trick
                    self._led = kind
                    self._leader = seat
                    self._play(seat, card, kind)
                    return
                if kind == led or not self._plays_of_kind[seat][led]:
                    self._play(seat, card, kind)
                    return
        self._apply_checked(seat, action)

    def _apply_checked(self, seat: Any, action: Any) -> None:
        if self._over:
            raise IllegalAction("match-over", "the match is over")
        if seat.__class__ is not int or seat != self._turn:
            raise IllegalAction("not-your-turn", f"it is seat {self._turn}'s turn, not seat {seat!r}'s")
        if not isinstance(action, dict):
            raise IllegalAction("bad-action", f"an action is a JSON object, not {type(action).__name__}")
        if self._phase == WIDOW:
            self._expect(seat, action, "widow", "take")
            self._apply_widow(seat, action["take"])
        elif self._phase == DISCARD:
            self._expect(seat, action, "discard", "cards")
            self._apply_discard(seat, action["cards"])
        else:
            if action.get("type") != PLAY or len(action) != 2 or "card" not in action:
                self._expect(seat, action, "play", "card")  # it names the fault
            self._apply_play(seat, action["card"])

    def _expect(self, seat: int, action: dict, kind: str, key: str) -> None:
        """``seat`` is the seat to move (``apply`` checked it)."""
        if action.get("type") != kind:
            raise IllegalAction("wrong-action-type",
                                f"the decision now is {self.decision(seat)!r}: send {{'type': '{kind}', ...}}, "
                                f"not type {action.get('type')!r}")
        if key not in action or len(action) != 2:
            raise IllegalAction("bad-action", f"a {kind} action has exactly the keys 'type' and {key!r}")

    def _card_in_hand(self, seat: int, card: Any) -> str:
        try:
            card = parse_card(card)
        except CardError as e:
            raise IllegalAction("bad-card", str(e)) from None
        if card not in self._hands[seat]:
            raise IllegalAction("card-not-in-hand", f"{card} is not in your hand")
        return card

    def _apply_widow(self, seat: int, take: Any) -> None:
        """Take the widow unseen (then discard 2, lead, and play alone), or decline it: a misère."""
        if take.__class__ is not bool:
            raise IllegalAction("bad-action", f"'take' is true (take the widow) or false (decline: a misère), not "
                                              f"{take!r:.40}")
        self._log.append(({"type": "widow_decision", "deal": self._deal_no, "seat": seat, "take": take}, FLAT))
        if take:
            widow = self._widow
            assert widow is not None, "the widow decision is only asked for in a hand dealt with a widow"
            self._contract = SOLO
            self._soloist = seat
            self._leader = seat  # the lone player leads
            self._set_sides()
            self._pick_up_hand(seat, self._hands[seat] + widow)
            self._log_private({"type": "widow", "deal": self._deal_no, "seat": seat,
                               "cards": list(widow)}, seat, "cards")
            self._phase = DISCARD
            self._turn = seat
        else:
            self._contract = MISERE
            self._set_sides()
            self._phase = PLAY
            self._turn = self._leader  # the dealer's left

    def _apply_discard(self, seat: int, cards: Any) -> None:
        if not isinstance(cards, list) or len(cards) != self.rules.widow_size:
            raise IllegalAction("discard-two-cards", f"discard exactly {self.rules.widow_size} cards as a list")
        chosen = [self._card_in_hand(seat, c) for c in cards]
        if len(set(chosen)) != len(chosen):
            raise IllegalAction("discard-two-cards", "the discarded cards must be different cards")
        hand = self._hands[seat]
        for c in chosen:
            hand.remove(c)
        self._discard = self._table.sort(chosen)
        self._pick_up_hand(seat, hand)
        self._templates = [None] * self.num_seats  # the soloist's now shows the discard
        self._log_private({"type": "discard", "deal": self._deal_no, "seat": seat, "cards": list(self._discard)},
                          seat, "cards")
        self._phase = PLAY
        self._turn = self._leader

    def _apply_play(self, seat: int, card: Any) -> None:
        table = self._table
        if card.__class__ is not str or card not in self._hands[seat]:
            card = self._card_in_hand(seat, card)
        kind = table.kind[card]
        led = self._led
        if led is not None:  # a trick is in progress
            if kind != led and self._plays_of_kind[seat][led]:
                raise IllegalAction("must-follow-suit", self._follow_message(card, led))
        else:
            self._led = kind
            self._leader = seat
        self._play(seat, card, kind)

    def _play(self, seat: int, card: str, kind: str) -> None:
        """``seat`` plays ``card`` (checked): it joins the trick, which ends with the last seat's card."""
        hand = self._hands[seat]
        at = hand.index(card)
        del hand[at]
        del self._plays[seat][at]  # the same position: the plays follow the hand's order
        self._plays_of_kind[seat][kind].remove(PLAY_ACTIONS[card])
        trick = self._trick
        trick.append(card)
        self._log.append(((seat, card), PLAYED))
        if len(trick) < self.num_seats:
            self._turn = (seat + 1) % self.num_seats
        else:
            self._finish_trick()

    @staticmethod
    def _follow_message(card: str, led: str) -> str:
        what = SUIT_WORDS[led]
        note = ""
        if card[0] in "QJ" and led != TRUMP:
            note = f"; {card} is a trump (every queen and jack is), not one of the {what}"
        return f"{what} were led and you hold {what}: you must follow{note}"

    def _finish_trick(self) -> None:
        table = self._table
        cards = self._trick
        leader = self._leader
        winner = (leader + table.winner_index(cards)) % self.num_seats
        points = sum(map(table.points.__getitem__, cards))
        side = self._side[winner]
        self._side_points[side] += points
        self._side_tricks[side] += 1
        record = (leader, tuple(cards), winner, points)
        self._tricks.append(record)
        self._log.append((record, TRICK))
        self._trick = []
        self._led = None
        self._leader = winner
        self._turn = winner
        if not self._hands[winner]:
            self._finish_hand()

    # ------------------------------------------------------------------ scoring

    def _finish_hand(self) -> None:
        n = self.num_seats
        points = list(self._side_points)
        if self._discard is not None:
            points[0] += sum(self._table.points[c] for c in self._discard)
        tricks = list(self._side_tricks)
        if self._contract == TEAMS:
            per_side = team_penalties(points, tricks)
        elif self._contract == SOLO:
            per_side = solo_penalties(points, tricks)
        else:  # misère: the widow counts for nobody
            per_side = misere_penalties(points)
        seat_penalty = None if per_side is None else [per_side[self._side[s]] for s in range(n)]
        tie = seat_penalty is None
        multiplier = self._multiplier
        if seat_penalty is None:
            seat_penalty = [0] * n
            if self.rules.tie_doubles:
                self._multiplier *= 2  # each further 60:60 in a row doubles again
        else:
            seat_penalty = [multiplier * p for p in seat_penalty]
            self._multiplier = 1
        for s in range(n):
            self._scores[s] += seat_penalty[s]
        record = {"deal": self._deal_no, "dealer": self._dealer, "soloist": self._soloist, "sides": self.sides(),
                  "points": points, "tricks": tricks, "tie": tie, "doubled": multiplier > 1,
                  "penalties": seat_penalty, "scores": list(self._scores)}
        if n == 3:
            record["contract"] = self._contract
        if multiplier > 2:  # x4, x8...: two or more 60:60 hands in a row (a plain doubling says only "doubled")
            record["multiplier"] = multiplier
        self._deals.append(record)
        self._templates = [None] * n  # they show the multiplier
        self._log.append((record, DEAL_END))
        if max(self._scores) >= self.rules.target:
            self._over = True
            self._turn = None
            self._log.append(({"type": "match_end", "scores": list(self._scores), "goats": self.goats(),
                               "ranks": self._ranks()}, None))
        else:
            self._dealer = (self._dealer + 1) % n
            self._deal_next()

    def goats(self) -> list[int]:
        """Seats that reached the target (the match's losers)."""
        return [s for s in range(self.num_seats) if self._scores[s] >= self.rules.target]

    def teams(self) -> list[list[int]]:
        """The match's fixed teams: partners with 4 players, every seat alone with 3 (sides change each hand)."""
        return [[0, 2], [1, 3]] if self.num_seats == 4 else [[s] for s in range(self.num_seats)]

    def _ranks(self) -> list[int]:
        """1 + the number of teams with fewer penalty points; partners share their team's rank."""
        team_points = [self._scores[team[0]] for team in self.teams()]
        return [1 + sum(1 for other in team_points if other < self._scores[s]) for s in range(self.num_seats)]

    def outcome(self) -> dict[str, Any]:
        return {
            "finished": self._over,
            "ranks": self._ranks(),
            "points": list(self._scores),
            "points_kind": "penalty",
            "teams": self.teams(),
            "goats": self.goats(),
            "deals": [_copy(d) for d in self._deals],
        }

    # ------------------------------------------------------------------ events

    def _log_deal(self) -> None:
        full = {"type": "deal", "deal": self._deal_no, "dealer": self._dealer, "doubled": self._multiplier > 1,
                "hands": [list(h) for h in self._hands], "soloist": self._soloist}
        if self._widow_holder is not None:
            full["widow_holder"] = self._widow_holder
        if self._widow is not None:
            full["widow"] = list(self._widow)
        self._log.append((full, DEALT))

    def _log_private(self, full: dict, owner: int, key: str) -> None:
        self._log.append((full, (owner, key)))

    def events(self, seat: Any, start: Any = 0) -> list[dict[str, Any]]:
        if seat is not None:
            self._check_seat(seat)
        found = []
        for full, per_seat in self._log[start:]:
            if per_seat == PLAYED:
                found.append({"type": "play", "seat": full[0], "card": full[1]})
            elif per_seat == TRICK:
                found.append({"type": "trick", "leader": full[0], "cards": [*full[1]], "winner": full[2],
                              "points": full[3]})
            elif per_seat == DEAL_END:
                found.append({"type": "deal_end", **_copy(full)})
            elif per_seat is FLAT:
                found.append(full.copy())
            elif per_seat is None or seat is None:
                found.append(_copy(full))
            elif per_seat == DEALT:
                found.append(views.deal_view(full, seat))
            else:
                owner, key = per_seat
                found.append(views.private_view(full, owner, key, seat))
        return found

    def _check_seat(self, seat: Any) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_seats:
            raise ValueError(f"seats are 0..{self.num_seats - 1}, not {seat!r}")


def _copy(value: Any) -> Any:
    """A copy of a JSON value, so callers can never change the state through what they were given."""
    if value.__class__ is dict:
        return {k: _copy(v) if v.__class__ in _CONTAINERS else v for k, v in value.items()}
    return [_copy(v) if v.__class__ in _CONTAINERS else v for v in value]


_CONTAINERS = (dict, list)
# (seats, contract, soloist) -> (side of each seat, the seats of each side); see KozelState._set_sides.
_SIDES: dict[tuple[int, str, int | None], tuple[list[int], list[list[int]]]] = {}


def new_match(rules: Rules, seed: int) -> KozelState:
    return KozelState(rules, seed)
