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
    status: root.querySelector("#rv-status"),
    stderr: root.querySelector("#rv-stderr"),
    stderrLines: root.querySelector("#rv-stderr-lines"),
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

  var meta = null;
  var cache = {};       // seat key -> {frames: [], loading: {chunkStart: promise}}
  var view = "all";     // "all" or a seat number as text
  var current = 0;
  var timer = null;
  var shown = -1;

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
    if (frame.step !== meta.steps || meta.live) return;
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

  function drawStderr(frame) {
    if (!ui.stderr) return;
    var lines = [];
    Object.keys(stderrBySeat || {}).forEach(function (seat) {
      ((stderrBySeat[seat] || {})[String(frame.step)] || []).forEach(function (text) {
        lines.push("seat " + seat + ": " + text);
      });
    });
    ui.stderrLines.textContent = lines.join("\n");
    ui.stderr.hidden = lines.length === 0;
  }

  function draw(frame) {
    shown = frame.step;
    ui.step.textContent = "Deal " + frame.deal + " · step " + frame.step + " / " + meta.steps;
    ui.text.textContent = frame.text;
    ui.range.value = String(frame.step);
    drawTable(frame);
    drawEnd(frame);
    drawScores(frame);
    drawEvents(frame);
    drawStderr(frame);
    var hash = "#step=" + frame.step + "&seat=" + view;
    ui.link.setAttribute("href", hash);
    if (window.location.hash !== hash) history.replaceState(null, "", hash);
    root.setAttribute("data-step", String(frame.step));
    root.setAttribute("data-view", view);
    // keep the next chunk coming before it is needed
    if (frame.step + 20 < meta.steps && !frameAt(Math.min(meta.steps, frame.step + 20))) {
      load(view, frame.step + 20).catch(function () {});
    }
  }

  // ------------------------------------------------------------------------------------------ moving

  function go(step) {
    if (!meta) return Promise.resolve();
    step = Math.max(0, Math.min(meta.steps, step));
    current = step;
    root.setAttribute("aria-busy", "true");
    return ensure(step).then(function (frame) {
      if (current === step && frame) {
        draw(frame);
        root.removeAttribute("aria-busy");
      }
    });
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

  function nextDeal() {
    var later = (meta.deals || []).filter(function (d) { return d.step > current; });
    return go(later.length ? later[0].step : meta.steps);
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
      if (current >= meta.steps) return stop();
      go(current + 1);
    }, 800 / Number(ui.speed.value || 1));
  }

  function setView(key) {
    view = key;
    ui.seat.value = key;
    return go(current);
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

  function readHash() {
    var found = {};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) found[kv[0]] = decodeURIComponent(kv[1]);
    });
    return found;
  }

  function bind() {
    root.querySelector("#rv-first").addEventListener("click", function () { stop(); go(0); });
    root.querySelector("#rv-back").addEventListener("click", function () { stop(); go(current - 1); });
    root.querySelector("#rv-forward").addEventListener("click", function () { stop(); go(current + 1); });
    root.querySelector("#rv-trick").addEventListener("click", function () { stop(); nextTrick(); });
    root.querySelector("#rv-deal").addEventListener("click", function () { stop(); nextDeal(); });
    root.querySelector("#rv-last").addEventListener("click", function () { stop(); go(meta.steps); });
    ui.play.addEventListener("click", play);
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
      else if (e.key === "ArrowRight") { stop(); go(current + 1); }
      else if (e.key === "ArrowLeft") { stop(); go(current - 1); }
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
      if (h.step !== undefined && (seatChanged || Number(h.step) !== shown)) go(Number(h.step) || 0);
      else if (seatChanged) go(current);
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
    fetch(url, { credentials: "same-origin" }).then(function (response) {
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
    if (!ui.seat.querySelector('option[value="all"]')) view = ui.seat.value;  // a live person's match
    if (h.seat && ui.seat.querySelector('option[value="' + CSS.escape(h.seat) + '"]')) view = h.seat;
    ui.seat.value = view;
    var wanted = Math.max(0, Number(h.step) || 0);
    // the first chunk carries the match's marks; the wanted position's chunk may be another
    load(view, 0).then(function (body) {
      if (liveUrl && ended(body)) return;
      if (liveUrl) {
        wanted = h.step === undefined ? meta.steps : Math.min(wanted, meta.steps);
        root.setAttribute("data-live-steps", String(meta.steps));
        setTimeout(poll, LIVE_POLL_MS);
      }
      ui.range.max = String(meta.steps);
      drawMarks();
      bind();
      ui.status.textContent = "";
      return go(wanted).then(function () {
        root.classList.add("ready");
        // time to interactive: the first position is drawn and every control answers
        if (window.performance && performance.mark) performance.mark("replay-viewer-ready");
      });
    }).catch(function () {});
  }

  start();
})();
