"""Burraco starter bot (presets `burraco` and `burraco-2p`), written from docs/protocol.md and
docs/rules/burraco.md alone.

Run it:   arena play burraco-2p examples/burraco/python builtin:random --games 4
Protocol: one JSON object per line on stdin/stdout; stderr is our log.

Burraco requests carry no legal_actions list (`null`: too many to list), so this bot builds its actions
from the rules page and checks them itself. One turn is several requests: `draw`, then `play` again
and again (one meld, add or discard each) until a discard ends the turn.

Strategy: always draw from the stock; put down every natural set (3+ of a rank) and run (3+ in a
suit); add natural cards to our team's melds; spend a wild (joker or two) only to make a burraco or to
empty a small hand; discard a card that helps neither the opponents' melds nor our own hand. Every
meld keeps the "last card" rule, so the bot can always end its turn with a legal discard.
"""

import json
import sys
from collections import Counter

ORDER = "A23456789TJQK"  # sequence order; the ace is 1 here and 14 after the king


RULES = {}  # the rules in force, from hello.rules


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def is_wild(card):
    return card == "X" or card[0] == "2"  # jokers and every two


def value(card):
    """Card values for scoring: joker 30, two 20, ace 15, K..8 10, 7..3 5."""
    if card == "X":
        return 30
    return {"2": 20, "A": 15}.get(card[0], 10 if card[0] in "KQJT98" else 5)


def rank_number(rank, high_ace=False):
    return 14 if rank == "A" and high_ace else ORDER.index(rank) + 1


def minus(hand, cards):
    """The hand without `cards` (a multiset: two decks mean identical cards)."""
    left = Counter(hand)
    left.subtract(cards)
    return list(left.elements())


# ---------------------------------------------------------------------------------------------------
# Reading the table.


def sequence_span(meld):
    """(low, high) of a sequence meld on the table, counting the wild's place (ace low = 1, high = 14)."""
    wild = meld.get("wild") or {}
    for i, card in enumerate(meld["cards"]):
        face = wild["stands_for"] if wild and wild.get("index") == i else card
        if face[0] != "A":  # an ace alone does not say whether it is low or high
            low = rank_number(face[0]) - i
            return low, low + len(meld["cards"]) - 1
    return None


def fits(card, meld):
    """Can this natural card be added to `meld` (which end of a run, or a set of its rank)?"""
    if is_wild(card):
        return False
    if meld["kind"] == "set":
        return card[0] == meld["rank"] and len(meld["cards"]) < 9
    span = sequence_span(meld)
    if span is None or card[1] != meld["suit"]:
        return False
    low, high = span
    if card[0] == "A":
        return low == 2 or high == 13
    return rank_number(card[0]) in (low - 1, high + 1)


def wild_fits(meld):
    """A wild may join a meld that has none yet, if there is room for it."""
    if meld.get("wild"):
        return False
    if meld["kind"] == "set":
        return len(meld["cards"]) < 9
    span = sequence_span(meld)
    return span is not None and (span[0] > 1 or span[1] < 14)


def natural_melds(hand):
    """New melds without wilds: sets of 3+ cards of one rank and runs of 3+ in one suit."""
    naturals = [c for c in hand if not is_wild(c)]
    found = []
    for rank, n in Counter(c[0] for c in naturals).items():
        if n >= 3:
            found.append([c for c in naturals if c[0] == rank][:9])
    for suit in "SHDC":
        # One card per rank (a run may not hold duplicates); the ace counts high (Q-K-A), since a
        # low ace (A-2-3) would need the two, which we keep as a wild.
        by_number = {rank_number(c[0], high_ace=True): c for c in naturals if c[1] == suit}
        run = []
        for number in range(3, 16):
            if number in by_number:
                run.append(by_number[number])
                continue
            if len(run) >= 3:
                found.append(run)
            run = []
    return sorted(found, key=len, reverse=True)


def near_melds(hand):
    """Two natural cards that a wild would turn into a meld: a pair (5S 5D + wild) or two cards of a
    suit one or two ranks apart (5S 6S or 5S 7S + wild)."""
    naturals = sorted({c for c in hand if not is_wild(c)}, key=lambda c: (c[1], rank_number(c[0], True)))
    found = []
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if a[0] == b[0] or (a[1] == b[1] and 0 < rank_number(b[0], True) - rank_number(a[0], True) <= 2):
                found.append([a, b])
    return sorted(found, key=lambda pair: -sum(value(c) for c in pair))  # unload valuable cards first


def meldable(hand, melds):
    """How many cards of `hand` could go down without a wild: natural melds plus cards fitting `melds`."""
    used = Counter()
    for cards in natural_melds(hand):
        if not (Counter(cards) - (Counter(hand) - used)):  # still available
            used.update(cards)
    rest = minus(hand, list(used.elements()))
    return sum(used.values()) + sum(1 for c in rest if any(fits(c, m) for m in melds))


# ---------------------------------------------------------------------------------------------------
# Strategy.


def choose_draw(obs):
    """Take the discard pile when its cards meld at once with ours, else draw from the stock."""
    pile = obs["discard_pile"]
    ours = [m for m in obs["melds"] if m["team"] == obs["team"]]
    if not pile:
        return {"type": "draw"}
    gain = meldable(obs["hand"] + pile, ours) - meldable(obs["hand"], ours)
    if gain >= 3 or (gain >= 2 and len(pile) <= 4):
        return {"type": "take_pile"}
    return {"type": "draw"}


class Turn:
    def __init__(self, obs):
        self.obs = obs
        self.hand = obs["hand"]
        self.team = obs["team"]
        self.ours = [m for m in obs["melds"] if m["team"] == self.team]
        self.theirs = [m for m in obs["melds"] if m["team"] != self.team]
        self.pozzetto_taken = obs["pozzetti"][self.team]["taken"]

    def can_end_turn_after(self, used, makes_burraco=False):
        """The "last card" rule: after melding `used` we must still be able to end the turn."""
        left = minus(self.hand, used)
        if self.obs.get("last_turn"):  # stock_end=finish_turn: this turn's discard ends the hand
            return bool(left) and left != [self.obs.get("locked_card")]
        if not left:
            return not self.pozzetto_taken  # melding everything takes the pozzetto direct
        if len(left) >= 2:
            return True
        last = left[0]
        if last == self.obs.get("locked_card"):
            return False  # the card of a one-card pile taken this turn may not be discarded
        if not self.pozzetto_taken:
            return True  # that discard takes the pozzetto
        has_burraco = makes_burraco or any(m["burraco"] for m in self.ours)
        return has_burraco and not is_wild(last)  # that discard closes the hand

    def set_allowed(self, cards):
        """duplicate_sets=forbidden: no second set of a rank the team holds as a set (runs are free)."""
        naturals = {c[0] for c in cards if not is_wild(c)}
        if RULES.get("duplicate_sets") != "forbidden" or len(naturals) != 1:
            return True
        return not any(m["kind"] == "set" and naturals & {c[0] for c in m["cards"] if not is_wild(c)}
                       for m in self.ours)

    def next_meld_or_add(self):
        for cards in natural_melds(self.hand):
            if self.set_allowed(cards) and self.can_end_turn_after(cards, makes_burraco=len(cards) >= 7):
                return {"type": "meld", "cards": cards}
        # Grow the longest melds first: seven cards make a burraco.
        for meld in sorted(self.ours, key=lambda m: -len(m["cards"])):
            for card in self.hand:
                if fits(card, meld) and self.can_end_turn_after([card], len(meld["cards"]) + 1 >= 7):
                    return {"type": "add", "meld": meld["id"], "cards": [card]}
        return self.wild_play()

    def wild_play(self):
        """Wilds are precious (and cost 20 or 30 left in hand): use one to turn a 6-card meld into a
        burraco, to start a meld from a pair or a broken run while the hand is big, or to unload a
        small hand."""
        wilds = [c for c in self.hand if is_wild(c)]
        if not wilds:
            return None
        wild = min(wilds, key=value)  # a two before a joker
        small_hand, big_hand = len(self.hand) <= 5, len(self.hand) >= 8
        for meld in sorted(self.ours, key=lambda m: -len(m["cards"])):
            grows = len(meld["cards"]) == 6 or small_hand
            if wild_fits(meld) and grows and self.can_end_turn_after([wild], len(meld["cards"]) + 1 >= 7):
                return {"type": "add", "meld": meld["id"], "cards": [wild]}
        if small_hand or big_hand:
            for pair in near_melds(self.hand):
                cards = [*pair, wild]
                if self.set_allowed(cards) and self.can_end_turn_after(cards):
                    return {"type": "meld", "cards": cards}
        return None

    def discard(self):
        """Give nothing away: not a wild, not a card the opponents can add to their melds, not a card
        that works with our hand; among the rest, the most valuable (it would count against us)."""
        hand, locked = self.hand, self.obs.get("locked_card")
        allowed = [c for c in hand if c != locked or hand.count(c) > 1] or hand
        if self.pozzetto_taken and len(hand) == 1:
            allowed = [c for c in allowed if not is_wild(c)] or allowed  # a closing discard is never wild

        def danger(card):
            helps_them = any(fits(card, m) for m in self.theirs)
            ours = any(fits(card, m) for m in self.ours)
            neighbours = sum(1 for pair in near_melds(hand) if card in pair)
            return (is_wild(card), helps_them, ours, neighbours, -value(card))

        return {"type": "discard", "card": min(allowed, key=danger)}


def decide(request):
    obs, decision = request["observation"], request.get("decision")
    if decision == "draw":
        return choose_draw(obs)
    if decision == "play":
        turn = Turn(obs)
        return turn.next_meld_or_add() or turn.discard()
    log("no plan for decision", decision)
    return {"type": "draw"}


# ---------------------------------------------------------------------------------------------------
# The protocol loop: read a line, answer requests, ignore everything we do not know.


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()  # an unflushed answer never arrives


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            RULES.update(message.get("rules") or {})
            log("hello: preset", message.get("preset"), "seat", message.get("seat"), "teams", message.get("teams"))
            send({"type": "ready", "name": "burraco-python-starter"})
        elif kind == "request":
            send({"type": "action", "id": message["id"], "action": decide(message)})
        elif kind == "error":
            log("referee error:", message.get("code"), message.get("message"))
        elif kind == "result":
            log("result: ranks", message.get("ranks"), "points", message.get("points"))
        elif kind == "goodbye":
            break
        # "event" and unknown types: nothing to do, the observation carries what we need.


if __name__ == "__main__":
    main()
