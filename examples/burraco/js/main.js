// Burraco starter bot (presets `burraco` and `burraco-2p`) for Node 20, no packages.
// Written from docs/protocol.md and docs/rules/burraco.md alone.
//
// Run it:   arena play burraco-2p examples/burraco/js builtin:random --games 4
// Protocol: one JSON object per line on stdin/stdout; stderr is our log.
//
// Burraco requests carry no legal_actions list (null: too many to list), so this bot builds its
// actions from the rules page and checks them itself. One turn is several requests: `draw`, then
// `play` again and again (one meld, add or discard each) until a discard ends the turn.
//
// Strategy: take the discard pile when its cards meld at once, else draw from the stock; put down
// every natural set and run; add natural cards to our team's melds; spend a wild (joker or two) to
// make a burraco, to start a meld while the hand is big, or to empty a small hand; discard a card
// that helps neither the opponents' melds nor our own hand. Every meld keeps the "last card" rule,
// so the bot can always end its turn with a legal discard.
"use strict";
const readline = require("readline");

const RULES = {}; // the rules in force, from hello.rules
const ORDER = "A23456789TJQK"; // sequence order; the ace is 1 here and 14 after the king

const log = (...parts) => process.stderr.write(parts.join(" ") + "\n");
const isWild = (card) => card === "X" || card[0] === "2"; // jokers and every two
const rankNumber = (rank, highAce = false) => (rank === "A" && highAce ? 14 : ORDER.indexOf(rank) + 1);

function value(card) {
  // Card values for scoring: joker 30, two 20, ace 15, K..8 10, 7..3 5.
  if (card === "X") return 30;
  if (card[0] === "2") return 20;
  if (card[0] === "A") return 15;
  return "KQJT98".includes(card[0]) ? 10 : 5;
}

function minus(hand, cards) {
  // The hand without `cards` (a multiset: two decks mean identical cards).
  const left = [...hand];
  for (const c of cards) {
    const i = left.indexOf(c);
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

function countBy(xs, key) {
  const counts = new Map();
  for (const x of xs) counts.set(key(x), (counts.get(key(x)) || 0) + 1);
  return counts;
}

// ----------------------------------------------------------------------------------------------------
// Reading the table.

function sequenceSpan(meld) {
  // [low, high] of a sequence meld on the table, counting the wild's place (ace low 1, high 14).
  const wild = meld.wild;
  for (let i = 0; i < meld.cards.length; i++) {
    const face = wild && wild.index === i ? wild.stands_for : meld.cards[i];
    if (face[0] !== "A") {
      const low = rankNumber(face[0]) - i; // an ace alone does not say whether it is low or high
      return [low, low + meld.cards.length - 1];
    }
  }
  return null;
}

function fits(card, meld) {
  // Can this natural card be added to `meld` (which end of a run, or a set of its rank)?
  if (isWild(card)) return false;
  if (meld.kind === "set") return card[0] === meld.rank && meld.cards.length < 9;
  const span = sequenceSpan(meld);
  if (!span || card[1] !== meld.suit) return false;
  const [low, high] = span;
  if (card[0] === "A") return low === 2 || high === 13;
  const n = rankNumber(card[0]);
  return n === low - 1 || n === high + 1;
}

function wildFits(meld) {
  // A wild may join a meld that has none yet, if there is room for it.
  if (meld.wild) return false;
  if (meld.kind === "set") return meld.cards.length < 9;
  const span = sequenceSpan(meld);
  return span !== null && (span[0] > 1 || span[1] < 14);
}

function naturalMelds(hand) {
  // New melds without wilds: sets of 3+ cards of one rank and runs of 3+ in one suit.
  const naturals = hand.filter((c) => !isWild(c));
  const found = [];
  for (const [rank, n] of countBy(naturals, (c) => c[0])) {
    if (n >= 3) found.push(naturals.filter((c) => c[0] === rank).slice(0, 9));
  }
  for (const suit of "SHDC") {
    // One card per rank (a run may not hold duplicates); the ace counts high (Q-K-A), since a low
    // ace (A-2-3) would need the two, which we keep as a wild.
    const byNumber = new Map(naturals.filter((c) => c[1] === suit).map((c) => [rankNumber(c[0], true), c]));
    let run = [];
    for (let n = 3; n <= 15; n++) {
      if (byNumber.has(n)) {
        run.push(byNumber.get(n));
        continue;
      }
      if (run.length >= 3) found.push(run);
      run = [];
    }
  }
  return found.sort((a, b) => b.length - a.length);
}

function nearMelds(hand) {
  // Two natural cards a wild would turn into a meld: a pair (5S 5D + wild) or two cards of a suit
  // one or two ranks apart (5S 6S or 5S 7S + wild). Most valuable first, to unload them.
  const naturals = [...new Set(hand.filter((c) => !isWild(c)))];
  const found = [];
  naturals.forEach((a, i) => {
    for (const b of naturals.slice(i + 1)) {
      const gap = Math.abs(rankNumber(b[0], true) - rankNumber(a[0], true));
      if (a[0] === b[0] || (a[1] === b[1] && gap > 0 && gap <= 2)) found.push([a, b]);
    }
  });
  return found.sort((x, y) => value(y[0]) + value(y[1]) - value(x[0]) - value(x[1]));
}

function meldable(hand, melds) {
  // How many cards of `hand` could go down without a wild: natural melds plus cards fitting `melds`.
  let rest = [...hand];
  let count = 0;
  for (const cards of naturalMelds(hand)) {
    const after = minus(rest, cards);
    if (after.length === rest.length - cards.length) {
      rest = after; // still available: count it
      count += cards.length;
    }
  }
  return count + rest.filter((c) => melds.some((m) => fits(c, m))).length;
}

// ----------------------------------------------------------------------------------------------------
// Strategy.

function chooseDraw(obs) {
  // Take the discard pile when its cards meld at once with ours, else draw from the stock.
  const pile = obs.discard_pile;
  const ours = obs.melds.filter((m) => m.team === obs.team);
  if (!pile.length) return { type: "draw" };
  const gain = meldable(obs.hand.concat(pile), ours) - meldable(obs.hand, ours);
  return gain >= 3 || (gain >= 2 && pile.length <= 4) ? { type: "take_pile" } : { type: "draw" };
}

class Turn {
  constructor(obs) {
    this.obs = obs;
    this.hand = obs.hand;
    this.ours = obs.melds.filter((m) => m.team === obs.team);
    this.theirs = obs.melds.filter((m) => m.team !== obs.team);
    this.pozzettoTaken = obs.pozzetti[obs.team].taken;
  }

  canEndTurnAfter(used, makesBurraco = false) {
    // The "last card" rule: after melding `used` we must still be able to end the turn.
    const left = minus(this.hand, used);
    if (this.obs.last_turn) {
      // stock_end=finish_turn: this turn's discard ends the hand, so keep a card to discard
      return left.length > 1 || (left.length === 1 && left[0] !== this.obs.locked_card);
    }
    if (left.length === 0) return !this.pozzettoTaken; // melding everything takes the pozzetto direct
    if (left.length >= 2) return true;
    if (left[0] === this.obs.locked_card) return false; // a one-card pile's card may not be discarded
    if (!this.pozzettoTaken) return true; // that discard takes the pozzetto
    const hasBurraco = makesBurraco || this.ours.some((m) => m.burraco);
    return hasBurraco && !isWild(left[0]); // that discard closes the hand
  }

  setAllowed(cards) {
    // duplicate_sets=forbidden: no second set of a rank the team holds as a set (runs are free)
    const ranks = new Set(cards.filter((c) => !isWild(c)).map((c) => c[0]));
    if (RULES.duplicate_sets !== "forbidden" || ranks.size !== 1) return true;
    return !this.ours.some((m) => m.kind === "set" && m.cards.some((c) => !isWild(c) && ranks.has(c[0])));
  }

  nextMeldOrAdd() {
    for (const cards of naturalMelds(this.hand)) {
      if (this.setAllowed(cards) && this.canEndTurnAfter(cards, cards.length >= 7)) return { type: "meld", cards };
    }
    // Grow the longest melds first: seven cards make a burraco.
    const longest = [...this.ours].sort((a, b) => b.cards.length - a.cards.length);
    for (const meld of longest) {
      for (const card of this.hand) {
        if (fits(card, meld) && this.canEndTurnAfter([card], meld.cards.length + 1 >= 7)) {
          return { type: "add", meld: meld.id, cards: [card] };
        }
      }
    }
    return this.wildPlay(longest);
  }

  wildPlay(longest) {
    // Wilds are precious (and cost 20 or 30 left in hand): use one to turn a 6-card meld into a
    // burraco, to start a meld from a pair or a broken run while the hand is big, or to unload a
    // small hand.
    const wilds = this.hand.filter(isWild);
    if (!wilds.length) return null;
    const wild = wilds.reduce((a, b) => (value(b) < value(a) ? b : a)); // a two before a joker
    const small = this.hand.length <= 5;
    const big = this.hand.length >= 8;
    for (const meld of longest) {
      const grows = meld.cards.length === 6 || small;
      if (wildFits(meld) && grows && this.canEndTurnAfter([wild], meld.cards.length + 1 >= 7)) {
        return { type: "add", meld: meld.id, cards: [wild] };
      }
    }
    if (small || big) {
      for (const pair of nearMelds(this.hand)) {
        const cards = [...pair, wild];
        if (this.setAllowed(cards) && this.canEndTurnAfter(cards)) return { type: "meld", cards };
      }
    }
    return null;
  }

  discard() {
    // Give nothing away: not a wild, not a card the opponents can add to their melds, not a card that
    // works with our hand; among the rest, the most valuable (it would count against us).
    const hand = this.hand;
    const locked = this.obs.locked_card;
    let allowed = hand.filter((c) => c !== locked || hand.filter((d) => d === c).length > 1);
    if (!allowed.length) allowed = hand;
    if (this.pozzettoTaken && hand.length === 1) {
      const natural = allowed.filter((c) => !isWild(c)); // a closing discard is never wild
      if (natural.length) allowed = natural;
    }
    const near = nearMelds(hand);
    const danger = (card) => [
      isWild(card) ? 1 : 0,
      this.theirs.some((m) => fits(card, m)) ? 1 : 0,
      this.ours.some((m) => fits(card, m)) ? 1 : 0,
      near.filter((pair) => pair.includes(card)).length,
      -value(card),
    ];
    const less = (a, b) => {
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
      return false;
    };
    const card = allowed.reduce((a, b) => (less(danger(b), danger(a)) ? b : a));
    return { type: "discard", card };
  }
}

function decide(request) {
  const obs = request.observation;
  if (request.decision === "draw") return chooseDraw(obs);
  if (request.decision === "play") {
    const turn = new Turn(obs);
    return turn.nextMeldOrAdd() || turn.discard();
  }
  log("no plan for decision", request.decision);
  return { type: "draw" };
}

// ----------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    Object.assign(RULES, message.rules || {});
    log("hello: preset", message.preset, "seat", message.seat, "teams", JSON.stringify(message.teams));
    send({ type: "ready", name: "burraco-js-starter" });
  } else if (message.type === "request") {
    send({ type: "action", id: message.id, action: decide(message) });
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
