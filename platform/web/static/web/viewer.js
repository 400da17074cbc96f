/* The replay viewer of the match page: frames from /matches/<id>/frames/, drawn with the DOM.
 *
 * No framework and nothing loaded from elsewhere (the site works offline). Every text that comes from a
 * replay (bot names, cards, verdict details) is put in the page with textContent, never as HTML.
 * Frames are fetched in chunks and kept per seat view; the position is kept in the URL hash
 * (#step=N&seat=S) so a link opens the same moment from the same seat's eyes.
 */
(function () {
  "use strict";

  var root = document.getElementById("replay-viewer");
  if (!root) return;

  var CHUNK = 100;
  var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  var RANKS = { T: "10" };
  var CARD_POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2 };
  var SPEEDS = [0.5, 1, 2, 4, 8, 16];

  var urlBase = root.getAttribute("data-frames-url");
  // Live: the match is being played. Frames come from its live endpoint (the same body, a few seconds
  // behind the play), new ones are asked for every LIVE_POLL_MS, and the view follows the newest position
  // unless the reader stepped back; when the match ends the page is reloaded and becomes the replay.
  var liveUrl = root.getAttribute("data-live-url");
  var LIVE_POLL_MS = 700;  // a move shows within the delay plus this and one request (the goal: delay + 1 s)
  var LIVE_POLL_TIMEOUT_MS = 15000;
  var viewerToken = Math.random().toString(36).slice(2) + Date.now().toString(36);
  if (liveUrl) urlBase = liveUrl;
  var ui = {
    seat: root.querySelector("#rv-seat"),
    range: root.querySelector("#rv-range"),
    marks: root.querySelector("#rv-marks"),
    step: root.querySelector("#rv-step"),
    text: root.querySelector("#rv-text"),
    table: root.querySelector("#rv-table"),
    scores: root.querySelector("#rv-scores"),
    events: root.querySelector("#rv-events"),
    play: root.querySelector("#rv-play"),
    speed: root.querySelector("#rv-speed"),
    link: root.querySelector("#rv-link"),
    copy: root.querySelector("#rv-copy"),
    copied: root.querySelector("#rv-copied"),
    status: root.querySelector("#rv-status"),
    stderr: root.querySelector("#rv-stderr"),
    stderrLines: root.querySelector("#rv-stderr-lines"),
    amarks: root.querySelector("#rv-amarks"),
    analysis: root.querySelector("#rv-analysis"),
    asummary: root.querySelector("#rv-analysis-summary"),
  };
  // The owner's own bots' stderr, by seat and request id (request N made step N); never sent to others.
  var stderrBySeat = null;
  var stderrUrl = root.getAttribute("data-stderr-url");
  if (stderrUrl) {
    fetch(stderrUrl, { credentials: "same-origin" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (body) {
      stderrBySeat = body ? body.seats : null;
      if (shown >= 0 && frameAt(shown)) drawStderr(frameAt(shown));
    }).catch(function () {});
  }

  // The analyses of the match's seats (analysis/, docs/analysis.md): each analysed decision of a seat is
  // shown at the step its action was played (the action's index + 1), with the suggested action and the
  // expected loss; marked ones sit under the slider. Asked for again while one is queued or running.
  var analysisUrl = root.getAttribute("data-analysis-url");
  var ANALYSIS_POLL_MS = 3000;
  var analysed = null;        // the endpoint's seats
  var decisionsAt = {};       // step -> [{seat, decision}]
  var analysisPending = false;

  function loadAnalysis() {
    if (!analysisUrl) return;
    fetch(analysisUrl, { credentials: "same-origin" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (body) {
      if (!body) return;
      var pending = body.seats.some(function (a) { return a.status === "queued" || a.status === "running"; });
      // one finished while the page was open: the page's own table (cost, par) is redrawn by a reload
      if (analysisPending && !pending) { window.location.reload(); return; }
      analysisPending = pending;
      analysed = body.seats;
      decisionsAt = {};
      analysed.forEach(function (a) {
        (a.decisions || []).forEach(function (d) {
          var step = d.index + 1;
          (decisionsAt[step] = decisionsAt[step] || []).push({ seat: a.seat, unit: a.unit, d: d });
        });
      });
      if (meta) drawAnalysisMarks();
      drawAnalysisSummary();
      if (shown >= 0 && frameAt(shown)) drawAnalysis(frameAt(shown));
      root.setAttribute("data-analysis", pending ? "pending" : "loaded");
      if (pending) setTimeout(loadAnalysis, ANALYSIS_POLL_MS);
    }).catch(function () {});
  }

  var meta = null;
  var cache = {};       // seat key -> {frames: [], loading: {chunkStart: promise}}
  var view = "all";     // "all" or a seat number as text
  var current = 0;
  var timer = null;
  var shown = -1;
  // The end of a deal is a position of its own: the step that ends a deal deals the next one too, so its
  // frame carries the table as the deal ended (frame.ending), shown first (position "k, ending") and then
  // the step itself with the next deal's hands (position "k").
  var ending = false;
  var shownEnding = false;

  // ------------------------------------------------------------------------------------------ helpers

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function seatName(s) {
    var name = meta && ((meta.bots && meta.bots[s]) || (meta.names && meta.names[s]));
    return "seat " + s + (name ? " · " + name : "");
  }

  // A score as people write it: 12 for 12.0, 2.5 for 2.5, 0.33 for 1/3.
  function num(value) {
    if (typeof value !== "number") return value === null || value === undefined ? "" : String(value);
    var rounded = Math.round(value * 100) / 100;
    return String(rounded === 0 ? 0 : rounded);
  }

  function isTrump(card, obs) {
    if (!card || card === "??") return false;
    var game = meta.game;
    if (game === "kozel") {
      return card === "6C" || card[0] === "Q" || card[0] === "J" || card[1] === "D";
    }
    if (game === "bura") return obs && obs.trump && card[1] === obs.trump;
    return false;
  }

  function isWild(card) {
    return meta.game === "burraco" && (card === "X" || (card && card[0] === "2"));
  }

  // down: the card was played face down (shown as itself where the view may see it, marked as face down)
  function cardNode(card, obs, down) {
    var node = el("span", "pc");
    node.setAttribute("data-card", card);
    if (down && card !== "??") {
      node.className += " face-down";
      node.setAttribute("data-face-down", "1");
    }
    if (card === "??") {
      node.className += " back";
      node.title = "hidden";
      return node;
    }
    if (card === "X") {
      node.className += " joker wild";
      node.textContent = "★";
      node.title = "joker";
      return node;
    }
    var suit = card.slice(-1);
    var rank = card.slice(0, -1);
    node.textContent = (RANKS[rank] || rank) + (SUITS[suit] || suit);
    node.className += " s-" + suit;
    if (isTrump(card, obs)) {
      node.className += " trump";
      node.title = "trump";
    }
    if (isWild(card)) {
      node.className += " wild";
      node.title = "wild card";
    }
    if (down) node.title = node.title ? node.title + ", played face down" : "played face down";
    return node;
  }

  // downFrom: the cards from this index on were played face down
  function cardRow(cards, obs, cls, wildIndex, downFrom) {
    var row = el("span", "cards" + (cls ? " " + cls : ""));
    (cards || []).forEach(function (c, i) {
      var node = cardNode(String(c), obs, downFrom !== undefined && downFrom !== null && i >= downFrom);
      // in a meld only the card standing for another is wild; a two in its own place is natural
      if (wildIndex !== undefined && i !== wildIndex) node.classList.remove("wild");
      row.appendChild(node);
    });
    if (!cards || !cards.length) row.appendChild(el("span", "muted", "—"));
    return row;
  }

  function backs(n) {
    var list = [];
    for (var i = 0; i < n; i++) list.push("??");
    return list;
  }

  function points(cards) {
    var total = 0;
    (cards || []).forEach(function (c) { total += CARD_POINTS[String(c)[0]] || 0; });
    return total;
  }

  function line(label, content) {
    var row = el("div", "rv-line");
    row.appendChild(el("span", "rv-label", label));
    if (content instanceof Node) row.appendChild(content);
    else row.appendChild(el("span", "", content));
    return row;
  }

  // ------------------------------------------------------------------------------------------ data

  function store(key) {
    if (!cache[key]) cache[key] = { frames: [], loading: {} };
    return cache[key];
  }

  function load(key, start) {
    var chunkStart = Math.floor(start / CHUNK) * CHUNK;
    var entry = store(key);
    if (entry.loading[chunkStart]) return entry.loading[chunkStart];
    var url = urlBase + "?seat=" + encodeURIComponent(key) + "&start=" + chunkStart + "&count=" + CHUNK;
    if (liveUrl) url += "&viewer=" + viewerToken;
    entry.loading[chunkStart] = fetch(url, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          throw new Error((body.error && body.error.message) || "the server answered " + response.status);
        });
      }
      return response.json();
    }).then(function (body) {
      if (liveUrl && ended(body)) return body;
      if (liveUrl) delete entry.loading[chunkStart];  // a live chunk grows: ask again next time
      if (body.meta && (!meta || liveUrl)) meta = body.meta;
      body.frames.forEach(function (f) { entry.frames[f.step] = f; });
      return body;
    }).catch(function (err) {
      delete entry.loading[chunkStart];
      ui.status.textContent = "Could not load the replay: " + err.message;
      throw err;
    });
    return entry.loading[chunkStart];
  }

  function frameAt(step) {
    var entry = cache[view];
    return entry ? entry.frames[step] : undefined;
  }

  function ensure(step) {
    if (frameAt(step)) return Promise.resolve(frameAt(step));
    return load(view, step).then(function () { return frameAt(step); });
  }

  // ------------------------------------------------------------------------------------------ drawing

  function viewerObs(frame) {
    var keys = Object.keys(frame.views);
    return frame.views[keys[0]];
  }

  // What the table shows. A seat's view: its own observation. "everything": the first seat's, with what
  // another seat saw and it did not — a face-down set from the view of the seat that played it, every
  // face-down card of the piles that some seat knows, Kozel's widow and discard from the soloist's view.
  function boardObs(frame) {
    var base = viewerObs(frame);
    if (view !== "all") return base;
    var merged = Object.assign({}, base);
    if (meta.game === "bura") {
      if (base.trick && base.trick.plays) {
        merged.trick = Object.assign({}, base.trick, { plays: base.trick.plays.map(function (p, i) {
          var own = frame.views[String(p.seat)];
          var theirs = own && own.trick && own.trick.plays && own.trick.plays[i];
          return theirs && theirs.seat === p.seat ? theirs : p;
        }) });
      }
      merged.piles = (base.piles || []).map(function (pile, s) {
        var known = [];
        Object.keys(frame.views).forEach(function (key) {
          var other = (frame.views[key].piles || [])[s] || {};
          (other.face_down_known || []).forEach(function (c) {
            if (c !== "??" && known.indexOf(c) < 0) known.push(c);
          });
        });
        return Object.assign({}, pile, { face_down_known: known });
      });
    } else if (meta.game === "kozel" && base.soloist !== null && base.soloist !== undefined) {
      var solo = frame.views[String(base.soloist)];
      if (solo) {
        merged.widow = solo.widow;
        merged.discard = solo.discard;
      }
    }
    return merged;
  }

  // the index from which a play's cards lie face down (a mixed set lists its face-up cards first)
  function downFrom(play) {
    if (play.face_down === true) return 0;
    if (play.face_down && play.face_down.length) return play.cards.length - play.face_down.length;
    return null;
  }

  function drawHands(frame, box) {
    var base = viewerObs(frame);
    var sizes = base.hand_sizes || [];
    var hands = el("div", "rv-hands");
    for (var s = 0; s < meta.seats; s++) {
      var obs = frame.views[String(s)];
      var panel = el("div", "rv-seat");
      panel.setAttribute("data-seat", s);
      if (frame.to_move === s) panel.className += " to-move";
      if (frame.actor === s) panel.className += " actor";
      var head = el("div", "rv-seat-name", seatName(s));
      if (frame.to_move === s) head.appendChild(el("span", "tag", "to move"));
      panel.appendChild(head);
      var cards = obs ? obs.hand : backs(sizes[s] || 0);
      var row = cardRow(cards, base, "hand");
      row.setAttribute("data-hand", s);
      panel.appendChild(row);
      hands.appendChild(panel);
    }
    box.appendChild(hands);
  }

  function drawBura(obs, box, frame) {
    var info = el("div", "rv-info");
    var trump = el("span", "rv-trump");
    if (obs.trump_card) {  // the turned-up card names the suit: "Trump Q♦", said once
      trump.appendChild(cardNode(obs.trump_card, obs));
      trump.appendChild(el("span", "muted", " the stock's last card"));
    } else {
      trump.appendChild(el("span", "rv-suit s-" + obs.trump, SUITS[obs.trump] || obs.trump));
    }
    var trumpLine = line("Trump", trump);
    trumpLine.id = "rv-trump";
    info.appendChild(trumpLine);
    info.appendChild(line("Stock", String(obs.stock) + " cards"));
    if (obs.claim_target) info.appendChild(line("Claim at", String(obs.claim_target) + " points"));
    if (obs.multiplier && obs.multiplier !== 1) info.appendChild(line("Stakes", "×" + obs.multiplier));
    box.appendChild(info);

    var trick = el("div", "rv-trick");
    var taken = null;
    // The trick this step took, unless a new deal followed it in the same step: the table is then the new
    // deal's, and the last trick of the old one is in the step's events, not on the table.
    (frame.events || []).forEach(function (e) {
      if (e.type === "trick") taken = e;
      else if (e.type === "deal") taken = null;
    });
    trick.appendChild(el("h4", "", !(obs.trick && obs.trick.plays) && taken ?
      "Trick taken by " + seatName(taken.taker) : "Trick"));
    if (obs.trick && obs.trick.plays) {
      obs.trick.plays.forEach(function (p) {
        var play = el("div", "rv-play");
        play.setAttribute("data-seat", p.seat);
        var down = downFrom(p);
        play.appendChild(el("span", "rv-label", seatName(p.seat) + (down === 0 ? " (face down)" :
          down !== null ? " (" + (p.cards.length - down) + " face down)" : "")));
        play.appendChild(cardRow(p.cards, obs, "", undefined, down));
        trick.appendChild(play);
      });
      if (obs.trick.best_seat !== undefined && obs.trick.best_seat !== null) {
        trick.appendChild(el("div", "muted", "best so far: seat " + obs.trick.best_seat));
      }
    } else if (taken) {  // the trick this step completed, as the view saw it, before it joins the pile
      var up = el("div", "rv-play");
      up.appendChild(el("span", "rv-label", "face up"));
      up.appendChild(cardRow(taken.face_up, obs));
      trick.appendChild(up);
      (taken.face_down || []).forEach(function (part) {
        var play = el("div", "rv-play");
        play.setAttribute("data-seat", part.seat);
        play.appendChild(el("span", "rv-label", seatName(part.seat) + " (face down)"));
        // A seat's view shows another seat's face-down cards as backs: the event is the whole table's, and
        // only "everything" (or the seat that played them) may see them.
        var seen = view === "all" || String(part.seat) === String(view);
        play.appendChild(cardRow(seen ? part.cards : part.cards.map(function () { return "??"; }), obs, "",
          undefined, 0));
        trick.appendChild(play);
      });
    } else {
      trick.appendChild(el("span", "muted", "no trick on the table"));
    }
    box.appendChild(trick);

    var piles = el("div", "rv-piles");
    piles.appendChild(el("h4", "", "Tricks taken"));
    (obs.piles || []).forEach(function (pile, s) {
      var known = (pile.face_up || []).concat(pile.face_down_known || []);
      var unknown = pile.count - known.length;
      var row = el("div", "rv-pile");
      row.setAttribute("data-pile", s);
      row.appendChild(el("span", "rv-label", seatName(s) + ": " + pile.count + " cards, " + points(known) +
        " points" + (unknown > 0 ? " known (" + unknown + " face down unseen)" : "")));
      row.appendChild(cardRow(pile.face_up, obs, "small"));
      if (pile.face_down_known && pile.face_down_known.length) {
        row.appendChild(el("span", "muted", " face down: "));
        row.appendChild(cardRow(pile.face_down_known, obs, "small", undefined, 0));
      }
      piles.appendChild(row);
    });
    box.appendChild(piles);

    if (obs.combinations && obs.combinations.length) {
      var combos = el("div", "rv-combos");
      combos.appendChild(el("h4", "", "Combinations shown"));
      obs.combinations.forEach(function (c) {
        var row = el("div", "");
        row.appendChild(el("span", "rv-label", seatName(c.seat) + ": " + c.name + (c.effect ? " (" + c.effect + ")" : "")));
        row.appendChild(cardRow(c.cards, obs, "small"));
        combos.appendChild(row);
      });
      box.appendChild(combos);
    }
    var deal = el("div", "rv-info");
    deal.appendChild(line("Penalties", (obs.penalties || []).map(num).join(" · ")));
    deal.appendChild(line("Deals won", (obs.deals_won || []).map(num).join(" · ")));
    box.appendChild(deal);
  }

  function drawKozel(obs, box) {
    var info = el("div", "rv-info");
    var legend = el("span", "rv-legend");
    legend.appendChild(el("span", "", "permanent: "));
    legend.appendChild(cardRow(["6C", "QC", "JC", "AD"], obs, "small"));
    legend.appendChild(el("span", "muted", " — the six of clubs, every queen, jack and diamond"));
    info.appendChild(line("Trumps", legend));
    info.appendChild(line("Contract", String(obs.contract) + (obs.soloist !== null && obs.soloist !== undefined ?
      ", soloist seat " + obs.soloist : "")));
    if (obs.sides && obs.sides.length) {
      info.appendChild(line("Sides", obs.sides.map(function (side) { return side.join("+"); }).join(" vs ")));
    }
    if (obs.widow_holder !== null && obs.widow_holder !== undefined) {
      info.appendChild(line("Widow holder", seatName(obs.widow_holder)));
    }
    if (obs.widow) info.appendChild(line("Widow", cardRow(obs.widow, obs, "small")));
    if (obs.discard) info.appendChild(line("Discard", cardRow(obs.discard, obs, "small")));
    box.appendChild(info);

    var trick = el("div", "rv-trick");
    trick.appendChild(el("h4", "", "Trick" + (obs.led ? " (led: " + (obs.led === "trump" ? "trump" : SUITS[obs.led] || obs.led) + ")" : "")));
    if (obs.trick && obs.trick.length) {
      obs.trick.forEach(function (card, i) {
        var play = el("div", "rv-play");
        var seat = (obs.leader + i) % meta.seats;
        play.appendChild(el("span", "rv-label", seatName(seat)));
        play.appendChild(cardNode(card, obs));
        trick.appendChild(play);
      });
    } else {
      trick.appendChild(el("span", "muted", "leader: seat " + obs.leader));
    }
    box.appendChild(trick);

    var taken = el("div", "rv-piles");
    taken.appendChild(el("h4", "", "Tricks this deal"));
    (obs.sides || []).forEach(function (side, k) {
      taken.appendChild(line("Side " + side.join("+"), num((obs.tricks_won || [])[k]) + " tricks, " +
        num((obs.points_taken || [])[k]) + " points"));
    });
    var last = obs.tricks && obs.tricks.length ? obs.tricks[obs.tricks.length - 1] : null;
    if (last) {
      var row = el("div", "rv-play");
      row.appendChild(el("span", "rv-label", "last trick → seat " + last.winner + ", " + num(last.points) + " points"));
      row.appendChild(cardRow(last.cards, obs, "small"));
      taken.appendChild(row);
    }
    box.appendChild(taken);
  }

  function drawBurraco(obs, box) {
    var info = el("div", "rv-info rv-wide");  // the table's centre across the board, the teams' melds below
    info.appendChild(line("Stock", String(obs.stock) + " cards"));
    var pile = obs.discard_pile || [];
    info.appendChild(line("Discard pile (" + pile.length + ")", cardRow(pile, obs, "small pile")));
    if (obs.locked_card) info.appendChild(line("Locked", cardNode(obs.locked_card, obs)));
    var pz = el("span", "");
    (obs.pozzetti || []).forEach(function (p, k) {
      pz.appendChild(el("span", "tag", "team " + k + ": " + (p.taken ? "taken by seat " + p.by + " (" + p.mode + ")" : "waiting")));
      pz.appendChild(document.createTextNode(" "));
    });
    info.appendChild(line("Pozzetti", pz));
    if (obs.last_turn) info.appendChild(line("Last turn", "yes"));
    box.appendChild(info);

    var teams = obs.teams || meta.teams;
    teams.forEach(function (team, t) {
      var melds = el("div", "rv-melds");
      melds.setAttribute("data-team", t);
      melds.appendChild(el("h4", "", "Melds of team " + t + " (seats " + team.join("+") + ")"));
      var mine = (obs.melds || []).filter(function (m) { return m.team === t; });
      if (!mine.length) melds.appendChild(el("span", "muted", "none yet"));
      mine.forEach(function (m) {
        var row = el("div", "rv-meld" + (m.burraco ? " burraco" : ""));
        var label = (m.kind === "set" ? "set of " + m.rank : "run in " + (SUITS[m.suit] || m.suit)) + ", " +
          num(m.points) + " pts";
        if (m.burraco) label += m.clean ? " · clean burraco" : " · dirty burraco";
        row.appendChild(el("span", "rv-label", label));
        row.appendChild(cardRow(m.cards, obs, "small", m.wild ? m.wild.index : -1));
        melds.appendChild(row);
      });
      box.appendChild(melds);
    });
  }

  function drawTable(frame) {
    clear(ui.table);
    var obs = boardObs(frame);
    drawHands(frame, ui.table);
    var board = el("div", "rv-board");
    if (meta.game === "bura") drawBura(obs, board, frame);
    else if (meta.game === "kozel") drawKozel(obs, board);
    else if (meta.game === "burraco") drawBurraco(obs, board);
    ui.table.appendChild(board);
  }

  function drawScores(frame) {
    clear(ui.scores);
    var table = el("table", "grid rv-score-table");
    var head = el("tr");
    head.appendChild(el("th", "", "After deal"));
    meta.sides.forEach(function (label) { head.appendChild(el("th", "", label)); });
    table.appendChild(head);
    (meta.deal_totals || []).forEach(function (d) {
      if (d.step > frame.step) return;
      var row = el("tr");
      row.appendChild(el("td", "", d.deal));
      (d.totals || []).forEach(function (v) { row.appendChild(el("td", "", num(v))); });
      table.appendChild(row);
    });
    var now = el("tr", "rv-now");
    now.appendChild(el("td", "", "now"));
    frame.totals.forEach(function (v) { now.appendChild(el("td", "", num(v))); });
    table.appendChild(now);
    ui.scores.appendChild(el("div", "muted", meta.points_kind === "penalty" ? "Penalty points (lower is better)" :
      "Points (higher is better)"));
    ui.scores.appendChild(table);
  }

  function drawEvents(frame) {
    clear(ui.events);
    frame.events.forEach(function (e) {
      ui.events.appendChild(el("li", "", JSON.stringify(e)));
    });
  }

  // "End of the match: A beat B by 8 points (12 to 4)", from the result's ranks and points by side.
  function endWords(r) {
    var ranks = r.ranks || [], points = r.points || [];
    var teams = meta.teams && meta.teams.length ? meta.teams : ranks.map(function (_, s) { return [s]; });
    var sides = teams.map(function (team, i) {
      return { name: (meta.sides && meta.sides[i]) || seatName(team[0]), rank: ranks[team[0]],
        points: points[team[0]] };
    }).sort(function (a, b) { return a.rank - b.rank; });
    var unit = meta.points_kind === "penalty" ? " penalty point" : " point";
    function pts(n) { return num(n) + unit + (n === 1 ? "" : "s"); }
    var why = r.ended_by === "forfeit" ? " (a forfeit)" : r.ended_by === "decision-limit" ?
      " (stopped at the decision limit)" : r.ended_by === "aborted" ? " (aborted: not scored)" : "";
    var words;
    if (!sides.length || sides[0].rank === undefined) {
      words = "";
    } else if (sides.every(function (s) { return s.rank === 1; })) {
      words = "a draw (" + sides.map(function (s) { return num(s.points); }).join(" to ") + ")";
    } else if (sides.length === 2 && typeof sides[0].points === "number" && typeof sides[1].points === "number") {
      var margin = Math.abs(sides[0].points - sides[1].points);
      words = sides[0].name + " beat " + sides[1].name + (margin ? " by " + pts(margin) + " (" + num(sides[0].points) +
        " to " + num(sides[1].points) + ")" : " on equal points");
    } else {
      words = sides.map(function (s) {
        return s.name + (s.rank === 1 ? " won" : " #" + s.rank) + (typeof s.points === "number" ? " with " +
          pts(s.points) : "");
      }).join("; ");
    }
    return "End of the match" + why + (words ? ": " + words : "") + ".";
  }

  function drawEnd(frame) {
    if (frame.step !== meta.steps || meta.live || frame.isEnding) return;
    var end = el("div", "rv-end");
    var r = meta.result || {};
    end.appendChild(el("strong", "", endWords(r)));
    (meta.verdicts || []).forEach(function (v) {
      end.appendChild(el("div", "bad", seatName(v.seat) + ": " + v.verdict + (v.code ? " (" + v.code + ")" : "") +
        (v.detail ? " — " + v.detail : "")));
    });
    if (meta.rejected) {
      end.appendChild(el("div", "bad", "rejected action of seat " + meta.rejected.seat + ": " + meta.rejected.error));
    }
    ui.table.insertBefore(end, ui.table.firstChild);
  }

  function actionNode(action) {
    var box = el("span", "rv-act");
    var type = action && action.type ? String(action.type).replace(/_/g, " ") : "?";
    box.appendChild(el("span", "rv-act-type", type));
    var cards = action && (action.cards || (action.card ? [action.card] : null));
    if (cards) {
      box.appendChild(cardRow(cards.map(String), null, "", undefined,
        downFrom({ cards: cards, face_down: action.face_down })));
    }
    return box;
  }

  function marksText(s) {
    return s.inaccuracy + " inaccurac" + (s.inaccuracy === 1 ? "y" : "ies") + ", " + s.mistake + " mistake" +
      (s.mistake === 1 ? "" : "s") + ", " + s.blunder + " blunder" + (s.blunder === 1 ? "" : "s");
  }

  function drawAnalysisSummary() {
    if (!ui.asummary) return;
    clear(ui.asummary);
    var done = (analysed || []).filter(function (a) { return a.summary; });
    ui.asummary.hidden = done.length === 0;
    if (!done.length) return;
    ui.asummary.appendChild(el("strong", "", "Analysis: what each seat's decisions cost"));
    var list = el("ul");
    done.forEach(function (a) {
      var item = el("li", "", seatName(a.seat) + ": " + num(a.summary.expected_loss) + " points over " +
        a.summary.analysed + " decisions (" + marksText(a.summary) + ")");
      item.setAttribute("data-seat", a.seat);
      item.title = "expected loss in " + a.unit;
      list.appendChild(item);
    });
    ui.asummary.appendChild(list);
    ui.asummary.appendChild(el("div", "muted", "Under the slider: a tall bar is a blunder, a square a mistake, a " +
      "dot an inaccuracy; click one to go to it."));
  }

  function drawAnalysisMarks() {
    if (!ui.amarks) return;
    clear(ui.amarks);
    var span = Math.max(1, meta.steps);
    Object.keys(decisionsAt).forEach(function (step) {
      decisionsAt[step].forEach(function (x) {
        if (!x.d.mark) return;
        var dot = el("button", "rv-amark k-" + x.d.mark);
        dot.type = "button";
        dot.style.left = (100 * Number(step) / span) + "%";
        var label = x.d.mark + " by " + seatName(x.seat) + ": expected loss " + num(x.d.loss) + " (step " + step + ")";
        dot.title = label;
        dot.setAttribute("aria-label", label);
        dot.setAttribute("data-step", step);
        dot.setAttribute("data-mark", x.d.mark);
        dot.addEventListener("click", function () { stop(); go(Number(step)); });
        ui.amarks.appendChild(dot);
      });
    });
  }

  // The analysed decisions whose action this step played: played, suggested, expected loss, mark.
  function drawAnalysis(frame) {
    if (!ui.analysis) return;
    clear(ui.analysis);
    var here = frame.isEnding ? [] : (decisionsAt[frame.step] || []);
    ui.analysis.hidden = here.length === 0;
    ui.analysis.className = "rv-analysis";
    (ui.amarks ? ui.amarks.querySelectorAll(".rv-amark") : []).forEach(function (m) {
      m.classList.toggle("current", m.getAttribute("data-step") === String(frame.step));
    });
    here.forEach(function (x) {
      var d = x.d;
      if (d.mark) ui.analysis.className += " k-" + d.mark;
      var row = el("div", "rv-decision");
      row.setAttribute("data-seat", x.seat);
      row.setAttribute("data-mark", d.mark || "");
      row.appendChild(el("span", "rv-tag" + (d.mark ? " k-" + d.mark : ""), d.mark || "analysed"));
      row.appendChild(el("span", "rv-label", seatName(x.seat) + " played"));
      var played = actionNode(d.played);
      played.className += " rv-played";
      row.appendChild(played);
      var same = JSON.stringify(d.played) === JSON.stringify(d.suggested);
      if (same) {
        row.appendChild(el("span", "muted", "— the search's choice too"));
      } else {
        row.appendChild(el("span", "rv-label", "suggested"));
        var suggested = actionNode(d.suggested);
        suggested.className += " rv-suggested";
        row.appendChild(suggested);
      }
      var loss = el("span", "rv-loss", "expected loss " + num(d.loss) + " points (played " + num(d.played_value) +
        ", best " + num(d.best_value) + ")");
      loss.title = "in " + x.unit;
      row.appendChild(loss);
      ui.analysis.appendChild(row);
    });
  }

  function drawStderr(frame) {
    if (!ui.stderr) return;
    var lines = [];
    // The last step also shows what came after it: the request a bot died at never made a step of its own, and
    // its traceback (lines of that request, or read after it, "end") belongs where the match stopped.
    var last = !!meta && frame.step === meta.steps && !meta.live;
    Object.keys(stderrBySeat || {}).forEach(function (seat) {
      var byRequest = stderrBySeat[seat] || {};
      Object.keys(byRequest).forEach(function (key) {
        var at = key === "end" ? Infinity : Number(key);
        if (at !== frame.step && !(last && at > frame.step)) return;
        var when = at === frame.step ? "" : key === "end" ? " (after its last request)" :
          " (request " + key + ", never answered)";
        byRequest[key].forEach(function (text) { lines.push("seat " + seat + when + ": " + text); });
      });
    });
    ui.stderrLines.textContent = lines.join("\n");
    ui.stderr.hidden = lines.length === 0;
  }

  // The deal's end as a frame of its own: the table it ended on and the step's events up to the end.
  function endingOf(frame) {
    var e = frame.ending;
    return Object.assign({}, frame, { deal: e.deal, views: e.views, events: e.events, text: e.text,
      to_move: null, ending: null, isEnding: true });
  }

  function draw(frame) {
    shown = frame.step;
    shownEnding = ending && !!frame.ending;
    if (shownEnding) frame = endingOf(frame);
    ui.step.textContent = (frame.isEnding ? "End of deal " + frame.deal : "Deal " + frame.deal) + " · step " +
      frame.step + " / " + meta.steps;
    ui.text.textContent = frame.text;
    ui.range.value = String(frame.step);
    drawTable(frame);
    drawEnd(frame);
    drawScores(frame);
    drawEvents(frame);
    drawStderr(frame);
    drawAnalysis(frame);
    var hash = "#step=" + frame.step + (frame.isEnding ? "&end=1" : "") + "&seat=" + view;
    ui.link.setAttribute("href", hash);
    if (window.location.hash !== hash) history.replaceState(null, "", hash);
    // embedded in another site: "Match N on Kozyr" opens the match page at this position
    var open = document.getElementById("embed-open");
    if (open) open.setAttribute("href", shareLink());
    root.setAttribute("data-step", String(frame.step));
    if (frame.isEnding) root.setAttribute("data-ending", String(frame.deal));
    else root.removeAttribute("data-ending");
    root.setAttribute("data-view", view);
    // keep the next chunk coming before it is needed
    if (frame.step + 20 < meta.steps && !frameAt(Math.min(meta.steps, frame.step + 20))) {
      load(view, frame.step + 20).catch(function () {});
    }
  }

  // ------------------------------------------------------------------------------------------ moving

  // atEnd: the end of the deal that step ends (when it ends one), not the step itself
  function go(step, atEnd) {
    if (!meta) return Promise.resolve();
    step = Math.max(0, Math.min(meta.steps, step));
    current = step;
    ending = !!atEnd;
    root.setAttribute("aria-busy", "true");
    return ensure(step).then(function (frame) {
      if (current === step && frame) {
        if (!frame.ending) ending = false;
        draw(frame);
        root.removeAttribute("aria-busy");
      }
    });
  }

  // One position on: from a deal's end to the step itself, else to the next step (its deal's end first).
  function forward() {
    if (ending) return go(current, false);
    if (current >= meta.steps) return go(meta.steps);
    var next = current + 1;
    return ensure(next).then(function (frame) { return go(next, !!(frame && frame.ending)); });
  }

  function backward() {
    var frame = frameAt(current);
    if (!ending && frame && frame.ending) return go(current, true);
    return go(current - 1);
  }

  function nextWhere(test) {
    // the first later frame that passes test, loading chunks as needed
    var step = current + 1;
    function scan() {
      if (step > meta.steps) return go(meta.steps);
      return ensure(step).then(function (frame) {
        if (test(frame)) return go(step);
        step += 1;
        return scan();
      });
    }
    return scan();
  }

  // The next deal: the end of this one first (its own position), then the next deal's hands.
  function nextDeal() {
    var later = (meta.deals || []).filter(function (d) { return d.step > current || (d.step === current && ending); });
    if (!later.length) return go(meta.steps);
    var step = later[0].step;
    if (step === current) return go(step);
    return ensure(step).then(function (frame) { return go(step, !!(frame && frame.ending)); });
  }

  function nextTrick() {
    var kinds = meta.game === "burraco" ? ["discard"] : ["trick"];
    return nextWhere(function (frame) {
      return frame.events.some(function (e) { return kinds.indexOf(e.type) >= 0; });
    });
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    ui.play.textContent = "▶ Play";
    ui.play.setAttribute("aria-pressed", "false");
  }

  function play() {
    if (timer) return stop();
    if (current >= meta.steps) go(0);
    ui.play.textContent = "⏸ Pause";
    ui.play.setAttribute("aria-pressed", "true");
    timer = setInterval(function () {
      if (current >= meta.steps && !ending) return stop();
      forward();
    }, 800 / Number(ui.speed.value || 1));
  }

  function setView(key) {
    view = key;
    ui.seat.value = key;
    return go(current, ending);
  }

  // ------------------------------------------------------------------------------------------ setup

  function drawMarks() {
    clear(ui.marks);
    var span = Math.max(1, meta.steps);
    (meta.marks || []).forEach(function (m) {
      if (m.kind === "deal-end") return;  // the next deal's mark sits at the same step
      var dot = el("button", "rv-mark k-" + m.kind);
      dot.type = "button";
      dot.style.left = (100 * m.step / span) + "%";
      dot.title = m.label + " (step " + m.step + ")";
      dot.setAttribute("aria-label", m.label);
      dot.setAttribute("data-step", m.step);
      dot.addEventListener("click", function () { stop(); go(m.step); });
      ui.marks.appendChild(dot);
    });
  }

  // The position asked for: the hash (#step=N&seat=S, kept up to date as the reader moves), else the query
  // (?step=N&seat=S, for where a link's hash gets lost).
  function readHash() {
    var found = {};
    var query = new URLSearchParams(window.location.search);
    ["step", "seat", "end"].forEach(function (key) { if (query.has(key)) found[key] = query.get(key); });
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) found[kv[0]] = decodeURIComponent(kv[1]);
    });
    return found;
  }

  // The match page at the shown position, from the shown view: what "copy link to this step" copies (the
  // match page's address even inside an embedded viewer).
  function shareLink() {
    var page = new URL(root.getAttribute("data-share-url") || window.location.pathname, window.location.href);
    return page.origin + page.pathname + ui.link.getAttribute("href");
  }

  function copyLink() {
    var link = shareLink();
    function said(text) { ui.copied.textContent = text; }
    // the clipboard needs a secure context (and, in a frame, the embedding page's permission): else the link
    // is shown selected, for the reader to copy
    var written = navigator.clipboard && window.isSecureContext ? navigator.clipboard.writeText(link) :
      Promise.reject(new Error("no clipboard"));
    written.then(function () { said("Link copied: " + link); }, function () {
      var box = document.createElement("input");
      box.readOnly = true;
      box.value = link;
      box.setAttribute("aria-label", "Link to this step");
      box.className = "rv-copy-box";
      said("");
      ui.copied.appendChild(box);
      box.select();
    });
  }

  function bind() {
    root.querySelector("#rv-first").addEventListener("click", function () { stop(); go(0); });
    root.querySelector("#rv-back").addEventListener("click", function () { stop(); backward(); });
    root.querySelector("#rv-forward").addEventListener("click", function () { stop(); forward(); });
    root.querySelector("#rv-trick").addEventListener("click", function () { stop(); nextTrick(); });
    root.querySelector("#rv-deal").addEventListener("click", function () { stop(); nextDeal(); });
    root.querySelector("#rv-last").addEventListener("click", function () { stop(); go(meta.steps); });
    ui.play.addEventListener("click", play);
    if (ui.copy) ui.copy.addEventListener("click", copyLink);
    ui.speed.addEventListener("change", function () { ui.speed.blur(); if (timer) { stop(); play(); } });
    // after a choice the keys step the replay again instead of changing the choice
    ui.seat.addEventListener("change", function () { setView(ui.seat.value); ui.seat.blur(); });
    ui.range.addEventListener("input", function () { stop(); go(Number(ui.range.value)); });
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (tag === "INPUT" && e.target !== ui.range) return;
      if (tag === "TEXTAREA" || tag === "SELECT") return;
      var handled = true;
      if (e.key === " " || e.key === "Spacebar") play();
      else if (e.key === "ArrowRight") { stop(); forward(); }
      else if (e.key === "ArrowLeft") { stop(); backward(); }
      else if (e.key === "Home") { stop(); go(0); }
      else if (e.key === "End") { stop(); go(meta.steps); }
      else if (e.key === "n" || e.key === "N") { stop(); nextDeal(); }
      else if (e.key === "t" || e.key === "T") { stop(); nextTrick(); }
      else handled = false;
      if (handled) e.preventDefault();
    });
    window.addEventListener("hashchange", function () {
      var h = readHash();
      var seatChanged = false;
      if (h.seat && h.seat !== view && ui.seat.querySelector('option[value="' + CSS.escape(h.seat) + '"]')) {
        view = h.seat;
        ui.seat.value = h.seat;
        seatChanged = true;
      }
      // another seat's eyes at the same step is a new drawing too
      var atEnd = h.end === "1";
      if (h.step !== undefined && (seatChanged || Number(h.step) !== shown || atEnd !== shownEnding)) {
        go(Number(h.step) || 0, atEnd);
      } else if (seatChanged) go(current, ending);
    });
  }

  // ------------------------------------------------------------------------------------------ live

  function ended(body) {
    if (!body.live || body.live.status === "running") return false;
    if (!root.hasAttribute("data-ended")) {
      root.setAttribute("data-ended", body.live.status);
      ui.status.textContent = "The match has ended: opening its replay…";
      window.location.reload();
    }
    return true;
  }

  function poll() {
    if (root.hasAttribute("data-ended")) return;
    var following = meta && current >= meta.steps;
    var from = meta ? meta.steps : 0;
    var entry = store(view);
    var url = urlBase + "?seat=" + encodeURIComponent(view) + "&start=" + from + "&count=" + CHUNK +
      "&viewer=" + viewerToken;
    // a poll that never answers (a dropped connection) is given up, so the next ones still come
    var control = window.AbortController ? new AbortController() : null;
    var giveUp = control ? setTimeout(function () { control.abort(); }, LIVE_POLL_TIMEOUT_MS) : null;
    fetch(url, { credentials: "same-origin", signal: control ? control.signal : undefined }).then(function (response) {
      if (giveUp) clearTimeout(giveUp);
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (answer) {
      var body = answer.body;
      if (!answer.ok) {
        ui.status.textContent = (body.error && body.error.message) || "The live view is unavailable.";
        return;
      }
      if (ended(body)) return;
      meta = body.meta;
      body.frames.forEach(function (f) { entry.frames[f.step] = f; });
      ui.range.max = String(meta.steps);
      drawMarks();
      ui.status.textContent = "Live: " + body.live.delay + " s behind the play" +
        (body.live.waiting ? " · " + body.live.waiting + " more move" + (body.live.waiting === 1 ? "" : "s") +
          " played, shown soon" : "");
      root.setAttribute("data-live-steps", String(meta.steps));
      if (following && shown !== meta.steps) go(meta.steps);
    }).catch(function () {
      ui.status.textContent = "The live view lost the site; trying again…";
    }).then(function () {
      setTimeout(poll, LIVE_POLL_MS);
    });
  }

  function start() {
    SPEEDS.forEach(function (s) {
      var option = el("option", "", s + "×");
      option.value = String(s);
      if (s === 2) option.selected = true;
      ui.speed.appendChild(option);
    });
    var h = readHash();
    if (!ui.seat.querySelector('option[value="all"]')) view = ui.seat.value;  // live: the public view first
    if (h.seat && ui.seat.querySelector('option[value="' + CSS.escape(h.seat) + '"]')) view = h.seat;
    ui.seat.value = view;
    var wanted = Math.max(0, Number(h.step) || 0);
    // where the reader's own bot failed, the viewer opens at the end (data-open-at, set by the match page)
    var openAtEnd = h.step === undefined && root.getAttribute("data-open-at") === "end";
    // the first chunk carries the match's marks; the wanted position's chunk may be another
    load(view, 0).then(function (body) {
      if (liveUrl && ended(body)) return;
      if (liveUrl) {
        wanted = h.step === undefined ? meta.steps : Math.min(wanted, meta.steps);
        root.setAttribute("data-live-steps", String(meta.steps));
        setTimeout(poll, LIVE_POLL_MS);
      }
      if (openAtEnd) wanted = meta.steps;
      ui.range.max = String(meta.steps);
      drawMarks();
      if (analysed) { drawAnalysisMarks(); drawAnalysisSummary(); }
      bind();
      ui.status.textContent = "";
      return go(wanted, h.end === "1").then(function () {
        root.classList.add("ready");
        // time to interactive: the first position is drawn and every control answers
        if (window.performance && performance.mark) performance.mark("replay-viewer-ready");
      });
    }).catch(function () {});
  }

  start();
  loadAnalysis();
})();
