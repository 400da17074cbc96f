// Live parts of server-rendered pages, without a reload: the matches playing now (home, tournaments), a bot's state and version statuses while one
// validates (queued -> building -> playing -> ready | rejected, with the reason for its owner), and a challenge's matches until they
// are played. Each polls a JSON endpoint of the site and stops when nothing is left to wait for.
(function () {
  "use strict";
  var PERIOD_MS = 1500;
  var PLAYING_PERIOD_MS = 4000;
  var DONE = { finished: true, failed: true, cancelled: true };

  function getJSON(url, then) {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { then(data); }, function () { then(null); });
  }

  // A bot's page while a version validates: the header's state, each version's stage (queued -> building ->
  // playing -> ready | rejected, the reason for its owner) and its "current" tag all come from one answer of
  // /bots/<name>/status/ (web/bot_status.py), the same function that rendered the page, so no part of the page
  // says what another has moved past.
  function watchBot(table) {
    var url = table.getAttribute("data-poll-bot");
    function current(row, on) {
      var tag = row.querySelector(".tag.current");
      if (on && !tag) {
        tag = document.createElement("span");
        tag.className = "tag current";
        tag.textContent = "current";
        row.firstElementChild.appendChild(document.createTextNode(" "));
        row.firstElementChild.appendChild(tag);
      } else if (!on && tag) {
        tag.remove();
      }
    }
    function show(bot) {
      var state = document.getElementById("bot-state");
      if (state && state.textContent !== bot.text) {
        state.textContent = bot.text;
        state.className = "state-" + bot.state;
      }
      bot.versions.forEach(function (v) {
        var row = table.querySelector('tr[data-version="' + v.number + '"]');
        if (!row) return;
        var cell = row.querySelector(".version-status");
        if (cell && cell.textContent !== v.stage) {
          cell.textContent = v.stage;
          cell.className = "version-status status-" + v.stage;
        }
        current(row, v.current);
        var reason = row.querySelector(".reason");
        if (v.reason && reason && reason.textContent !== v.reason) reason.textContent = v.reason;
        var link = row.querySelector(".validation-link");
        if (link && v.validation_match && !link.firstChild) {
          var a = document.createElement("a");
          a.href = "/matches/" + v.validation_match + "/";
          a.textContent = "match " + v.validation_match;
          link.appendChild(a);
        }
      });
    }
    // "Recent matches", rendered by the server as on the page: asked for again only when a match's status changed,
    // and shown in the same moment as the state, so the page never shows two stages at once.
    function withMatches(bot, then) {
      var box = document.getElementById("bot-matches");
      if (!box || box.getAttribute("data-matches-key") === bot.matches_key) { then(bot, null); return; }
      getJSON(url + "?matches=1", function (fresh) { then(fresh || bot, fresh && fresh.matches_html); });
    }
    function tick() {
      getJSON(url, function (polled) {
        if (!polled) { setTimeout(tick, PERIOD_MS * 4); return; }  // the site is busy: try again later
        withMatches(polled, function (bot, html) {
          show(bot);
          var box = document.getElementById("bot-matches");
          if (box && typeof html === "string") {
            var body = new DOMParser().parseFromString(html, "text/html").body;
            box.replaceChildren.apply(box, Array.prototype.slice.call(body.childNodes));
            box.setAttribute("data-matches-key", bot.matches_key);
          }
          if (bot.waiting) { setTimeout(tick, PERIOD_MS); return; }
          var note = document.getElementById("versions-live");
          if (note) note.textContent = "";
          table.setAttribute("data-live", "done");  // nothing left to wait for: no more polls
        });
      });
    }
    setTimeout(tick, PERIOD_MS);
  }

  function watchMatches(box) {
    var url = box.getAttribute("data-poll-matches");
    function tick() {
      getJSON(url, function (page) {
        var matches = page && page.results;
        if (!matches) { setTimeout(tick, PERIOD_MS * 4); return; }
        var done = matches.filter(function (m) { return DONE[m.status]; }).length;
        var status = document.getElementById("challenge-status");
        if (status) status.textContent = done + " of " + matches.length + " matches played…";
        if (matches.length && done === matches.length) {
          window.location.reload();  // the server says who won, in words
          return;
        }
        setTimeout(tick, PERIOD_MS);
      });
    }
    setTimeout(tick, PERIOD_MS);
  }

  // The "Playing now" table (the home page's, a tournament's): the server renders it, the page swaps it in.
  function watchPlaying(box) {
    var url = box.getAttribute("data-poll-playing");
    function tick() {
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html !== null && html.trim() !== box.innerHTML.trim()) {
            var fresh = new DOMParser().parseFromString(html, "text/html").body;
            box.replaceChildren.apply(box, Array.prototype.slice.call(fresh.childNodes));
          }
          box.setAttribute("data-polled", String(Date.now()));
          setTimeout(tick, PLAYING_PERIOD_MS);
        }, function () { setTimeout(tick, PLAYING_PERIOD_MS * 4); });
    }
    setTimeout(tick, PLAYING_PERIOD_MS);
  }

  function start() {
    var playing = document.querySelector("[data-poll-playing]");
    if (playing) watchPlaying(playing);
    var bot = document.querySelector("[data-poll-bot]");
    if (bot) watchBot(bot);
    var matches = document.querySelector("[data-poll-matches]");
    if (matches) watchMatches(matches);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
