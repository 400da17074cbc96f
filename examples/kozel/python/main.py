"""Kozel starter bot (presets `kozel` and `kozel-3p`), written from docs/protocol.md and docs/rules/kozel.md.

Run it:   arena play kozel examples/kozel/python builtin:random --games 10
Protocol: one JSON object per line on stdin/stdout; stderr is our log.

Strategy in one breath: follow suit (the referee's legal_actions already enforce it), give points to a
partner who is sure to hold the trick, take tricks that carry points with the cheapest card that wins,
and otherwise throw the cheapest card. With 3 players: take the widow with five trumps or more (then
discard plain tens and kings), and in a misère (the widow declined) duck: points taken are penalties.
"""

import json
import sys

# ---------------------------------------------------------------------------------------------------
# Cards. A card is rank + suit text, e.g. "TH" = ten of hearts, "6C" = six of clubs.

POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}  # everything else (9 8 7 6) is worth nothing
PLAIN_ORDER = "ATK9876"  # plain-suit ranks, high to low (a deck has either the sevens or the sixes)


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def points(card):
    return POINTS.get(card[0], 0)


def trump_list(deck):
    """The permanent trumps, high to low. With the no-sixes deck 6C is gone and the diamonds end in 7D."""
    low = "7" if deck == "no-sixes" else "6"
    top = [] if deck == "no-sixes" else ["6C"]
    return top + ["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"] + [r + "D" for r in "ATK98" + low]


class Cards:
    """Knows which cards are trumps and how cards compare, for the deck in force (from `hello`)."""

    def __init__(self, deck):
        self.trumps = trump_list(deck)
        low = "7" if deck == "no-sixes" else "6"
        plain = {"C": "ATK98", "S": "ATK98" + low, "H": "ATK98" + low}
        if deck == "no-sixes":
            plain["C"] += "7"
        self.deck = set(self.trumps) | {r + s for s, ranks in plain.items() for r in ranks}

    def is_trump(self, card):
        return card in self.trumps

    def suit(self, card):
        """The suit a card follows: "trump" for every trump, else its own letter."""
        return "trump" if self.is_trump(card) else card[1]

    def strength(self, card):
        """Bigger = stronger. Any trump beats any plain card; inside a plain suit, the rank order decides."""
        if self.is_trump(card):
            return 100 - self.trumps.index(card)
        return 10 - PLAIN_ORDER.index(card[0])

    def beats(self, card, best, led):
        """Does `card` beat the trick's current best card `best`, when suit `led` was led?"""
        if self.is_trump(card) != self.is_trump(best):
            return self.is_trump(card)
        if not self.is_trump(card) and self.suit(card) != led:
            return False  # an off-suit plain card never wins
        return self.strength(card) > self.strength(best)


# ---------------------------------------------------------------------------------------------------
# Strategy. Everything we need is in the request's observation, so this bot ignores events.


def unseen_cards(cards, obs):
    """Cards that some other seat may still hold: the deck minus our hand, what was played, our own discard."""
    seen = set(obs["hand"]) | set(obs["trick"]) | set(obs.get("discard") or [])
    for trick in obs["tricks"]:
        seen |= set(trick["cards"])
    return cards.deck - seen


def sure_winner(cards, card, led, unseen):
    """True if no card still out can beat `card`. Conservative: any trump out beats a plain card."""
    return not any(cards.beats(other, card, led) for other in unseen)


def choose_lead(cards, obs, hand):
    unseen = unseen_cards(cards, obs)
    trumps = [c for c in hand if cards.is_trump(c)]
    plain = [c for c in hand if not cards.is_trump(c)]
    # With plenty of trumps, pull the opponents' trumps with a trump nobody can beat.
    if len(trumps) >= 3 and sure_winner(cards, max(trumps, key=cards.strength), "trump", unseen):
        return max(trumps, key=cards.strength)
    # A plain card that wins for sure (e.g. an ace once nothing out can trump it) collects points.
    winners = [c for c in plain if sure_winner(cards, c, cards.suit(c), unseen)]
    if winners:
        return max(winners, key=points)
    # Otherwise lead something cheap and let the others spend their cards.
    if plain:
        return min(plain, key=lambda c: (points(c), cards.strength(c)))
    return min(trumps, key=lambda c: (points(c), cards.strength(c)))


def choose_follow(cards, obs, hand):
    players, seat, leader, trick, led = obs["players"], obs["seat"], obs["leader"], obs["trick"], obs["led"]
    my_side = set(obs["sides"][obs["my_side"]])
    best_i = 0
    for i, card in enumerate(trick):
        if cards.beats(card, trick[best_i], led):
            best_i = i
    best, best_seat = trick[best_i], (leader + best_i) % players
    last = len(trick) == players - 1
    on_table = sum(points(c) for c in trick)
    unseen = unseen_cards(cards, obs)

    def cheapest(options):
        # Lose as few points as possible; among equal points keep the stronger cards for later.
        return min(options, key=lambda c: (points(c), cards.is_trump(c), cards.strength(c)))

    # A partner holds the trick for sure: give them our richest card (plain first: trumps are power).
    if best_seat in my_side and best_seat != seat and (last or sure_winner(cards, best, led, unseen)):
        return max(hand, key=lambda c: (points(c) - (5 if cards.is_trump(c) else 0), -cards.strength(c)))

    winning = [c for c in hand if cards.beats(c, best, led)]
    if best_seat not in my_side and winning:
        # A plain card of the led suit that wins brings its own points home: play the richest such card.
        plain = [c for c in winning if not cards.is_trump(c)]
        if plain and (last or sure_winner(cards, max(plain, key=points), led, unseen)):
            return max(plain, key=points)
        # Otherwise win with the lowest trump, if the trick is worth it. Trumps are our power, so
        # queens and the six of clubs are kept for rich tricks and jacks for tricks worth something.
        trump = min(winning, key=cards.strength)
        need = 10 if trump[0] in "Q6" else 4 if trump[0] == "J" else 1
        if on_table >= need:
            return trump
    return cheapest(hand)


def choose_discard(cards, obs, hand):
    """The soloist's discard counts for the soloist for sure: bury plain tens and kings we could lose."""
    def keep_value(card):
        if cards.is_trump(card) or card[0] == "A":
            return 100 + cards.strength(card)  # never throw away power
        ace_guard = card[0] == "T" and ("A" + card[1]) in hand  # a ten behind its own ace is safe
        return (50 if ace_guard else 0) - points(card)
    return sorted(hand, key=keep_value)[:2]


def takes_widow(cards, hand):
    """Playing alone against two needs power: five trumps or more."""
    return sum(1 for c in hand if cards.is_trump(c)) >= 5


def choose_misere(cards, obs, hand):
    """Everyone for themselves, penalised for points taken: lead the weakest card; when following, play the
    richest card that still loses the trick (let someone else take our points), else the weakest."""
    if not obs["trick"]:
        return min(hand, key=lambda c: (cards.strength(c), points(c)))
    trick, led = obs["trick"], obs["led"]
    best = trick[0]
    for card in trick[1:]:
        if cards.beats(card, best, led):
            best = card
    losing = [c for c in hand if not cards.beats(c, best, led)]
    if losing:
        return max(losing, key=lambda c: (points(c), cards.strength(c)))
    return min(hand, key=cards.strength)


def decide(request, cards):
    obs = request["observation"]
    legal = request.get("legal_actions") or []
    hand = [a["card"] for a in legal if a.get("type") == "play"]  # the cards we may play now
    decision = request.get("decision")
    if decision == "widow":
        return {"type": "widow", "take": takes_widow(cards, obs["hand"])}
    if decision in ("lead", "follow") and hand and obs.get("contract") == "misere":
        return {"type": "play", "card": choose_misere(cards, obs, hand)}
    if decision == "discard":
        # The widow joins the hand; add it in case the observation lists it apart.
        twelve = list(dict.fromkeys(obs["hand"] + (obs.get("widow") or [])))
        pick = set(choose_discard(cards, obs, twelve))
        for action in legal:
            if set(action.get("cards", [])) == pick:
                return action
    elif decision == "lead" and hand:
        return {"type": "play", "card": choose_lead(cards, obs, hand)}
    elif decision == "follow" and hand:
        return {"type": "play", "card": choose_follow(cards, obs, hand)}
    log("no plan for decision", decision, "- playing the first legal action")
    return legal[0]


# ---------------------------------------------------------------------------------------------------
# The protocol loop: read a line, answer requests, ignore everything we do not know.


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()  # an unflushed answer never arrives


def main():
    cards = Cards("no-sevens")
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            cards = Cards(message.get("rules", {}).get("deck", "no-sevens"))
            log("hello: preset", message.get("preset"), "seat", message.get("seat"))
            send({"type": "ready", "name": "kozel-python-starter"})
        elif kind == "request":
            send({"type": "action", "id": message["id"], "action": decide(message, cards)})
        elif kind == "error":
            log("referee error:", message.get("code"), message.get("message"))
        elif kind == "result":
            log("result: ranks", message.get("ranks"), "points", message.get("points"))
        elif kind == "goodbye":
            break
        # "event" and any unknown type: nothing to do, the observation carries what we need.


if __name__ == "__main__":
    main()
