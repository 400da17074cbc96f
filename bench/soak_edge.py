"""The soak's real-time edge (bench/soak.py): remote bots playing the ladder through the real `arena connect`,
people at live tables scripted as the table's page (table.js) behaves, the two faults of that edge (the relay's
Redis flushed, the web tier's PostgreSQL taken away while the workers keep theirs), and the checks that no seat
of a remote bot or a person was ever scored a loss for them (docs/matches.md, "Remote bots", "Live tables").

Nothing here imports Django: the soak's harness does, and passes in what it needs.
"""

from __future__ import annotations

import contextlib
import http.client
import http.cookiejar
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import redis

REPO = Path(__file__).resolve().parent.parent
ARENA = REPO / ".venv" / "bin" / "arena"
STARTER = REPO / "examples" / "bura" / "python" / "main.py"  # the remote bots' program: the starter kit
THINKING = REPO / "bench" / "bots" / "soak" / "thinking.py"  # ... holding each action back a while
TCP_PROXY = REPO / "bench" / "tcp_proxy.py"
RELAY_PATTERNS = ("kozyr:live:*", "kozyr:remote:*")  # every key the relay owns (matches/relay.py)
ENDED = ("finished", "failed", "cancelled", "aborted")  # the page's DONE: no more lines will come
FAST_S, AWAY_S = 0.25, 2.0  # table.js: polling while another seat thinks, and while the site is away

# Deleted in one script, as atomically as a restart without persistence loses them (a SCAN would let a
# worker's write between two batches survive, which a real flush never does).
FLUSH_RELAY_LUA = """
local n = 0
for _, pattern in ipairs(ARGV) do
    for _, name in ipairs(redis.call('KEYS', pattern)) do
        redis.call('UNLINK', name)
        n = n + 1
    end
end
return n
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def same_database(a: str, b: str) -> bool:
    """Whether two Redis URLs name one database of one server."""
    def where(url: str) -> tuple:
        kwargs = redis.Redis.from_url(url).connection_pool.connection_kwargs
        return kwargs.get("path") or (kwargs.get("host"), kwargs.get("port")), kwargs.get("db", 0)

    return where(a) == where(b)


def flush_relay(relay_url: str, broker_url: str) -> str:
    """Lose everything the live relay holds, as a Redis restarted without persistence loses it. A relay that
    shares the broker's database loses only its own keys here (the broker's queues are the flushdb fault's);
    a relay with a database of its own is flushed whole."""
    client = redis.Redis.from_url(relay_url)
    if same_database(relay_url, broker_url):
        deleted = client.eval(FLUSH_RELAY_LUA, 0, *RELAY_PATTERNS)
        return f"{deleted} relay keys deleted ({', '.join(RELAY_PATTERNS)}; the relay shares the broker's database)"
    size = client.dbsize()
    client.flushdb()
    return f"FLUSHDB of the relay's database ({size} keys)"


class ProxyProcess:
    """bench/tcp_proxy.py in a session of its own: what the web tier's DATABASE_URL points at. ``cut`` SIGKILLs
    it (the web's open connections die with it, new ones are refused), ``restore`` starts it on the same port."""

    def __init__(self, log: Path, target: tuple[str, int] = ("127.0.0.1", 5432)):
        self.log_path, self.target = log, target
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.offset = 0
        self.intended_down = True
        self.starts = 0

    def start(self, timeout: float = 20) -> None:
        self.offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(TCP_PROXY), "--listen", f"127.0.0.1:{self.port}",
                 "--to", f"{self.target[0]}:{self.target[1]}"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=clean_env())
        self.starts += 1
        self.intended_down = False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"the web's database proxy exited at start-up: {self.output()[-2000:]}")
            if "listening" in self.output():
                return
            time.sleep(0.05)
        raise RuntimeError(f"the web's database proxy did not listen within {timeout:.0f} s")

    def output(self) -> str:
        with open(self.log_path, "rb") as log:
            log.seek(self.offset)
            return log.read().decode(errors="replace")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def cut(self) -> None:
        self.intended_down = True
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    restore = start


def clean_env(**extra: str) -> dict[str, str]:
    """A user's shell: none of the site's settings (the soak's harness put its own in os.environ)."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")}
    return {**keep, "PYTHONUNBUFFERED": "1", **extra}


class RemoteBot:
    """One `arena connect` process, as the bot's author starts it, running the Bura starter kit; with ``think``
    seconds per decision (bench/bots/soak/thinking.py), so that its matches last long enough for a fault to
    find one in play."""

    def __init__(self, name: str, token: str, site: str, folder: Path, max_matches: int, think: float = 0.0):
        self.name, self.token, self.site, self.folder, self.max_matches = name, token, site, folder, max_matches
        self.program = [sys.executable, str(STARTER)]
        if think > 0:
            self.program = [sys.executable, str(THINKING), str(think), "--", *self.program]
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / "connect.log"
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.intended_down = True

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [str(ARENA), "connect", "--site", self.site, "--bot", self.name, "--token", self.token,
                 "--max-matches", str(self.max_matches), "--", *self.program],
                cwd=self.folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env=clean_env(XDG_CONFIG_HOME=str(self.folder / "config")))
        self.starts += 1
        self.intended_down = False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def disconnects(self) -> int:
        """How often its connection dropped and it reconnected (it says so on each)."""
        return self.output().count("disconnected:")

    def stop(self, grace: float = 10) -> None:
        """SIGTERM (it closes the connection cleanly and stops its bots), then SIGKILL to the group."""
        self.intended_down = True
        if not self.alive():
            return
        self.proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


# A request's answer is handed to this with (role, method, path, status, body, seconds): the soak counts it and
# calls a 5xx an invariant failure, unless it came while the web's database was away.
Record = Callable[[str, str, str, int, bytes, float], None]


class Person:
    """A person at live tables, without a browser: logs in, sits down against a house bot, plays as table.js
    does (polls the seat's lines, answers the hello and each request with a random legal action, waits longer
    while the site is away, never gives up on a match), and sits down again when the match ends, until told to
    stop; then finishes the match at hand."""

    def __init__(self, base: str, username: str, password: str, opponent: str, preset: str, record: Record,
                 stop: threading.Event, seed: int, say: Callable[[str], None]):
        self.base, self.username, self.password = base, username, password
        self.opponent, self.preset, self.record, self.stop, self.say = opponent, preset, record, stop, say
        self.rng = random.Random(seed)
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.matches: list[int] = []
        self.answers = 0
        self.gone = threading.Event()  # the site is being stopped: leave the table whatever it stands at
        self.refused: dict[str, int] = {}

    # -- HTTP ---------------------------------------------------------------------------------------------------
    def open(self, method: str, path: str, data: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        request = urllib.request.Request(self.base + path, data=data, headers=headers or {}, method=method)
        started = time.monotonic()
        try:
            with self.opener.open(request, timeout=60) as answer:
                status, url, body = answer.status, answer.geturl(), answer.read()
        except urllib.error.HTTPError as err:
            status, url, body = err.code, err.geturl(), err.read()
        except (OSError, http.client.HTTPException) as err:
            status, url, body = 0, self.base + path, str(err).encode()
        self.record("person", method, path.split("?")[0], status, body, time.monotonic() - started)
        return status, url, body

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, str, bytes]:
        form = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.csrf()}).encode()
        return self.open("POST", path, form, {"Referer": self.base + "/"})

    def post_json(self, path: str, message: dict) -> int:
        status, _, body = self.open("POST", path, json.dumps(message).encode(), {
            "Content-Type": "application/json", "X-CSRFToken": self.csrf(), "Referer": self.base + "/"})
        if 400 <= status < 500:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                code = json.loads(body)["error"]["code"]
                self.refused[code] = self.refused.get(code, 0) + 1
        return status

    # -- the table ----------------------------------------------------------------------------------------------
    def log_in(self) -> bool:
        while not self.stop.is_set():
            status, _, page = self.open("GET", "/login/")
            token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page) if status == 200 else None
            if token:
                form = urllib.parse.urlencode({"username": self.username, "password": self.password,
                                               "csrfmiddlewaretoken": token.group(1).decode()}).encode()
                status, url, _ = self.open("POST", "/login/", form, {"Referer": self.base + "/login/"})
                if status == 200 and "/login/" not in url:
                    return True
            self.stop.wait(AWAY_S)
        return False

    def sit_down(self) -> int | None:
        """A new table against the opponent; None while the site cannot seat the person (said why)."""
        status, url, page = self.post_form("/play/", {"opponent": self.opponent, "preset": self.preset})
        found = re.search(r"/play/(\d+)/?$", url)
        if status == 200 and found:
            return int(found.group(1))
        already = re.search(rb"already at a table \(match (\d+)\)", page)
        if already:  # the answer to an earlier sit-down was lost (the site was away): that table is ours
            return int(already.group(1))
        reason = re.search(rb"Could not sit down: ([^<]{0,160})", page)
        self.say(f"{self.username} could not sit down ({status}): "
                 f"{reason.group(1).decode(errors='replace') if reason else url}")
        return None

    def play(self, match_id: int) -> str:
        """Until the match is over, as table.js: the status it ended with."""
        after, pending, status = 0, None, "queued"
        while not self.gone.is_set():
            code, _, body = self.open("GET", f"/play/{match_id}/lines/?after={after}")
            try:
                answer = json.loads(body) if code == 200 else None
            except ValueError:
                answer = None
            if answer is None:
                self.gone.wait(AWAY_S)
                continue
            status = answer["status"]
            for entry in answer["lines"]:
                message = entry["m"]
                if message.get("type") == "hello":
                    pending = {"type": "ready"}
                elif message.get("type") == "request":
                    pending = {"type": "action", "id": message["id"],
                               "action": self.rng.choice(message["legal_actions"])}
            after += len(answer["lines"])
            if pending is not None:
                sent = self.post_json(f"/play/{match_id}/answer/", pending)
                if sent == 200:
                    self.answers += 1
                if sent == 200 or 400 <= sent < 500:  # taken, or refused for good (answered, not running)
                    pending = None
            if status in ENDED and (answer["closed"] or not answer["lines"]):
                return status
            self.gone.wait(AWAY_S if pending is not None else FAST_S)
        return status

    def run(self) -> None:
        if not self.log_in():
            return
        while not self.stop.is_set():
            match_id = self.sit_down()
            if match_id is None:
                self.stop.wait(AWAY_S)
                continue
            if match_id not in self.matches:
                self.matches.append(match_id)
            self.play(match_id)


# ---- the checks -----------------------------------------------------------------------------------------------

# A seat of a remote bot or of a person in a finished match that was scored anything but ok, with the time the
# match was first claimed (it cannot have been hurt before) and the time it ended.
FORFEITS_SQL = """
SELECT m.id, m.kind, s.seat, b.name, s.verdict, s.code, left(s.detail, 160),
       extract(epoch FROM (SELECT min(e.at) FROM soak_match_event e WHERE e.match_id = m.id
                           AND e.new_status = 'running')),
       extract(epoch FROM coalesce(m.finished, now()))
FROM matches_seat s JOIN matches_match m ON m.id = s.match_id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE m.status = 'finished' AND (v.runtime = 'remote' OR b.kind = 'person') AND s.verdict <> 'ok'
ORDER BY m.id, s.seat
"""

# Matches with a remote or a person seat, by kind and status (each match once).
EDGE_MATCHES_SQL = """
SELECT edge, kind, status, count(*) FROM (
    SELECT m.id, m.kind, m.status, CASE WHEN bool_or(b.kind = 'person') THEN 'person' ELSE 'remote' END AS edge
    FROM matches_match m JOIN matches_seat s ON s.match_id = m.id JOIN bots_botversion v ON v.id = s.version_id
    JOIN bots_bot b ON b.id = v.bot_id
    WHERE v.runtime = 'remote' OR b.kind = 'person'
    GROUP BY m.id) edge_matches
GROUP BY 1, 2, 3
"""

EDGE_SEATS_SQL = """
SELECT CASE WHEN b.kind = 'person' THEN 'person' ELSE 'remote' END,
       s.verdict || coalesce(nullif('/' || s.code, '/'), ''), count(*)
FROM matches_seat s JOIN matches_match m ON m.id = s.match_id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE m.status = 'finished' AND (v.runtime = 'remote' OR b.kind = 'person')
GROUP BY 1, 2
"""


def aborted_reason(failure: str) -> str:
    """A short name for why a casual match was aborted, from its failure text."""
    text = failure.lower()
    if "relay" in text:
        return "the relay lost it"
    if "lease" in text:
        return "its worker died or was cut off"
    return failure[:60] or "no reason given"


def overlapping(windows: list[tuple[str, float, float]], began: float | None, ended: float) -> list[str]:
    """The faults whose window [start, end] meets the match's [began, ended]."""
    if began is None:
        return []
    return [fault for fault, start, end in windows if began <= end and start <= ended]

# The matches with a remote or a person seat being played at some moment between two times (claimed before the
# end, not ended before the start): (match id, whether a person sits there).
PLAYED_BETWEEN_SQL = """
SELECT m.id, bool_or(b.kind = 'person')
FROM matches_match m JOIN matches_seat s ON s.match_id = m.id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE (v.runtime = 'remote' OR b.kind = 'person')
  AND EXISTS (SELECT 1 FROM soak_match_event e WHERE e.match_id = m.id AND e.new_status = 'running'
              AND e.at <= to_timestamp(%(end)s))
  AND (m.finished IS NULL OR m.finished >= to_timestamp(%(start)s))
GROUP BY m.id
"""

# The matches being played now with a remote or a person seat: (match id, whether a person sits there).
IN_PLAY_SQL = """
SELECT m.id, bool_or(b.kind = 'person')
FROM matches_match m JOIN matches_seat s ON s.match_id = m.id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE m.status = 'running' AND (v.runtime = 'remote' OR b.kind = 'person')
GROUP BY m.id
"""

# How many matches with a remote or a person seat finished after a moment.
FINISHED_SINCE_SQL = """
SELECT count(DISTINCT m.id)
FROM matches_match m JOIN matches_seat s ON s.match_id = m.id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE m.status = 'finished' AND m.finished > to_timestamp(%s) AND (v.runtime = 'remote' OR b.kind = 'person')
"""

# The remote and person seats of some matches, with their match's kind and status.
EDGE_SEATS_OF_SQL = """
SELECT m.id, m.kind, m.status, s.seat, b.name, s.verdict, s.code
FROM matches_match m JOIN matches_seat s ON s.match_id = m.id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE m.id = ANY(%s) AND (v.runtime = 'remote' OR b.kind = 'person')
ORDER BY m.id, s.seat
"""

# Remote bots whose connection recorded a heartbeat after a moment (connected again).
CONNECTED_SINCE_SQL = """
SELECT count(DISTINCT c.bot_id) FROM bots_remoteconnection c
WHERE c.closed IS NULL AND c.seen > to_timestamp(%s)
"""

# Finished casual matches and their seats, for the people's ratings: what ratings.people.record_casual_match
# counts (a person's rating row gains a game per finished casual match ended by play, never with their own bot).
CASUAL_SEATS_SQL = """
SELECT m.id, m.preset, m.result ->> 'ended_by', s.version_id, s.rank, b.kind = 'person', b.owner_id
FROM matches_match m JOIN matches_seat s ON s.match_id = m.id JOIN bots_botversion v ON v.id = s.version_id
JOIN bots_bot b ON b.id = v.bot_id
WHERE m.id = ANY(%s)
"""
RATED_ENDINGS = ("rules", "forfeit", "decision-limit")


def edge_outcome(rows: list[tuple]) -> bool | str | None:
    """From EDGE_SEATS_OF_SQL's rows: None while a match is still to end, a reason when one ended badly for a
    remote bot or a person (failed or cancelled, or a seat scored anything but ok), True when all ended well
    (finished, or a casual match aborted: a person's moves cannot be replayed)."""
    for pk, kind, status, seat, name, verdict, code in rows:
        if status in ("queued", "running"):
            return None
        if status == "aborted" and kind == "casual":
            continue
        if status != "finished":
            return f"{kind} match {pk} ended {status}"
        if verdict != "ok":
            return f"{kind} match {pk}: seat {seat} ({name}) scored {verdict}{'/' + code if code else ''}"
    return True


def casual_rated(rows: list[tuple]) -> dict[int, list[tuple[int, str]]]:
    """From CASUAL_SEATS_SQL's rows: per match, the (person version, preset) rows its finish counted once."""
    by_match: dict[int, list[tuple]] = {}
    for row in rows:
        by_match.setdefault(row[0], []).append(row)
    counted = {}
    for pk, seats in by_match.items():
        _, preset, ended_by, *_ = seats[0]
        people = {version for _, _, _, version, _, person, _ in seats if person}
        owners = {owner for _, _, _, _, _, person, owner in seats if person}
        own_bot = any(owner in owners for _, _, _, _, _, person, owner in seats if not person)
        ranked = all(rank is not None for _, _, _, _, rank, _, _ in seats)
        counted[pk] = ([(version, preset) for version in sorted(people)]
                       if ended_by in RATED_ENDINGS and ranked and not own_bot else [])
    return counted


def healthz(port: int) -> int:
    """/healthz's status (0: no answer), asked outside the soak's counts."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/healthz")
        status = connection.getresponse().status
        connection.close()
        return status
    except OSError:
        return 0
