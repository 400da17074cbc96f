// Live parts of server-rendered pages, without a reload: the matches playing now (home, tournaments), a bot's version statuses while one is pending
// (pending -> playing -> ready | rejected, with the reason for its owner), and a challenge's matches until they
// are played. Each polls a JSON endpoint of the API and stops when nothing is left to wait for.
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

  // "pending" while its validation match waits for a worker, "playing" while it is played.
  function stage(v) {
    if (v.status === "pending" && v.validation_status === "running") return "playing";
    return v.status;
  }

  function watchVersions(table) {
    var url = table.getAttribute("data-poll-versions");
    function tick() {
      getJSON(url, function (versions) {
        if (!versions) { setTimeout(tick, PERIOD_MS * 4); return; }  // the site is busy: try again later
        var waiting = false;
        versions.forEach(function (v) {
          var row = table.querySelector('tr[data-version="' + v.number + '"]');
          if (v.status === "pending") waiting = true;
          if (!row) return;
          var cell = row.querySelector(".version-status");
          var now = stage(v);
          if (cell && cell.textContent !== now) {
            cell.textContent = now;
            cell.className = "version-status status-" + now;
          }
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
        var note = document.getElementById("versions-live");
        if (note) note.textContent = waiting ? "Updating as the validation goes…" : "";
        if (waiting) setTimeout(tick, PERIOD_MS);
        else table.setAttribute("data-live", "done");  // nothing pending: no more polls
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
    var versions = document.querySelector("[data-poll-versions]");
    if (versions) watchVersions(versions);
    var matches = document.querySelector("[data-poll-matches]");
    if (matches) watchMatches(matches);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
