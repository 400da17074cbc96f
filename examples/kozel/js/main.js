// Kozel starter bot (presets `kozel` and `kozel-3p`) for Node 20, no packages.
// Written from docs/protocol.md and docs/rules/kozel.md alone.
//
// Run it:   arena play kozel examples/kozel/js builtin:random --games 10
// Protocol: one JSON object per line on stdin/stdout; stderr is our log.
//
// Strategy: follow suit (legal_actions already enforce it), give points to a partner who is sure to
// hold the trick, take tricks that carry points with the cheapest card that wins, otherwise throw the
// cheapest card. With 3 players: take the widow with five trumps or more (then discard plain tens and
// kings), and in a misère (the widow declined) duck: points taken are penalties.
"use strict";
const readline = require("readline");

// ----------------------------------------------------------------------------------------------------
// Cards. A card is rank + suit text, e.g. "TH" = ten of hearts, "6C" = six of clubs.

const POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2 }; // 9 8 7 6 are worth nothing
const PLAIN_ORDER = "ATK9876"; // plain-suit ranks, high to low (a deck has either the sevens or the sixes)

const log = (...parts) => process.stderr.write(parts.join(" ") + "\n");
const points = (card) => POINTS[card[0]] || 0;

class Cards {
  // Knows which cards are trumps and how cards compare, for the deck in force (from `hello`).
  constructor(deck) {
    const low = deck === "no-sixes" ? "7" : "6";
    // The permanent trumps, high to low. With the no-sixes deck 6C is gone and diamonds end in 7D.
    this.trumps = (deck === "no-sixes" ? [] : ["6C"])
      .concat(["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"])
      .concat([..."ATK98" + low].map((r) => r + "D"));
    const plain = { C: "ATK98" + (deck === "no-sixes" ? "7" : ""), S: "ATK98" + low, H: "ATK98" + low };
    this.deck = new Set(this.trumps);
    for (const [suit, ranks] of Object.entries(plain)) for (const r of ranks) this.deck.add(r + suit);
  }
  isTrump(card) {
    return this.trumps.includes(card);
  }
  suit(card) {
    return this.isTrump(card) ? "trump" : card[1]; // every trump follows the trump "suit"
  }
  strength(card) {
    // Bigger = stronger. Any trump beats any plain card; inside a plain suit, rank order decides.
    return this.isTrump(card) ? 100 - this.trumps.indexOf(card) : 10 - PLAIN_ORDER.indexOf(card[0]);
  }
  beats(card, best, led) {
    // Does `card` beat the trick's current best card `best`, when suit `led` was led?
    if (this.isTrump(card) !== this.isTrump(best)) return this.isTrump(card);
    if (!this.isTrump(card) && this.suit(card) !== led) return false; // off-suit plain never wins
    return this.strength(card) > this.strength(best);
  }
}

// Smallest / largest element by a numeric key (ties: the first one).
const minBy = (xs, key) => xs.reduce((a, b) => (key(b) < key(a) ? b : a));
const maxBy = (xs, key) => xs.reduce((a, b) => (key(b) > key(a) ? b : a));

// ----------------------------------------------------------------------------------------------------
// Strategy. Everything we need is in the request's observation, so this bot ignores events.

function unseenCards(cards, obs) {
  // Cards another seat may still hold: the deck minus our hand, what was played and our own discard.
  const seen = new Set([...obs.hand, ...obs.trick, ...(obs.discard || [])]);
  for (const trick of obs.tricks) for (const c of trick.cards) seen.add(c);
  return [...cards.deck].filter((c) => !seen.has(c));
}

function sureWinner(cards, card, led, unseen) {
  // True if no card still out can beat `card`. Conservative: any trump out beats a plain card.
  return !unseen.some((other) => cards.beats(other, card, led));
}

function chooseLead(cards, obs, hand) {
  const unseen = unseenCards(cards, obs);
  const trumps = hand.filter((c) => cards.isTrump(c));
  const plain = hand.filter((c) => !cards.isTrump(c));
  const cheap = (c) => points(c) * 100 + cards.strength(c);
  // With plenty of trumps, pull the opponents' trumps with a trump nobody can beat.
  if (trumps.length >= 3) {
    const top = maxBy(trumps, (c) => cards.strength(c));
    if (sureWinner(cards, top, "trump", unseen)) return top;
  }
  // A plain card that wins for sure collects points.
  const winners = plain.filter((c) => sureWinner(cards, c, cards.suit(c), unseen));
  if (winners.length) return maxBy(winners, points);
  // Otherwise lead something cheap and let the others spend their cards.
  return minBy(plain.length ? plain : trumps, cheap);
}

function chooseFollow(cards, obs, hand) {
  const { players, seat, leader, trick, led } = obs;
  const mySide = obs.sides[obs.my_side];
  let bestI = 0;
  trick.forEach((card, i) => {
    if (cards.beats(card, trick[bestI], led)) bestI = i;
  });
  const best = trick[bestI];
  const bestSeat = (leader + bestI) % players;
  const last = trick.length === players - 1;
  const onTable = trick.reduce((sum, c) => sum + points(c), 0);
  const unseen = unseenCards(cards, obs);

  // A partner holds the trick for sure: give them our richest card (plain first: trumps are power).
  if (mySide.includes(bestSeat) && bestSeat !== seat && (last || sureWinner(cards, best, led, unseen))) {
    return maxBy(hand, (c) => (points(c) - (cards.isTrump(c) ? 5 : 0)) * 100 - cards.strength(c));
  }
  const winning = hand.filter((c) => cards.beats(c, best, led));
  if (!mySide.includes(bestSeat) && winning.length) {
    // A plain card of the led suit that wins brings its own points home: play the richest one.
    const plain = winning.filter((c) => !cards.isTrump(c));
    if (plain.length) {
      const rich = maxBy(plain, points);
      if (last || sureWinner(cards, rich, led, unseen)) return rich;
    }
    // Otherwise the lowest trump that wins, if the trick is worth it: queens and the six of clubs
    // only for rich tricks, jacks for tricks worth something, diamonds for any points.
    const trump = minBy(winning, (c) => cards.strength(c));
    const need = "Q6".includes(trump[0]) ? 10 : trump[0] === "J" ? 4 : 1;
    if (onTable >= need) return trump;
  }
  // Lose as few points as possible; keep trumps and strong cards for later.
  return minBy(hand, (c) => points(c) * 1000 + (cards.isTrump(c) ? 500 : 0) + cards.strength(c));
}

function chooseDiscard(cards, hand) {
  // The soloist's discard counts for the soloist for sure: bury plain tens and kings we could lose.
  const keepValue = (c) => {
    if (cards.isTrump(c) || c[0] === "A") return 100 + cards.strength(c); // never throw away power
    const guarded = c[0] === "T" && hand.includes("A" + c[1]); // a ten behind its own ace is safe
    return (guarded ? 50 : 0) - points(c);
  };
  return [...hand].sort((a, b) => keepValue(a) - keepValue(b)).slice(0, 2);
}

function takesWidow(cards, hand) {
  // Playing alone against two needs power: five trumps or more.
  return hand.filter((c) => cards.isTrump(c)).length >= 5;
}

function chooseMisere(cards, obs, hand) {
  // Everyone for themselves, penalised for points taken: lead the weakest card; when following, play
  // the richest card that still loses the trick (let someone else take our points), else the weakest.
  if (!obs.trick.length) return minBy(hand, (c) => cards.strength(c) * 100 + points(c));
  let best = obs.trick[0];
  for (const card of obs.trick.slice(1)) if (cards.beats(card, best, obs.led)) best = card;
  const losing = hand.filter((c) => !cards.beats(c, best, obs.led));
  if (losing.length) return maxBy(losing, (c) => points(c) * 1000 + cards.strength(c));
  return minBy(hand, (c) => cards.strength(c));
}

function decide(request, cards) {
  const obs = request.observation;
  const legal = request.legal_actions || [];
  const hand = legal.filter((a) => a.type === "play").map((a) => a.card); // cards we may play now
  if (request.decision === "widow") {
    return { type: "widow", take: takesWidow(cards, obs.hand) };
  }
  if ((request.decision === "lead" || request.decision === "follow") && hand.length && obs.contract === "misere") {
    return { type: "play", card: chooseMisere(cards, obs, hand) };
  }
  if (request.decision === "discard") {
    // The widow joins the hand; add it in case the observation lists it apart.
    const twelve = [...new Set([...obs.hand, ...(obs.widow || [])])];
    const pick = chooseDiscard(cards, twelve);
    const found = legal.find((a) => a.cards && a.cards.length === 2 && pick.every((c) => a.cards.includes(c)));
    if (found) return found;
  } else if (request.decision === "lead" && hand.length) {
    return { type: "play", card: chooseLead(cards, obs, hand) };
  } else if (request.decision === "follow" && hand.length) {
    return { type: "play", card: chooseFollow(cards, obs, hand) };
  }
  log("no plan for decision", request.decision, "- playing the first legal action");
  return legal[0];
}

// ----------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

let cards = new Cards("no-sevens");
const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    cards = new Cards((message.rules || {}).deck || "no-sevens");
    log("hello: preset", message.preset, "seat", message.seat);
    send({ type: "ready", name: "kozel-js-starter" });
  } else if (message.type === "request") {
    send({ type: "action", id: message.id, action: decide(message, cards) });
  } else if (message.type === "error") {
    log("referee error:", message.code, message.message);
  } else if (message.type === "result") {
    log("result: ranks", JSON.stringify(message.ranks), "points", JSON.stringify(message.points));
  } else if (message.type === "goodbye") {
    process.exit(0);
  }
  // "event" and any unknown type: nothing to do, the observation carries what we need.
});
input.on("close", () => process.exit(0)); // EOF: the referee is gone
