// Bura-family starter bot for Node 20, no packages: every preset (bura, bura-3p, burkozel,
// burkozel-pairs, echki-6) in one file. Written from docs/protocol.md and docs/rules/bura.md alone.
//
// Run it:   arena play bura examples/bura/js builtin:random --games 10
// Protocol: one JSON object per line on stdin/stdout; stderr is our log.
//
// Strategy: lead one cheap plain card; when answering, take the trick cheaply if points are on the
// table (plain cards first, trumps only for rich tricks), help a partner who holds the trick, otherwise
// throw the cheapest cards face down (so the taker cannot count them); claim only when the cards we
// can see in our team's piles already prove the target (31, or 61).
"use strict";
const readline = require("readline");

const POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2 }; // 9 8 7 6 are worth nothing
const RANKS = "ATKQJ9876"; // inside a suit, high to low

const log = (...parts) => process.stderr.write(parts.join(" ") + "\n");
const points = (cards) => cards.reduce((sum, c) => sum + (POINTS[c[0]] || 0), 0);
const strength = (card) => RANKS.length - RANKS.indexOf(card[0]); // higher = stronger in its suit
const minBy = (xs, key) => xs.reduce((a, b) => (key(b) < key(a) ? b : a));
const maxBy = (xs, key) => xs.reduce((a, b) => (key(b) > key(a) ? b : a));

function beatsCard(mine, theirs, trump) {
  // A card is beaten by a higher card of its suit or, if it is not a trump, by any trump.
  if (mine[1] === theirs[1]) return strength(mine) > strength(theirs);
  return mine[1] === trump;
}

function beatsSet(mine, theirs, trump) {
  // Each of their cards needs its own beater: a bipartite matching (Kuhn's augmenting paths, as the
  // rules page says), not a sort.
  if (mine.length !== theirs.length) return false;
  const match = new Map(); // index of their card -> index of our card beating it
  const augment = (i, seen) => {
    for (let j = 0; j < theirs.length; j++) {
      if (seen.has(j) || !beatsCard(mine[i], theirs[j], trump)) continue;
      seen.add(j);
      if (!match.has(j) || augment(match.get(j), seen)) {
        match.set(j, i);
        return true;
      }
    }
    return false;
  };
  return mine.every((_, i) => augment(i, new Set()));
}

function cost(cards, trump) {
  // How much a set "costs" to give away or to spend: its points, and trumps are worth keeping.
  let total = points(cards);
  for (const c of cards) total += (c[1] === trump ? 8 + strength(c) : 0) + strength(c) / 100;
  return total;
}

// ----------------------------------------------------------------------------------------------------
// Strategy. Each function gets the request's observation and its legal actions.

function chooseLead(obs, legal) {
  // Lead a single cheap plain card: it risks little and makes the others show their hands.
  // (A lead of several cards of one suit is legal too; a stronger bot would use it.)
  const singles = legal.filter((a) => a.cards.length === 1);
  return minBy(singles.length ? singles : legal, (a) => cost(a.cards, obs.trump));
}

function chooseRespond(obs, legal, teams) {
  const { trump, trick, seat } = obs;
  const myTeam = teams.find((t) => t.includes(seat)) || [seat];
  const cheapest = (actions) => minBy(actions, (a) => cost(a.cards, trump));
  // Everything in the trick goes to its taker; cards played face down by others are unknown ("??").
  const onTable = trick.plays.filter((p) => !p.cards.includes("??")).reduce((s, p) => s + points(p.cards), 0);
  const played = new Set(trick.plays.map((p) => p.seat).concat([seat]));
  const last = !obs.hand_sizes.some((n, s) => n > 0 && !played.has(s)); // nobody answers after us
  const faceUp = legal.filter((a) => !a.face_down);
  const faceDown = legal.filter((a) => a.face_down);

  if (myTeam.includes(trick.best_seat)) {
    // Our partner takes the trick: give them points, face up so the team can count them.
    return last ? maxBy(faceUp, (a) => points(a.cards) - cost(a.cards, trump) / 10) : cheapest(faceUp);
  }
  const winners = faceUp.filter((a) => beatsSet(a.cards, trick.best_cards, trump));
  const plain = winners.filter((a) => !a.cards.some((c) => c[1] === trump));
  if (plain.length) {
    // Winning without trumps: our own cards come back in the trick, so when nobody can answer after
    // us bank the richest set, otherwise the cheapest one that wins.
    return last ? maxBy(plain, (a) => points(a.cards)) : cheapest(plain);
  }
  if (winners.length) {
    const pick = cheapest(winners);
    const spent = pick.cards.filter((c) => c[1] === trump).length;
    // Spend trumps only where it pays: 10+ points per trump used, or a trump ten/ace we bank anyway.
    if (onTable >= 10 * spent || points(pick.cards) >= 10) return pick;
  }
  // Not taking it: throw the cheapest cards, face down when allowed (the taker cannot count them).
  return cheapest(faceDown.length ? faceDown : faceUp);
}

function chooseClaim(obs, teams) {
  // Points we can prove are in our team's piles: face-up cards and the face-down ones we may see.
  const team = teams.find((t) => t.includes(obs.seat)) || [obs.seat];
  const known = team.reduce((s, p) => s + points(obs.piles[p].face_up) + points(obs.piles[p].face_down_known), 0);
  const target = obs.claim_target || 31;
  if (known >= target) {
    log("claiming: we can show", known, ">=", target);
    return { type: "claim" };
  }
  return { type: "pass" }; // a false claim costs double; an unknown face-down card counts zero
}

function decide(request, helloTeams) {
  const obs = request.observation;
  const legal = request.legal_actions || [];
  const teams = obs.teams || helloTeams;
  if (request.decision === "lead" && legal.length) return chooseLead(obs, legal);
  if (request.decision === "respond" && legal.length) return chooseRespond(obs, legal, teams);
  if (request.decision === "claim") return chooseClaim(obs, teams);
  log("no plan for decision", request.decision, "- playing the first legal action");
  return legal[0];
}

// ----------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

let teams = [];
const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    teams = message.teams || [];
    log("hello: preset", message.preset, "seat", message.seat, "rules", JSON.stringify(message.rules));
    send({ type: "ready", name: "bura-js-starter" });
  } else if (message.type === "request") {
    send({ type: "action", id: message.id, action: decide(message, teams) });
  } else if (message.type === "error") {
    log("referee error:", message.code, message.message);
  } else if (message.type === "result") {
    log("result: ranks", JSON.stringify(message.ranks), "points", JSON.stringify(message.points));
  } else if (message.type === "goodbye") {
    process.exit(0);
  }
  // "event" and unknown types: nothing to do, the observation carries what we need.
});
input.on("close", () => process.exit(0)); // EOF: the referee is gone
