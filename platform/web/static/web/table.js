/* A live table: a person plays one seat of a match through the referee's own protocol lines.
 *
 * Everything drawn comes from the lines the referee sent this seat (GET lines/?after=K): the hello, the
 * events, the requests (with the seat's observation and legal actions), the result and the goodbye. An
 * answer is one protocol line (POST answer/). The plays offered for the chosen cards are those the rules
 * allow (POST check/ asks the site, which re-runs the match, without playing), and a play the rules refuse
 * is explained in the rules' words. No framework, nothing from elsewhere, and every text from a line goes in
 * with textContent.
 */
(function () {
  "use strict";

  var root = document.getElementById("table");
  if (!root) return;

  var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  var RED = { H: true, D: true };
  var CARD_POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2 };  // Bura's card points
  var FAST_MS = 250;   // while another seat thinks: the next request shows at once
  var SLOW_MS = 1000;  // while it is the person's move: only the clock and the status change
  var DONE = { finished: true, failed: true, cancelled: true, aborted: true };

  var seat = Number(root.getAttribute("data-seat"));
  var game = root.getAttribute("data-game");
  var names = JSON.parse((document.getElementById("table-names") || {}).textContent || "[]");
  var ui = {
    status: document.getElementById("table-status"),
    clock: document.getElementById("table-clock"),
    info: document.getElementById("table-info"),
    board: document.getElementById("table-board"),
    hand: document.getElementById("table-hand"),
    actions: document.getElementById("table-actions"),
    why: document.getElementById("table-why"),
    error: document.getElementById("table-error"),
    end: document.getElementById("table-end"),
    result: document.getElementById("table-result"),
    log: document.getElementById("table-log"),
  };
  var csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";

  var after = 0;
  var readySent = false;
  var request = null;      // the open request, or null
  var requestAt = 0;       // when it was sent (server seconds) …
  var offset = 0;          // … and the server's clock minus ours
  var answered = {};       // request ids answered (from this page, or before it was opened)
  var selected = [];       // the chosen cards of the hand (indices)
  var result = null;
  var closed = false;
  var status = "queued";
  var lastObservation = null;
  var hello = null;        // players, teams, rules and the clock (move time, bank) of the match
  var deals = 0;           // deals dealt so far: every game's deals are numbered from 1 here
  var toMove = null;       // the seat thinking now, as far as the lines tell (null: not known)
  var bankLeft = null;     // seconds left in the person's bank
  var checked = null;      // {key, refusals} of the plays the rules were asked about for the chosen cards
  var checkSeq = 0;

  // ---------------------------------------------------------------------------------------- helpers

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function cardText(card) {
    if (card === "??") return "🂠";
    if (card === "X") return "🃏";
    var rank = card.slice(0, -1), suit = card.slice(-1);
    return (rank === "T" ? "10" : rank) + (SUITS[suit] || suit);
  }

  function cardNode(card, tag) {
    var node = el(tag || "span", "card" + (RED[String(card).slice(-1)] ? " red" : "") + (card === "??" ? " back" : ""),
      cardText(String(card)));
    node.setAttribute("data-card", card);
    return node;
  }

  function cardsText(cards) {
    return (cards || []).map(function (c) { return cardText(String(c)); }).join(" ");
  }

  function points(cards) {
    return (cards || []).reduce(function (sum, c) { return sum + (CARD_POINTS[String(c)[0]] || 0); }, 0);
  }

  function capital(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }

  function clockText(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    return Math.floor(s / 60) + ":" + (s % 60 < 10 ? "0" : "") + (s % 60);
  }

  function row(label, content) {
    var line = el("div", "table-line");
    line.appendChild(el("span", "table-label", label));
    if (content instanceof Node) line.appendChild(content);
    else line.appendChild(el("span", "", content));
    return line;
  }

  function cardRow(cards) {
    var box = el("span", "cards");
    (cards || []).forEach(function (c) { box.appendChild(cardNode(c)); });
    return box;
  }

  function backs(n) {
    var box = el("span", "cards backs");
    for (var i = 0; i < n; i++) box.appendChild(cardNode("??"));
    box.setAttribute("aria-label", n + " cards");
    return box;
  }

  function cardsOf(action) {
    if (Array.isArray(action.cards)) return action.cards.map(String);
    if (typeof action.card === "string") return [action.card];
    return [];
  }

  function label(action) {
    var words = [action.type.replace(/_/g, " ")];
    var cards = cardsOf(action);
    if (cards.length) words.push(cardsText(cards));
    if (action.face_down === true) words.push("face down");
    Object.keys(action).forEach(function (k) {
      if (["type", "cards", "card", "face_down"].indexOf(k) < 0) words.push(k.replace(/_/g, " ") + " " + action[k]);
    });
    return words.join(" ");
  }

  // ---------------------------------------------------------------------------------------- who is who

  function players() { return (hello && hello.players) || names.length || 2; }

  function teams() {
    if (hello && Array.isArray(hello.teams) && hello.teams.length) return hello.teams;
    var each = [];
    for (var s = 0; s < players(); s++) each.push([s]);
    return each;
  }

  function sideOf(s) {
    return teams().filter(function (team) { return team.indexOf(s) >= 0; })[0] || [s];
  }

  // "you", "your partner greedy-kozel", or the bot's name (with its seat when it sits twice)
  function nameOf(s) {
    if (s === seat) return "you";
    var entry = names.filter(function (n) { return n.seat === s; })[0];
    var name = entry ? entry.name : "seat " + s;
    var twice = names.filter(function (n) { return n.name === name; }).length > 1;
    var partner = sideOf(seat).indexOf(s) >= 0;
    return (partner ? "your partner " : "") + name + (twice ? " (seat " + s + ")" : "");
  }

  // the person first in their own side: "you + your partner greedy-kozel (seat 2)"
  function sideName(team) {
    var order = team.indexOf(seat) >= 0 ? [seat].concat(team.filter(function (s) { return s !== seat; })) : team;
    return order.map(nameOf).join(" + ");
  }

  // At the start of a sentence: "You", "Your partner …"; a bot's name stays as its owner wrote it.
  function Who(s) {
    var name = nameOf(s);
    return /^you/.test(name) ? capital(name) : name;
  }

  // One value per side, named, the person's own side first: from a list per side, or per seat when a side's
  // seats agree.
  function perSide(values) {
    return namedValues(values).sort(function (a, b) { return (b.mine ? 1 : 0) - (a.mine ? 1 : 0); });
  }

  function namedValues(values) {
    var sides = teams();
    if (values.length === sides.length) {
      return sides.map(function (team, i) { return { name: sideName(team), value: values[i], mine: team.indexOf(seat) >= 0 }; });
    }
    if (values.length === players()) {
      var agree = sides.every(function (team) { return team.every(function (s) { return values[s] === values[team[0]]; }); });
      if (agree) {
        return sides.map(function (team) { return { name: sideName(team), value: values[team[0]], mine: team.indexOf(seat) >= 0 }; });
      }
      return values.map(function (v, s) { return { name: nameOf(s), value: v, mine: s === seat }; });
    }
    return values.map(function (v, i) { return { name: "#" + (i + 1), value: v, mine: false }; });
  }

  function scoreLine(values) {
    var box = el("span", "table-scores");
    perSide(values).forEach(function (entry, i) {
      if (i) box.appendChild(document.createTextNode(" · "));
      var part = el("span", "table-score" + (entry.mine ? " mine" : ""));
      part.appendChild(document.createTextNode(entry.name + " "));
      part.appendChild(el("strong", "", entry.value));
      box.appendChild(part);
    });
    return box;
  }

  // The match's end as the rules set it: "12 loses" (a penalty match), "2000 wins".
  function matchTarget() {
    var rules = (hello && hello.rules) || {};
    var m = /^penalty:(\d+)$/.exec(String(rules.match || ""));
    return m ? Number(m[1]) : null;
  }

  function scoreRows(obs) {
    var rows = [];
    if (game === "bura") {
      var lose = matchTarget();
      rows.push(["penalties", "penalty points (fewer is better" + (lose ? "; " + lose + " loses" : "") + ")"]);
      rows.push(["deals_won", "deals won"]);
      if (JSON.stringify(obs.match_points) !== JSON.stringify(obs.penalties)) rows.push(["match_points", "match points"]);
    } else if (game === "kozel") {
      rows.push(["scores", "penalty points (fewer is better" + (obs.target ? "; " + obs.target + " loses" : "") + ")"]);
      rows.push(["points_taken", "card points this deal"]);
      rows.push(["tricks_won", "tricks this deal"]);
    } else if (game === "burraco") {
      rows.push(["scores", "points (higher is better" + (obs.target ? "; " + obs.target + " wins" : "") + ")"]);
    }
    return rows;
  }

  // ---------------------------------------------------------------------------------------- drawing

  function drawInfo(obs) {
    ui.info.replaceChildren();
    ui.info.appendChild(row("Decision", obs.decision || "—"));
    if (deals) ui.info.appendChild(row("deal", String(deals)));
    ["trump", "trump_card", "contract", "stock", "multiplier"].forEach(function (k) {
      if (obs[k] === undefined || obs[k] === null) return;
      var value = k === "trump" ? (SUITS[obs[k]] || obs[k]) : k === "trump_card" ? cardText(obs[k]) : obs[k];
      ui.info.appendChild(row(k.replace(/_/g, " "), value));
    });
    scoreRows(obs).forEach(function (pair) {
      if (Array.isArray(obs[pair[0]])) ui.info.appendChild(row(pair[1], scoreLine(obs[pair[0]])));
    });
    var others = el("div", "table-seats");
    (obs.hand_sizes || []).forEach(function (n, s) {
      if (s === seat) return;
      var box = el("div", "table-seat" + (toMove === s ? " to-move" : ""));
      box.appendChild(el("span", "table-label", nameOf(s)));
      box.appendChild(backs(n));
      others.appendChild(box);
    });
    ui.info.appendChild(others);
  }

  // Bura: what the seat may know of the tricks taken (face-up cards, and face-down ones it was shown), and
  // so whether a claim of the target would be right.
  function drawPiles(obs) {
    var piles = obs.piles || [];
    var target = obs.claim_target;
    var mine = sideOf(seat);
    var known = [], count = 0;
    mine.forEach(function (s) {
      var pile = piles[s] || {};
      known = known.concat(pile.face_up || [], pile.face_down_known || []);
      count += pile.count || 0;
    });
    var box = el("div", "table-piles");
    var line = el("span", "");
    line.appendChild(known.length ? cardRow(known) : el("span", "muted", "no cards yet"));
    var sure = points(known);
    var unseen = count - known.length;
    line.appendChild(el("span", "table-points", " " + sure + " points you can count" +
      (unseen > 0 ? " · " + unseen + " card" + (unseen === 1 ? "" : "s") + " face down you were not shown" : "")));
    box.appendChild(row(mine.length > 1 ? "your side's tricks" : "your tricks", line));
    teams().forEach(function (team) {
      if (team.indexOf(seat) >= 0) return;
      var up = [], n = 0;
      team.forEach(function (s) { up = up.concat((piles[s] || {}).face_up || []); n += (piles[s] || {}).count || 0; });
      box.appendChild(row(sideName(team) + "'s tricks", n + " cards taken" + (up.length ? ", " + points(up) +
        " points face up" : "")));
    });
    if (target) {
      var claim = el("p", "table-claim" + (obs.decision === "claim" ? " now" : ""));
      claim.textContent = "Claim when your " + (mine.length > 1 ? "side's " : "") + "tricks hold " + target +
        " points or more: you can count " + sure + (unseen > 0 ? ", plus whatever the " + unseen +
        (unseen === 1 ? " unseen card holds" : " unseen cards hold") : "") + ". A false claim loses the deal with a penalty.";
      box.appendChild(claim);
    }
    ui.board.appendChild(box);
  }

  function drawBoard(obs) {
    ui.board.replaceChildren();
    if (game === "bura" && obs.trick && obs.trick.plays) {
      obs.trick.plays.forEach(function (p) {
        var down = p.face_down === true ? p.cards.map(function () { return "??"; }) : p.cards;
        ui.board.appendChild(row("on the table, " + nameOf(p.seat) + (p.face_down === true ? " (face down)" : ""), cardRow(down)));
      });
    } else if (game === "kozel" && Array.isArray(obs.trick)) {
      obs.trick.forEach(function (card, i) {
        ui.board.appendChild(row("on the table, " + nameOf((obs.leader + i) % obs.players), cardRow([card])));
      });
    } else if (game === "burraco") {
      ui.board.appendChild(row("discard pile", cardRow(obs.discard_pile || [])));
      (obs.melds || []).forEach(function (m) {
        ui.board.appendChild(row("meld " + m.id + (m.team === obs.team ? " (yours)" : ""), cardRow(m.cards)));
      });
    }
    if (game === "bura" && obs.piles) drawPiles(obs);
  }

  function drawHand(obs) {
    ui.hand.replaceChildren();
    (obs.hand || []).forEach(function (card, i) {
      var button = cardNode(card, "button");
      button.type = "button";
      button.setAttribute("aria-pressed", selected.indexOf(i) >= 0 ? "true" : "false");
      if (selected.indexOf(i) >= 0) button.className += " chosen";
      button.disabled = !request;
      button.addEventListener("click", function () { choose(i); });
      ui.hand.appendChild(button);
    });
  }

  function chosenCards() {
    var hand = (lastObservation && lastObservation.hand) || [];
    return selected.map(function (i) { return String(hand[i]); });
  }

  // every card of ``part`` in ``whole``, counted (a double deck has two of a card)
  function within(part, whole) {
    var left = whole.slice();
    return part.every(function (c) {
      var at = left.indexOf(c);
      if (at < 0) return false;
      left.splice(at, 1);
      return true;
    });
  }

  function sameCards(a, b) { return a.length === b.length && within(a, b); }

  // The plays that may be offered for the chosen cards: the listed legal actions that take them, or (Burraco
  // lists none) the plays built from them, which the rules are asked about before any is offered.
  function candidates() {
    if (!request) return [];
    var chosen = chosenCards();
    var legal = request.legal_actions;
    if (Array.isArray(legal)) {
      return legal.filter(function (a) { var c = cardsOf(a); return !c.length || within(chosen, c); });
    }
    var obs = request.observation || {};
    if (request.decision === "draw") return [{ type: "draw" }, { type: "take_pile" }];
    var built = [];
    if (chosen.length) built.push({ type: "meld", cards: chosen });
    (obs.melds || []).forEach(function (m) {
      if (m.team === obs.team && chosen.length) built.push({ type: "add", meld: m.id, cards: chosen });
    });
    if (chosen.length === 1) built.push({ type: "discard", card: chosen[0] });
    return built;
  }

  // The play the chosen cards would make when no listed action takes them: shaped like the listed ones,
  // so the rules can say why not (Kozel: "you must follow"; Bura: a set that is no set).
  function wouldBe() {
    var legal = request && request.legal_actions;
    var chosen = chosenCards();
    if (!Array.isArray(legal) || !chosen.length) return null;
    var shape = legal.filter(function (a) { return cardsOf(a).length; })[0];
    if (!shape) return null;
    var play = { type: shape.type };
    if (Array.isArray(shape.cards)) play.cards = chosen;
    else play.card = chosen[0];
    return play;
  }

  function keyOf() { return (request ? request.id : "") + "|" + selected.join(","); }

  // Ask the rules about ``plays`` for the chosen cards; draw again with their answer.
  function askRules(plays) {
    var key = keyOf();
    var seq = ++checkSeq;
    fetch(root.getAttribute("data-check-url"), {
      method: "POST", credentials: "same-origin", body: JSON.stringify({ id: request.id, actions: plays }),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).catch(function () { return null; }).then(function (body) {
      if (seq !== checkSeq || key !== keyOf()) return;  // the choice changed meanwhile
      // no answer: every play is offered, and the referee decides
      checked = { key: key, plays: plays, refusals: body ? body.refusals : plays.map(function () { return null; }) };
      drawActions();
    });
  }

  function drawActions() {
    ui.actions.replaceChildren();
    ui.why.replaceChildren();
    if (!request) return;
    var found = candidates();
    var listed = Array.isArray(request.legal_actions);
    var key = keyOf();
    if (!listed || (!found.length && selected.length)) {
      var plays = found.length ? found : [wouldBe()].filter(Boolean);
      if (plays.length && (!checked || checked.key !== key)) {
        ui.actions.appendChild(el("span", "muted", "Checking by the rules…"));
        askRules(plays);
        return;
      }
      var reasons = [];
      found = [];
      plays.forEach(function (play, i) {
        var refusal = checked && checked.refusals[i];
        if (!refusal) { if (!listed) found.push(play); return; }
        var said = label(play) + ": " + refusal.message;
        if (reasons.indexOf(said) < 0) reasons.push(said);
      });
      reasons.forEach(function (text) {
        var line = el("p", "table-refusal", "Not allowed — " + text);
        ui.why.appendChild(line);
      });
    }
    found.forEach(function (action, n) {
      var button = el("button", "table-action", (n < 9 ? (n + 1) + ". " : "") + label(action));
      button.type = "button";
      button.setAttribute("data-action", JSON.stringify(action));
      button.addEventListener("click", function () { send(action); });
      ui.actions.appendChild(button);
    });
    if (!found.length && !ui.why.childNodes.length) {
      ui.actions.appendChild(el("span", "muted", selected.length ? "No play takes these cards together: choose again." :
        "Choose cards from your hand."));
    } else if (!found.length) {
      ui.actions.appendChild(el("span", "muted", "Choose other cards."));
    }
  }

  function draw() {
    var obs = lastObservation;
    if (!obs) return;
    drawInfo(obs);
    drawBoard(obs);
    drawHand(obs);
    drawActions();
  }

  function log(text) {
    ui.log.appendChild(el("li", "", text));
  }

  // ---------------------------------------------------------------------------------------- what happened

  function dealEndText(e) {
    var words = "Deal " + deals + " ends: ";
    var claimer = e.claimer !== undefined && e.claimer !== null ? Who(e.claimer) : null;
    if (e.reason === "claim") words += (claimer || "a seat") + " claimed with enough points and won it";
    else if (e.reason === "false-claim") words += (claimer || "a seat") + " claimed without enough points: a false claim";
    else if (e.reason === "combination") words += "a winning combination was shown" + (e.combination ? " (" + e.combination + ")" : "");
    else if (e.reason === "void") words += "the cards ran out with no claim: the deal counts for nothing";
    else if (e.reason === "played-out") words += "every card was played";
    else if (e.reason === "redeal") words += "dealt again";
    else if (e.ended_by === "closing") words += Who(e.closed_by) + " closed";
    else if (e.ended_by === "stock") words += "the stock ran out";
    else if (e.ended_by === "stalemate") words += "nobody could go on";
    else if (Array.isArray(e.points) && game === "kozel") {
      words += "card points " + perSide(e.points).map(function (p) { return p.name + " " + p.value; }).join(", ");
    } else words += e.reason || e.ended_by || "over";
    if (Array.isArray(e.winners) && e.winners.length && e.reason !== "claim") {
      words += "; won by " + e.winners.map(function (t) { return sideName(teams()[t] || [t]); }).join(" and ");
    }
    if (Array.isArray(e.penalties) && e.penalties.some(function (p) { return p; })) {
      words += "; penalty points " + perSide(e.penalties).filter(function (p) { return p.value; })
        .map(function (p) { return p.name + " +" + p.value; }).join(", ");
    }
    var totals = Array.isArray(e.totals) && e.totals.every(function (t) { return typeof t === "number"; }) ? e.totals :
      Array.isArray(e.scores) && e.scores.every(function (t) { return typeof t === "number"; }) ? e.scores : null;
    if (totals) words += "; the match stands " + perSide(totals).map(function (p) { return p.name + " " + p.value; }).join(", ");
    return words + ".";
  }

  function eventText(e) {
    var who = e.seat !== undefined && e.seat !== null ? Who(e.seat) : "";
    var cards = e.cards ? cardsText(e.cards) : e.card ? cardText(String(e.card)) : "";
    switch (e.type) {
      case "deal":
        return "Deal " + deals + (e.dealer !== undefined ? ", dealt by " + nameOf(e.dealer) : "") +
          (e.trump ? "; trumps are " + (SUITS[e.trump] || e.trump) : "") + ".";
      case "play":
        var count = (e.cards || [e.card]).length;
        return who + (e.lead ? " led " : " played ") + (e.face_down === true ? (e.seat === seat ? cards + " face down" :
          count + " card" + (count === 1 ? "" : "s") + " face down") : cards) + ".";
      case "trick": {
        var taker = e.taker !== undefined ? e.taker : e.winner;
        // Bura: face-down cards come per seat that threw them ({seat, cards}), hidden unless this seat saw them
        var down = (e.face_down || []).reduce(function (all, part) {
          return all.concat(part && Array.isArray(part.cards) ? part.cards : [part]);
        }, []);
        var taken = e.face_up ? e.face_up.concat(down) : e.cards || [];
        var worth = e.points !== undefined ? e.points : e.face_up ? points(e.face_up) : null;
        return Who(taker) + " took the trick" + (taken.length ? " (" + cardsText(taken) + ")" : "") +
          (worth !== null ? ", " + worth + " points" + (down.length ? " face up" : "") : "") + ".";
      }
      case "draw":
        if (Array.isArray(e.draws)) {
          var mine = e.draws.filter(function (d) { return d.seat === seat; })[0];
          return "Cards drawn" + (mine ? ": you drew " + cardText(String(mine.card)) : "") + "; " + e.stock + " left in the stock.";
        }
        return who + " drew " + (e.card && e.card !== "??" ? cardText(String(e.card)) : "a card") + " from the stock.";
      case "claim":
        return who + " claimed " + e.target + " with " + e.points + " points: " + (e.correct ? "right." : "wrong, a false claim.");
      case "pass":
        return who + " did not claim.";
      case "combination":
        return who + " showed " + e.name + (cards ? " (" + cards + ")" : "") + ".";
      case "deal_end":
        return dealEndText(e);
      case "match_end":
        return "The match is over.";
      case "meld":
        return who + " melded " + cards + ".";
      case "add":
        return who + " added " + cards + " to meld " + ((e.meld || {}).id) + ".";
      case "discard":
        return who + " discarded " + cards + (e.closing ? " and closed" : "") + ".";
      case "take_pile":
        return who + " took the discard pile (" + (e.cards || []).length + " cards).";
      case "pozzetto":
        return who + " took a pozzetto.";
      default:
        return (who ? who + ": " : "") + e.type.replace(/_/g, " ") + (cards ? " " + cards : "");
    }
  }

  // Who thinks next, from what just happened: the next seat after a play or a discard, the taker after a
  // trick, the same seat after a draw or a meld; unknown after a deal.
  function follow(e) {
    var n = players();
    if (e.type === "play" && e.seat !== undefined) toMove = (e.seat + 1) % n;
    else if (e.type === "trick") toMove = e.taker !== undefined ? e.taker : e.winner;
    else if (e.type === "discard" && game === "burraco") toMove = (e.seat + 1) % n;
    else if (["draw", "take_pile", "meld", "add", "pass", "combination"].indexOf(e.type) >= 0 && e.seat !== undefined) toMove = e.seat;
    else if (e.type === "deal") toMove = e.first !== undefined ? e.first : null;
    else if (e.type === "deal_end" || e.type === "match_end") toMove = null;
  }

  // ---------------------------------------------------------------------------------------- playing

  function choose(index) {
    if (!request) return;
    var at = selected.indexOf(index);
    if (at >= 0) selected.splice(at, 1);
    else selected.push(index);
    ui.error.textContent = "";
    var legal = request.legal_actions;
    if (Array.isArray(legal) && selected.length) {
      var chosen = chosenCards();
      var exact = legal.filter(function (a) { return sameCards(cardsOf(a), chosen); });
      var wider = legal.filter(function (a) { var c = cardsOf(a); return c.length > chosen.length && within(chosen, c); });
      if (exact.length === 1 && !wider.length) { send(exact[0]); return; }  // one way to play it: play it
    }
    draw();
  }

  function post(body) {
    return fetch(root.getAttribute("data-answer-url"), {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    }).then(function (response) {
      return response.json().then(function (data) { return { ok: response.ok, data: data }; });
    });
  }

  function send(action) {
    if (!request || answered[request.id]) return;
    var id = request.id;
    answered[id] = true;
    ui.actions.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    ui.status.textContent = "Sent: " + label(action);
    post({ type: "action", id: id, action: action }).then(function (answer) {
      if (answer.ok) {
        if (request && request.id === id) {
          tick();  // the bank as the decision left it
          request = null;
        }
        toMove = players() === 2 ? 1 - seat : null;  // until the lines say who
        selected = [];
        checked = null;
        draw();
        tick();
        root.setAttribute("data-answered", String(id));
        return;
      }
      delete answered[id];
      var error = answer.data.error || {};
      ui.error.textContent = "Refused: " + (error.message || "the site said no") + (error.code ? " (" + error.code + ")" : "");
      ui.status.textContent = "Your move.";
      draw();
    }).catch(function () {
      delete answered[id];
      ui.error.textContent = "The site could not be reached: try again.";
      draw();
    });
  }

  function sayReady() {
    if (readySent) return;
    readySent = true;
    post({ type: "ready" }).then(function (answer) { if (!answer.ok) readySent = false; },
      function () { readySent = false; });
  }

  // The clock: the move time and the bank apart, and who is to move.
  function tick() {
    var time = hello && hello.time;
    if (!time || closed || DONE[status] || !readySent) {
      ui.clock.hidden = true;
      return;
    }
    var move = time.move_ms / 1000;
    ui.clock.replaceChildren();
    var low = false;
    if (request) {
      var spent = (Date.now() / 1000 + offset) - requestAt;
      var moveLeft = Math.max(0, move - spent);
      var bankAtStart = Math.max(0, request.time_left_ms / 1000 - move);
      bankLeft = Math.max(0, bankAtStart - Math.max(0, spent - move));
      low = moveLeft + bankLeft < 15;
      ui.clock.appendChild(el("strong", "clock-turn", "Your move"));
      ui.clock.appendChild(el("span", "clock-move" + (moveLeft <= 0 ? " spent" : ""),
        moveLeft > 0 ? "move time " + clockText(moveLeft) : "move time used: on your bank"));
      root.setAttribute("data-to-move", String(seat));
    } else {
      var who = toMove !== null && toMove !== seat ? Who(toMove) + " is thinking…" :
        toMove === seat ? "Your move is coming…" : "The others are thinking…";
      ui.clock.appendChild(el("strong", "clock-turn", who));
      root.setAttribute("data-to-move", toMove === null ? "" : String(toMove));
    }
    if (bankLeft === null) bankLeft = time.bank_ms / 1000;
    ui.clock.appendChild(el("span", "clock-bank", "your bank " + clockText(bankLeft)));
    ui.clock.hidden = false;
    ui.clock.className = "table-clock" + (low ? " low" : "") + (request ? " mine" : "");
  }

  function endWords(r) {
    var ranks = r.ranks || [];
    var mine = ranks[seat];
    var best = Math.min.apply(null, ranks);
    var everyone = ranks.every(function (x) { return x === best; });
    var words = everyone ? "A draw" : mine === best ? "You won" : "You lost";
    if (Array.isArray(r.points)) {
      words += " (" + (r.points_kind === "penalty" ? "penalty points, fewer is better: " : "points: ") +
        perSide(r.points).map(function (p) { return p.name + " " + p.value; }).join(", ") + ")";
    }
    var verdict = (r.verdicts || [])[seat];
    if (verdict && verdict !== "ok") words += ". Your seat's verdict: " + verdict;
    return words + ".";
  }

  function take(entry) {
    var m = entry.m;
    if (m.type === "hello") {
      hello = m;
      log("The match begins: you are seat " + m.seat + " of " + m.players + ".");
      sayReady();
    } else if (m.type === "event") {
      var e = m.event || {};
      if (e.type === "deal") deals += 1;
      log(eventText(e));
      follow(e);
    } else if (m.type === "request") {
      request = m;
      requestAt = entry.t;
      selected = [];
      checked = null;
      toMove = seat;
      lastObservation = m.observation;
    } else if (m.type === "error") {
      log("The referee: " + m.message);
    } else if (m.type === "result") {
      request = null;
      result = m;
    } else if (m.type === "goodbye") {
      closed = true;
      log("The referee: " + m.reason + ".");
    }
  }

  function showEnd() {
    ui.end.hidden = false;
    var resign = document.getElementById("table-resign-form");
    if (resign) resign.remove();  // nothing left to give up
    document.getElementById("table-play").hidden = true;  // the last position asked about is no longer the table's
    ui.clock.hidden = true;
    if (status === "aborted") {
      ui.result.textContent = "The worker playing this match stopped. A person's moves cannot be replayed, so " +
        "the match was aborted: it has no result and counts for nothing. Sit down again with Rematch.";
      document.getElementById("table-replay").hidden = true;
    } else if (result) {
      ui.result.textContent = endWords(result);
    } else {
      ui.result.textContent = "The match is " + status + ".";
    }
    root.setAttribute("data-over", status);
  }

  // A poll that never answers (a dropped connection) must not stop the next ones: it is given up after this.
  var POLL_TIMEOUT_MS = 15000;

  function fetchWithin(url, ms) {
    var control = window.AbortController ? new AbortController() : null;
    var timer = control ? setTimeout(function () { control.abort(); }, ms) : null;
    return fetch(url, { credentials: "same-origin", signal: control ? control.signal : undefined })
      .finally(function () { if (timer) clearTimeout(timer); });
  }

  function poll() {
    var url = root.getAttribute("data-lines-url") + "?after=" + after + (request ? "&open=" + request.id : "");
    fetchWithin(url, POLL_TIMEOUT_MS).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (answer) {
      var body = answer.body;
      if (!answer.ok) {
        ui.status.textContent = (body.error && body.error.message) || "The table is unavailable; trying again…";
        return SLOW_MS * 2;
      }
      offset = body.now - Date.now() / 1000;
      status = body.status;
      if (body.ready) readySent = true;  // said before this page was opened: saying it again is refused
      body.lines.forEach(take);
      after += body.lines.length;
      (body.answered || []).forEach(function (id) { answered[id] = true; });
      if (request && answered[request.id]) request = null;
      if (request) {
        ui.status.textContent = "Your move.";
        root.setAttribute("data-decision", request.decision || (request.observation || {}).decision || "");
        root.setAttribute("data-request", String(request.id));
      } else if (!closed && status === "running") {
        ui.status.textContent = readySent ? "Waiting for the others." : "Sitting down…";
      } else if (status === "queued") {
        ui.status.textContent = "Waiting for a worker to deal…";
      }
      if (body.lines.length) draw();
      tick();
      if (DONE[status] && (closed || !body.lines.length)) {
        ui.status.textContent = status === "aborted" ? "The match was aborted." : "The match is over.";
        showEnd();
        return null;
      }
      return request ? SLOW_MS : FAST_MS;
    }).catch(function () {
      ui.status.textContent = "The site could not be reached; trying again…";
      return SLOW_MS * 2;
    }).then(function (wait) {
      if (wait !== null) setTimeout(poll, wait);
    });
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (/^[1-9]$/.test(e.key)) {
      var buttons = ui.actions.querySelectorAll("button.table-action:not([disabled])");
      var chosen = buttons[Number(e.key) - 1];
      if (chosen) {
        e.preventDefault();
        chosen.click();
      }
    }
  });
  setInterval(tick, 500);
  poll();
})();
