/* A live table: a person plays one seat of a match through the referee's own protocol lines.
 *
 * Everything drawn comes from the lines the referee sent this seat (GET lines/?after=K): the hello, the
 * events, the requests (with the seat's observation and legal actions), the result and the goodbye. An
 * answer is one protocol line (POST answer/); the site checks it by the rules first, so a refused click
 * shows the rules' reason and the person may choose again. No framework, nothing from elsewhere, and every
 * text from a line goes in with textContent.
 */
(function () {
  "use strict";

  var root = document.getElementById("table");
  if (!root) return;

  var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  var RED = { H: true, D: true };
  var FAST_MS = 250;   // while another seat thinks: the next request shows at once
  var SLOW_MS = 1000;  // while it is the person's move: only the clock and the status change
  var DONE = { finished: true, failed: true, cancelled: true, aborted: true };

  var seat = Number(root.getAttribute("data-seat"));
  var game = root.getAttribute("data-game");
  var ui = {
    status: document.getElementById("table-status"),
    clock: document.getElementById("table-clock"),
    info: document.getElementById("table-info"),
    board: document.getElementById("table-board"),
    hand: document.getElementById("table-hand"),
    actions: document.getElementById("table-actions"),
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
  var answered = {};       // request ids answered from this page
  var selected = [];       // the chosen cards of the hand (indices)
  var result = null;
  var closed = false;
  var status = "queued";
  var lastObservation = null;

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

  // ---------------------------------------------------------------------------------------- drawing

  function drawInfo(obs) {
    ui.info.replaceChildren();
    ui.info.appendChild(row("Decision", obs.decision || "—"));
    ["trump", "trump_card", "contract", "stock", "claim_target", "multiplier", "target", "deal"].forEach(function (k) {
      if (obs[k] === undefined || obs[k] === null) return;
      var value = k === "trump" ? (SUITS[obs[k]] || obs[k]) : k === "trump_card" ? cardText(obs[k]) : obs[k];
      ui.info.appendChild(row(k.replace(/_/g, " "), value));
    });
    ["match_points", "scores", "points_taken", "tricks_won", "deals_won", "penalties"].forEach(function (k) {
      if (Array.isArray(obs[k])) ui.info.appendChild(row(k.replace(/_/g, " "), obs[k].join(" – ")));
    });
    var others = el("div", "table-seats");
    (obs.hand_sizes || []).forEach(function (n, s) {
      if (s === seat) return;
      var box = el("div", "table-seat" + (obs.to_move === s ? " to-move" : ""));
      box.appendChild(el("span", "table-label", "seat " + s));
      box.appendChild(backs(n));
      others.appendChild(box);
    });
    ui.info.appendChild(others);
  }

  function drawBoard(obs) {
    ui.board.replaceChildren();
    if (game === "bura" && obs.trick && obs.trick.plays) {
      obs.trick.plays.forEach(function (p) {
        var down = p.face_down === true ? p.cards.map(function () { return "??"; }) : p.cards;
        ui.board.appendChild(row("on the table, seat " + p.seat + (p.face_down === true ? " (face down)" : ""), cardRow(down)));
      });
    } else if (game === "kozel" && Array.isArray(obs.trick)) {
      obs.trick.forEach(function (card, i) {
        ui.board.appendChild(row("on the table, seat " + ((obs.leader + i) % obs.players), cardRow([card])));
      });
    } else if (game === "burraco") {
      ui.board.appendChild(row("discard pile", cardRow(obs.discard_pile || [])));
      (obs.melds || []).forEach(function (m) {
        ui.board.appendChild(row("meld " + m.id + (m.team === obs.team ? " (yours)" : ""), cardRow(m.cards)));
      });
    }
    if (game === "bura" && obs.piles) {
      var mine = obs.piles[seat] || {};
      ui.board.appendChild(row("your tricks", (mine.count || 0) + " cards taken"));
    }
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

  // The choices now: the listed legal actions that fit the chosen cards, or (Burraco lists none) the
  // actions built from the chosen cards.
  function choices() {
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

  function drawActions() {
    ui.actions.replaceChildren();
    if (!request) return;
    var found = choices();
    found.forEach(function (action, n) {
      var button = el("button", "table-action", (n < 9 ? (n + 1) + ". " : "") + label(action));
      button.type = "button";
      button.setAttribute("data-action", JSON.stringify(action));
      button.addEventListener("click", function () { send(action); });
      ui.actions.appendChild(button);
    });
    if (!found.length) {
      ui.actions.appendChild(el("span", "muted", Array.isArray(request.legal_actions) ?
        "No play takes these cards together: choose again." : "Choose cards from your hand."));
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

  function eventText(e) {
    var who = e.seat === seat ? "you" : (e.seat !== undefined ? "seat " + e.seat : "");
    var cards = e.cards ? " " + cardsText(e.cards) : e.card ? " " + cardText(String(e.card)) : "";
    return (who ? who + ": " : "") + e.type.replace(/_/g, " ") + cards;
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
        if (request && request.id === id) request = null;
        selected = [];
        draw();
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

  function tick() {
    if (!request) {
      ui.clock.hidden = true;
      return;
    }
    var spent = (Date.now() / 1000 + offset) - requestAt;
    var left = Math.max(0, request.time_left_ms / 1000 - spent);
    var minutes = Math.floor(left / 60), seconds = Math.floor(left % 60);
    ui.clock.hidden = false;
    ui.clock.textContent = "Your clock: " + minutes + ":" + (seconds < 10 ? "0" : "") + seconds + " left";
    ui.clock.className = "table-clock" + (left < 15 ? " low" : "");
  }

  function endWords(r) {
    var ranks = r.ranks || [];
    var mine = ranks[seat];
    var best = Math.min.apply(null, ranks);
    var everyone = ranks.every(function (x) { return x === best; });
    var words = everyone ? "A draw" : mine === best ? "You won" : "You lost";
    if (Array.isArray(r.points)) {
      var each = r.points.map(function (p, s) { return (s === seat ? "you " : "seat " + s + " ") + p; });
      words += " (" + (r.points_kind === "penalty" ? "penalty points, fewer is better: " : "points: ") +
        each.join(", ") + ")";
    }
    var verdict = (r.verdicts || [])[seat];
    if (verdict && verdict !== "ok") words += ". Your seat's verdict: " + verdict;
    return words + ".";
  }

  function take(entry) {
    var m = entry.m;
    if (m.type === "hello") {
      log("The match begins: you are seat " + m.seat + " of " + m.players + ".");
      sayReady();
    } else if (m.type === "event") {
      log(eventText(m.event || {}));
    } else if (m.type === "request") {
      request = m;
      requestAt = entry.t;
      selected = [];
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

  function poll() {
    var url = root.getAttribute("data-lines-url") + "?after=" + after;
    fetch(url, { credentials: "same-origin" }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (answer) {
      var body = answer.body;
      if (!answer.ok) {
        ui.status.textContent = (body.error && body.error.message) || "The table is unavailable; trying again…";
        return SLOW_MS * 2;
      }
      offset = body.now - Date.now() / 1000;
      status = body.status;
      body.lines.forEach(take);
      after += body.lines.length;
      if (request && answered[request.id]) request = null;
      if (request) {
        ui.status.textContent = "Your move.";
        root.setAttribute("data-request", String(request.id));
      } else if (!closed && status === "running") {
        ui.status.textContent = readySent ? "The others are thinking…" : "Sitting down…";
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
