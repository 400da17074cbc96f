"""The invariants: the audit triggers installed in the soak's database, the checker that reads every invariant
by SQL in one snapshot, and the samples that feed the others (the logs, the ladder's depth, Redis memory, the
5xx the web-db-outage fault accounts for)."""

from __future__ import annotations

import collections
import contextlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from bench import soak_edge as edge
from bench.soaking.common import say
from config.celery_settings import QUEUE_ORDER

WEB_BACK_S = 120  # a 5xx this long after the web's database came back is still put down to the outage

INVARIANTS = {
    "finished-once": "no match finished twice",
    "ratings-once": "ratings count each ranked match once",
    "tournaments-once": "tournament results count each match once",
    "validation": "a version's validation follows its match",
    "lease": "nothing stuck past its lease",
    "queued": "no match queued too long",
    "ladder": "the ladder within its depth",
    "leftovers": "no bot process left behind",
    "http": "no 5xx from the web",
    "web-back": "the web serves again once its database is back",
    "redis": "Redis memory bounded",
    "edge-seats": "no remote or person seat lost to a fault",
    "casual": "every casual match finished or aborted",
}

AUDIT_SQL = """
CREATE TABLE soak_match_event (
    id bigserial PRIMARY KEY, match_id bigint NOT NULL, event text NOT NULL, old_status text, new_status text,
    lease_owner text, attempts integer, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE INDEX soak_match_event_match ON soak_match_event (match_id);
CREATE TABLE soak_seat_write (
    id bigserial PRIMARY KEY, match_id bigint NOT NULL, seat integer NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE FUNCTION soak_match_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO soak_match_event (match_id, event, new_status, attempts)
        VALUES (NEW.id, 'insert', NEW.status, NEW.attempts);
        RETURN NULL;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, lease_owner, attempts)
        VALUES (NEW.id, 'status', OLD.status, NEW.status, COALESCE(NULLIF(NEW.lease_owner, ''), OLD.lease_owner),
                NEW.attempts);
    ELSIF OLD.status IN ('finished', 'failed', 'cancelled', 'aborted') AND (NEW.result IS DISTINCT FROM OLD.result
            OR NEW.finished IS DISTINCT FROM OLD.finished OR NEW.replay_sha256 IS DISTINCT FROM OLD.replay_sha256) THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, attempts)
        VALUES (NEW.id, 'rewrite', OLD.status, NEW.status, NEW.attempts);
    ELSIF NEW.status = 'queued' AND OLD.published_at IS NULL AND NEW.published_at IS NOT NULL THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, attempts)
        VALUES (NEW.id, 'release', OLD.status, NEW.status, NEW.attempts);
    ELSIF NEW.status = 'queued' AND NEW.published_at IS DISTINCT FROM OLD.published_at THEN
        INSERT INTO soak_match_event (match_id, event, old_status, new_status, attempts)
        VALUES (NEW.id, 'republish', OLD.status, NEW.status, NEW.attempts);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER soak_match_audit AFTER INSERT OR UPDATE ON matches_match
    FOR EACH ROW EXECUTE FUNCTION soak_match_audit();
CREATE FUNCTION soak_seat_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO soak_seat_write (match_id, seat) VALUES (NEW.match_id, NEW.seat);
    RETURN NULL;
END $$;
CREATE TRIGGER soak_seat_audit AFTER UPDATE ON matches_seat FOR EACH ROW EXECUTE FUNCTION soak_seat_audit();
"""


class Findings:
    """Violations of the invariants, each counted once per key (a match, a rating, a process)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen: dict[str, dict[str, str]] = {name: {} for name in INVARIANTS}
        self.first_at: dict[str, float] = {}

    def add(self, invariant: str, key: str, detail: str) -> None:
        with self.lock:
            if key not in self.seen[invariant]:
                self.seen[invariant][key] = detail
                self.first_at.setdefault(invariant, time.time())
                if len(self.seen[invariant]) <= 5:
                    say(f"INVARIANT {invariant}: {detail}")
                elif len(self.seen[invariant]) == 6:
                    say(f"INVARIANT {invariant}: more violations (counted, not shown)")

    def update(self, invariant: str, key: str, detail: str) -> None:
        with self.lock:
            if key in self.seen[invariant]:
                self.seen[invariant][key] = detail

    def failed(self) -> list[str]:
        return [name for name, found in self.seen.items() if found]


@dataclass
class LogEvents:
    succeeded: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    discarded: collections.Counter = field(default_factory=collections.Counter)
    errors: collections.Counter = field(default_factory=collections.Counter)


class InvariantsMixin:
    """The checker thread and the monitor's samples; each violation goes to ``findings``, counted once per key."""

    def checker(self) -> None:
        conn = psycopg.connect(self.db_url, autocommit=True)
        while True:
            try:
                self.check(conn)
            except Exception as err:
                self.thread_errors.append(f"checker: {type(err).__name__}: {err}")
                say(f"checker error: {type(err).__name__}: {err}")
                with contextlib.suppress(Exception):
                    conn.close()
                conn = psycopg.connect(self.db_url, autocommit=True)
            if self.stop_monitor.wait(self.args.check_every):
                break
        conn.close()

    def check(self, conn) -> None:
        """Every invariant in one snapshot of the database (a finish is one transaction, so counts agree)."""
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            self.violations(conn)

    def violations(self, conn) -> None:
        """The checks themselves, on a psycopg connection already in the snapshot to read."""
        args, found = self.args, self.findings.add
        for match_id, n in conn.execute("SELECT match_id, count(*) FROM soak_match_event WHERE new_status = "
                                        "'finished' GROUP BY match_id HAVING count(*) > 1"):
            found("finished-once", f"twice:{match_id}", f"match {match_id} finished {n} times")
        for match_id, event, old, new, at in conn.execute(
                "SELECT match_id, event, old_status, new_status, at FROM soak_match_event "
                "WHERE event = 'rewrite' OR old_status IN ('finished', 'failed', 'cancelled', 'aborted')"):
            found("finished-once", f"changed:{match_id}:{at}", f"match {match_id} was {old} and changed "
                  f"({event} to {new}) at {at:%H:%M:%S}")
        for match_id, seat, n in conn.execute("SELECT match_id, seat, count(*) FROM soak_seat_write "
                                              "GROUP BY match_id, seat HAVING count(*) > 1"):
            found("finished-once", f"seat:{match_id}:{seat}", f"seat {seat} of match {match_id} written {n} times")
        self._check_ratings(conn)
        for kind, pk, games, done in conn.execute(
                "SELECT 'pairing', p.id, p.games, (SELECT count(*) FROM matches_match m WHERE m.kind = "
                "'tournament' AND m.status = 'finished' AND m.duplicate_set IN (SELECT duplicate_set FROM "
                "tournaments_pairingset s WHERE s.pairing_id = p.id)) FROM tournaments_pairing p "
                "WHERE p.second_id IS NOT NULL "
                "UNION ALL SELECT 'table', t.id, t.games, (SELECT count(*) FROM matches_match m WHERE m.kind = "
                "'tournament' AND m.status = 'finished' AND m.duplicate_set IN (SELECT duplicate_set FROM "
                "tournaments_tableset s WHERE s.table_id = t.id)) FROM tournaments_table t WHERE NOT t.bye"):
            if games != done:
                found("tournaments-once", f"{kind}:{pk}:{games}:{done}",
                      f"tournament {kind} {pk} counts {games} matches, {done} of its matches are finished")
        for pk, status, match_id, match_status in conn.execute(
                "SELECT v.id, v.status, m.id, m.status FROM bots_botversion v JOIN matches_match m "
                "ON m.validates_id = v.id WHERE (v.status = 'pending' AND m.status IN ('finished', "
                "'failed', 'cancelled')) OR (v.status = 'ready' AND m.status <> 'finished')"):
            found("validation", f"{pk}:{status}:{match_status}",
                  f"version {pk} is {status} while its validation match {match_id} is {match_status}")
        for pk, owner, overdue in conn.execute(
                "SELECT id, lease_owner, extract(epoch FROM now() - lease_expires) FROM matches_match "
                "WHERE status = 'running' AND lease_expires < now() - make_interval(secs => %s)",
                [args.lease_slack]):
            found("lease", f"{pk}:{owner}", f"match {pk} running under {owner} with a lease expired "
                  f"{float(overdue):.0f} s ago (slack {args.lease_slack:.0f} s)")
        oldest = conn.execute(
            "SELECT m.id, m.kind, extract(epoch FROM now() - q.since) FROM matches_match m CROSS JOIN LATERAL ("
            "SELECT max(e.at) AS since FROM soak_match_event e WHERE e.match_id = m.id AND (e.new_status = "
            "'queued' AND e.event IN ('insert', 'status') OR e.event = 'release')) q WHERE m.status = 'queued' "
            "AND m.published_at IS NOT NULL AND m.kind <> 'ladder' ORDER BY q.since LIMIT 20").fetchall()
        for pk, kind, age in oldest:
            age = float(age or 0)
            self.figures.peak("queued longest s", age)
            if age > args.queued_bound:
                found("queued", str(pk),
                      f"{kind} match {pk} queued for {age:.0f} s (bound {args.queued_bound:.0f} s)")
        overdue = conn.execute("SELECT coalesce(max(extract(epoch FROM now() - lease_expires)), 0) FROM "
                               "matches_match WHERE status = 'running'").fetchone()[0]
        self.figures.peak("lease overdue max s", float(overdue))
        for pk, status, age in conn.execute(
                "SELECT v.id, v.status, extract(epoch FROM coalesce(v.validated_at, now()) - v.created) FROM "
                "bots_botversion v WHERE v.runtime <> 'builtin' AND v.id > %s ORDER BY v.id",
                [max(self.versions_seen, default=0) - 200]):
            if status != "pending" and pk not in self.versions_seen:
                self.versions_seen[pk] = float(age)
                self.figures.peak("upload to validated max s", float(age))
        self.recent_matches = [row[0] for row in conn.execute(
            "SELECT id FROM matches_match WHERE status = 'finished' ORDER BY id DESC LIMIT 40")]
        self._check_edge(conn)

    def _check_edge(self, conn) -> None:
        """No remote or person seat scored anything but ok in a match that a fault's window overlapped; every
        casual match ends finished or aborted (at the last check, none may still wait or play)."""
        windows = self.fault_windows()
        for pk, kind, seat, name, verdict, code, detail, began, ended in conn.execute(edge.FORFEITS_SQL):
            faults = edge.overlapping(windows, None if began is None else float(began), float(ended))
            text = (f"{kind} match {pk}: seat {seat} ({name}) scored {verdict}{'/' + code if code else ''}"
                    f"{' during ' + ', '.join(sorted(set(faults))) if faults else ''}: {detail}")
            if faults:
                self.findings.add("edge-seats", f"{pk}:{seat}", text)
            else:
                self.edge_forfeits.setdefault(f"{pk}:{seat}", text)
        unfinished = ("'failed', 'cancelled', 'queued', 'running'" if self.final else "'failed', 'cancelled'")
        for pk, status, failure in conn.execute(f"SELECT id, status, left(failure, 160) FROM matches_match "
                                                f"WHERE kind = 'casual' AND status IN ({unfinished})"):
            state = f"is still {status}" if status in ("queued", "running") else f"ended {status}"
            self.findings.add("casual", f"{pk}:{status}",
                              f"casual match {pk} {state}{': ' + failure if failure else ''}")

    def _check_ratings(self, conn) -> None:
        finished = [row[0] for row in conn.execute(
            "SELECT id FROM matches_match WHERE ranked AND status = 'finished'")]
        new = [pk for pk in finished if pk not in self.processed_ranked]
        if new:
            rows = conn.execute(
                "SELECT m.id, m.preset, m.result -> 'teams', array_agg(s.version_id ORDER BY s.seat) FROM "
                "matches_match m JOIN matches_seat s ON s.match_id = m.id WHERE m.id = ANY(%s) GROUP BY m.id", [new])
            for pk, preset, teams, seats in rows:
                if isinstance(teams, str):  # a connection whose jsonb loader leaves the text (Django's)
                    teams = json.loads(teams)
                teams = teams or [[i] for i in range(len(seats))]
                sides: dict[int, set[int]] = collections.defaultdict(set)
                for side, team in enumerate(teams):
                    for seat in team:
                        sides[seats[seat]].add(side)
                for version, on in sides.items():
                    if len(on) == 1:  # a version that met itself is not rated by that match
                        self.expected_games[(version, preset)] += 1
                self.processed_ranked.add(pk)
        # A person's rating gains a game per finished casual match (ratings.people): counted once, as a bot's.
        casual = [row[0] for row in conn.execute(
            "SELECT id FROM matches_match WHERE kind = 'casual' AND status = 'finished'")]
        new = [pk for pk in casual if pk not in self.processed_casual]
        if new:
            for pk, counted in edge.casual_rated(conn.execute(edge.CASUAL_SEATS_SQL, [new]).fetchall()).items():
                for key in counted:
                    self.expected_games[key] += 1
                self.processed_casual.add(pk)
        ratings = conn.execute("SELECT version_id, preset, games, wins + draws + losses FROM ratings_rating").fetchall()
        have = set()
        for version, preset, games, wdl in ratings:
            have.add((version, preset))
            expected = self.expected_games.get((version, preset), 0)
            if games != expected or wdl != games:
                self.findings.add("ratings-once", f"{version}:{preset}:{games}:{expected}:{wdl}",
                                  f"version {version} on {preset}: {games} games counted (W+D+L {wdl}), "
                                  f"{expected} finished ranked matches")
        for (version, preset), expected in self.expected_games.items():
            if (version, preset) not in have:
                self.findings.add("ratings-once", f"{version}:{preset}:missing",
                                  f"version {version} on {preset}: {expected} finished ranked matches, no rating")

    def outage_5xx(self, at: float, source: str, what: str) -> bool:
        """Whether a 5xx seen at ``at`` (by ``source``: http, the access log, the error log) is the web-db-outage
        fault's, and its account: from the cut to --web-db-settle s after the database came back it is the
        outage itself (expected, counted); up to WEB_BACK_S after that, a web that does not serve again once its
        database is back (the web-back invariant). False: not the outage's."""
        for cut, back in list(self.web_db_away):
            if at < cut - 1:
                continue
            if back is None or at <= back + self.args.web_db_settle:
                self.figures.inc(f"{source} 5xx while the web's database was away (expected)")
                return True
            if at <= back + WEB_BACK_S:
                key = f"{cut:.0f}"
                with self.figures.lock:
                    count, latest, first = self.web_back.get(key, (0, 0.0, what))
                    self.web_back[key] = count + 1, max(latest, at - back), first
                    count, latest, first = self.web_back[key]
                detail = (f"{count} 5xx (http and logs) up to {latest:.0f} s after the web's database came back "
                          f"(settle {self.args.web_db_settle:.0f} s); the first: {first[:160]}")
                self.findings.add("web-back", key, detail)
                self.findings.update("web-back", key, detail)
                return True
        return False

    def _read_logs(self) -> None:
        if not hasattr(self, "_positions"):
            self._positions: dict[Path, int] = {}
        files = [s.log_path for s in self.site.all_workers()] + [self.site.logs / "web-access.log",
                                                                  self.site.logs / "web-error.log"]
        now = time.time()
        for path in files:
            if not path.exists():
                continue
            with open(path, "rb") as handle:
                handle.seek(self._positions.get(path, 0))
                chunk = handle.read()
                complete = chunk.rfind(b"\n") + 1
                self._positions[path] = self._positions.get(path, 0) + complete
            for line in chunk[:complete].decode(errors="replace").splitlines():
                self._log_line(path.name, line, now)

    TASK_DONE = re.compile(r"Task ([\w.]+)\[[0-9a-f-]+\] succeeded in")
    DISCARDED = re.compile(r"Discarding revoked task: ([\w.]+)\[")
    ACCESS = re.compile(r'"(\w+) (\S+) [^"]*" (\d{3})\b')  # gunicorn's line and uvicorn's (status last)

    def _log_line(self, name: str, line: str, now: float) -> None:
        written = now - 1  # logs are read every second: a line is up to a second old
        if name == "web-access.log":
            found = self.ACCESS.search(line)
            if found:
                self.figures.inc("web access log lines")
                if int(found.group(3)) >= 500 and not self.outage_5xx(written, "web access log", line.strip()):
                    self.findings.add("http", f"log:{line[:160]}", f"web access log: {line.strip()[:300]}")
            return
        if name == "web-error.log":
            if "Traceback" in line or "[ERROR]" in line or "WORKER TIMEOUT" in line:
                self.figures.inc("web error log errors")
                if not self.outage_5xx(written, "web error log", line.strip()):
                    self.findings.add("http", f"errlog:{now:.0f}:{line[:80]}",
                                      f"web error log: {line.strip()[:300]}")
            return
        with self.log_lock:
            if found := self.TASK_DONE.search(line):
                self.logs.succeeded[found.group(1)].append(now)
            elif found := self.DISCARDED.search(line):
                self.logs.discarded[found.group(1)] += 1
            for marker in ("deadlock detected", "Traceback", "WorkerLostError", "ERROR/", "could not renew",
                           "database unavailable while recording", "raised unexpected: OperationalError"):
                if marker in line:
                    self.logs.errors[marker] += 1

    def _sample_ladder(self, conn) -> None:
        # KOZYR_LADDER_QUEUE_DEPTH counts duplicate sets with a match queued or running (docs/matches.md)
        rows = conn.execute("SELECT preset, count(DISTINCT duplicate_set) FROM matches_match WHERE kind = 'ladder' "
                            "AND status IN ('queued', 'running') GROUP BY preset").fetchall()
        counts = dict(rows)
        self.ladder_history.append((time.time(), counts))
        for preset, count in counts.items():
            self.ladder_peak[preset] = max(self.ladder_peak.get(preset, 0), count)
            bound = self.ladder_bound(preset)
            if count > bound:
                first = self.ladder_first_over.setdefault(preset, time.time() - self.run_started)
                detail = (f"{self.ladder_peak[preset]} ladder duplicate sets of {preset} queued or running at the "
                          f"most (depth {self.args.depth}); first over {first:.0f} s into the run")
                self.findings.add("ladder", preset, detail)
                self.findings.update("ladder", preset, detail)

    def ladder_bound(self, preset: str) -> int:
        return self.args.depth  # exact: fills recount under a per-preset lock

    def _sample_redis(self) -> None:
        info = self.redis.info("memory")
        self.figures.peak("redis server used_memory max MB", info["used_memory"] / 2**20)
        total, keys = 0, 0
        lengths: collections.Counter = collections.Counter({queue: 0 for queue in (*QUEUE_ORDER, "ae.undeliver")})
        for key in self.redis.scan_iter(count=500):
            keys += 1
            total += self.redis.memory_usage(key) or 0
            if self.redis.type(key) == b"list":  # a queue (kombu names its priority levels queue\x06\x16N)
                lengths[key.decode(errors="replace").split("\x06\x16")[0]] += self.redis.llen(key)
        self.figures.peak("redis soak db MB max", total / 2**20)
        self.figures.peak("redis soak db keys max", keys)
        for queue, length in lengths.items():
            self.figures.peak(f"queue {queue} length max", length)
        if self.relay is not self.redis:  # the live relay's own database counts against the same bound
            relay = [self.relay.memory_usage(key) or 0 for key in self.relay.scan_iter(count=500)]
            self.figures.peak("redis relay db MB max", sum(relay) / 2**20)
            self.figures.peak("redis relay db keys max", len(relay))
            total, keys = total + sum(relay), keys + len(relay)
        if total > self.args.redis_max_mb * 2**20:
            self.findings.add("redis", f"{int(total / 2**20)}",
                              f"the soak's Redis databases hold {total / 2**20:.1f} MB in {keys} keys "
                              f"(bound {self.args.redis_max_mb} MB)")
