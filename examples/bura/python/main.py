"""Bura-family starter bot: every preset (bura, bura-3p, burkozel, burkozel-pairs, echki-6) in one file.

Written from docs/protocol.md and docs/rules/bura.md alone.
Run it:   arena play bura examples/bura/python builtin:random --games 10
Protocol: one JSON object per line on stdin/stdout; stderr is our log.

Strategy: lead one cheap plain card; when answering, take the trick cheaply if points are on the table
(plain cards first, trumps only for rich tricks), help a partner who holds the trick, otherwise throw the
cheapest cards face down (so the taker cannot count them); claim only when the cards we can see in our
team's piles already prove the target (31, or 61).
"""

import json
import sys

POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}  # 9 8 7 6 are worth nothing
RANKS = "ATKQJ9876"  # inside a suit, high to low


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def points(cards):
    return sum(POINTS.get(card[0], 0) for card in cards)


def strength(card):
    """Higher = stronger inside its suit."""
    return len(RANKS) - RANKS.index(card[0])


def beats_card(mine, theirs, trump):
    """A card is beaten by a higher card of its suit or, if it is not a trump, by any trump."""
    if mine[1] == theirs[1]:
        return strength(mine) > strength(theirs)
    return mine[1] == trump


def beats_set(mine, theirs, trump):
    """Does our set beat theirs? Each of their cards needs its own beater: a bipartite matching
    (Kuhn's augmenting paths, as the rules page says), not a sort."""
    match = {}  # index of their card -> index of our card beating it

    def augment(i, seen):
        for j, card in enumerate(theirs):
            if j not in seen and beats_card(mine[i], card, trump):
                seen.add(j)
                if j not in match or augment(match[j], seen):
                    match[j] = i
                    return True
        return False

    return len(mine) == len(theirs) and all(augment(i, set()) for i in range(len(mine)))


def cost(cards, trump):
    """How much a set "costs" to give away or to spend: its points, and trumps are worth keeping."""
    return points(cards) + sum(8 + strength(c) for c in cards if c[1] == trump) + sum(strength(c) for c in cards) / 100


# ---------------------------------------------------------------------------------------------------
# Strategy. Each function gets the request's observation and its legal actions.


def choose_lead(obs, legal):
    """Lead a single cheap plain card: it risks little and makes the others show their hands.
    (A lead of several cards of one suit is legal too; a stronger bot would use it.)"""
    singles = [a for a in legal if len(a["cards"]) == 1]
    return min(singles or legal, key=lambda a: cost(a["cards"], obs["trump"]))


def choose_respond(obs, legal, teams):
    trump, trick, seat = obs["trump"], obs["trick"], obs["seat"]
    best = trick["best_cards"]
    my_team = next((t for t in teams if seat in t), [seat])
    partner_holds = trick["best_seat"] in my_team
    # Everything in the trick goes to its taker; cards played face down by others are unknown ("??").
    on_table = sum(points(p["cards"]) for p in trick["plays"] if "??" not in p["cards"])
    played = {p["seat"] for p in trick["plays"]} | {seat}
    last = not any(n > 0 and s not in played for s, n in enumerate(obs["hand_sizes"]))  # nobody answers after us

    face_up = [a for a in legal if not a.get("face_down")]
    face_down = [a for a in legal if a.get("face_down")]

    if partner_holds:
        # Our partner takes the trick: give them points, face up so the team can count them.
        if last:
            return max(face_up, key=lambda a: points(a["cards"]) - cost(a["cards"], trump) / 10)
        return min(face_up, key=lambda a: cost(a["cards"], trump))

    winners = [a for a in face_up if beats_set(a["cards"], best, trump)]
    plain = [a for a in winners if not any(c[1] == trump for c in a["cards"])]
    if plain:
        # Winning without trumps: our own cards come back in the trick, so when nobody can answer
        # after us bank the richest set, otherwise the cheapest one that wins.
        if last:
            return max(plain, key=lambda a: points(a["cards"]))
        return min(plain, key=lambda a: cost(a["cards"], trump))
    if winners:
        cheapest = min(winners, key=lambda a: cost(a["cards"], trump))
        spent = sum(1 for c in cheapest["cards"] if c[1] == trump)
        # Spend trumps only where it pays: 10+ points per trump used, or a trump ten/ace we bank anyway.
        if on_table >= 10 * spent or points(cheapest["cards"]) >= 10:
            return cheapest
    # Not taking it: throw the cheapest cards, face down when allowed (the taker cannot count them).
    return min(face_down or face_up, key=lambda a: cost(a["cards"], trump))


def known_team_points(obs, team):
    """Points we can prove are in our team's piles: face-up cards and the face-down ones we may see."""
    return sum(points(obs["piles"][s]["face_up"]) + points(obs["piles"][s]["face_down_known"]) for s in team)


def choose_claim(obs, legal, teams):
    team = next((t for t in teams if obs["seat"] in t), [obs["seat"]])
    target = obs.get("claim_target") or 31
    if known_team_points(obs, team) >= target:
        log("claiming: we can show", known_team_points(obs, team), ">=", target)
        return {"type": "claim"}
    return {"type": "pass"}  # a false claim costs double; an unknown face-down card counts zero


def decide(request, teams):
    obs, legal, decision = request["observation"], request.get("legal_actions") or [], request.get("decision")
    if decision == "lead" and legal:
        return choose_lead(obs, legal)
    if decision == "respond" and legal:
        return choose_respond(obs, legal, obs.get("teams") or teams)
    if decision == "claim":
        return choose_claim(obs, legal, obs.get("teams") or teams)
    log("no plan for decision", decision, "- playing the first legal action")
    return legal[0]


# ---------------------------------------------------------------------------------------------------
# The protocol loop: read a line, answer requests, ignore everything we do not know.


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()  # an unflushed answer never arrives


def main():
    teams = []
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            teams = message.get("teams") or []
            log("hello: preset", message.get("preset"), "seat", message.get("seat"), "rules", message.get("rules"))
            send({"type": "ready", "name": "bura-python-starter"})
        elif kind == "request":
            send({"type": "action", "id": message["id"], "action": decide(message, teams)})
        elif kind == "error":
            log("referee error:", message.get("code"), message.get("message"))
        elif kind == "result":
            log("result: ranks", message.get("ranks"), "points", message.get("points"))
        elif kind == "goodbye":
            break
        # "event" and unknown types: nothing to do, the observation carries what we need.


if __name__ == "__main__":
    main()
