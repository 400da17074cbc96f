"""The faults: their schedule, each one's injection (``fault_<name>``) and the test of its recovery, which the
monitor evaluates every second until it holds, fails, or runs past its deadline."""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field

import psycopg

from bench import soak_edge as edge
from bench.soaking.common import RECOVER_EVERY, say
from bench.soaking.processes import gone

FAULTS = ("worker-kill", "flushdb", "db-cut", "beat-kill", "two-beats", "relay-flush", "web-db-outage")
TERMINAL = ("finished", "failed", "cancelled", "aborted")
REPUBLISH_AFTER_S = 120  # matches.actions.REPUBLISH_AFTER: a lost message is sent again after this
BEAT_JOBS = ("play.tasks.recover_matches", "ladder.tasks.fill_ladder")


@dataclass
class Injection:
    fault: str
    at: float  # seconds into the run
    detail: str = ""
    recovery: float | None = None
    survived: bool | None = None  # None while it is still recovering
    extra: dict = field(default_factory=dict)
    started: float = 0.0  # when the fault began (epoch seconds)
    ended: float | None = None  # when the fault itself was over (a cut restored, a process started again)


@dataclass
class Recovery:
    injection: Injection
    since: float  # the moment recovery time is counted from
    deadline: float
    done: object  # () -> None (not yet), True or a float (recovered; in that many seconds) or a str (failed: why)


class FaultsMixin:
    """The injector thread (``faults``), the faults themselves and the bookkeeping of their recoveries."""

    def schedule(self) -> list[tuple[float, str]]:
        """(seconds into the run, fault): every kind once early (flushdb first: its recovery waits out the
        platform's two-minute republish), then the cycle again every --fault-gap seconds while there is room."""
        run = self.args.minutes * 60
        gap = self.args.fault_gap
        # the edge's faults once a remote bot is likely validated and on the ladder; the longest not last
        order = ["flushdb", "worker-kill", "db-cut", "relay-flush", "beat-kill", "web-db-outage", "two-beats"]
        plan, t, k = [], 8.0, 0
        while t <= run - 10:
            fault = order[k % len(order)]
            room = {"flushdb": REPUBLISH_AFTER_S + 2 * RECOVER_EVERY,
                    "web-db-outage": self.args.web_db_outage_seconds + 30}.get(fault, 30.0)
            if k < len(order) or t + room <= run:
                plan.append((t, fault))
            k += 1
            t += gap
        return plan

    def faults(self) -> None:
        for number, (at, fault) in enumerate(self.schedule()):
            delay = self.run_started + at - time.time()
            if self.stop_load.wait(max(0.0, delay)):
                return
            try:
                self.inject(fault)
            except Exception as err:
                self.thread_errors.append(f"fault {fault}: {type(err).__name__}: {err}")
                say(f"fault {fault} could not be injected: {type(err).__name__}: {err}")
            if number == 0:
                # The remote bots connect once the first flushdb is over: their validation and first ladder
                # matches are then not among the messages it loses, which wait two minutes to be published again.
                try:
                    self.start_remote_bots()
                except Exception as err:
                    self.thread_errors.append(f"remote bots: {type(err).__name__}: {err}")
                    say(f"the remote bots could not be started: {type(err).__name__}: {err}")

    def inject(self, fault: str) -> None:
        injection = Injection(fault, time.time() - self.run_started, started=time.time())
        self.injections.append(injection)
        try:
            getattr(self, "fault_" + fault.replace("-", "_"))(injection)
        except Exception as err:  # say so in its row, not as a recovery that never came
            injection.survived = False
            injection.detail += f"; NOT INJECTED: {type(err).__name__}: {err}"
            raise
        finally:
            injection.ended = time.time()

    def _recover(self, injection: Injection, since: float, done, bound: float | None = None) -> None:
        with self.recovery_lock:
            self.recoveries.append(Recovery(injection, since, since + (bound or self.args.recovery_bound), done))

    def _evaluate_recoveries(self) -> None:
        with self.recovery_lock:
            pending = [r for r in self.recoveries if r.injection.survived is None]
        for recovery in pending:
            try:
                verdict = recovery.done()
            except psycopg.Error as err:
                verdict = None
                say(f"recovery check of {recovery.injection.fault}: {err}")
            now = time.time()
            if verdict is True or isinstance(verdict, float):
                recovery.injection.recovery = verdict if isinstance(verdict, float) else now - recovery.since
                recovery.injection.survived = True
                say(f"{recovery.injection.fault} at {recovery.injection.at:.0f}s recovered in "
                    f"{recovery.injection.recovery:.1f} s")
            elif isinstance(verdict, str):
                recovery.injection.survived = False
                recovery.injection.detail += f"; NOT SURVIVED: {verdict}"
                say(f"{recovery.injection.fault} at {recovery.injection.at:.0f}s not survived: {verdict}")
            elif now > recovery.deadline:
                recovery.injection.survived = False
                bound = recovery.deadline - recovery.since
                recovery.injection.detail += f"; NOT SURVIVED: no recovery within {bound:.0f} s"
                say(f"{recovery.injection.fault} at {recovery.injection.at:.0f}s: no recovery in time")

    def _drain(self) -> None:
        """After the run: wait for the open recoveries, each until its own deadline, at most --drain-seconds."""
        limit = time.time() + self.args.drain_seconds
        while time.time() < limit:
            with self.recovery_lock:
                open_ = [r for r in self.recoveries if r.injection.survived is None]
            if not open_ or time.time() > max(r.deadline for r in open_) + 2:
                break
            time.sleep(1)
        with self.recovery_lock:
            for recovery in self.recoveries:
                if recovery.injection.survived is None:
                    recovery.injection.survived = False
                    recovery.injection.detail += "; NOT SURVIVED: still recovering when the soak ended"

    def fault_windows(self) -> list[tuple[str, float, float]]:
        """(fault, start, end) of every fault injected: from its start to --edge-slack seconds after it was over
        (a seat hurt by it is ruled on within its clock and the remote grace)."""
        now = time.time()
        return [(i.fault, i.started, (i.ended or now) + self.args.edge_slack) for i in self.injections if i.started]

    def _events_since(self, ids: list[int], since: float, event_filter: str) -> dict[int, float]:
        with self.db() as conn:
            rows = conn.execute(f"SELECT match_id, min(extract(epoch FROM at)) FROM soak_match_event WHERE match_id = "
                                f"ANY(%s) AND at > to_timestamp(%s) AND {event_filter} GROUP BY match_id",
                                [ids, since]).fetchall()
        return {pk: float(at) for pk, at in rows}

    def fault_worker_kill(self, injection: Injection) -> None:
        kills = sum(1 for i in self.injections if i.fault == "worker-kill")
        target = self.site.workers[(kills - 1) % len(self.site.workers)]
        playing: list[int] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not playing:
            pids = {p.pid for p in target.pool()}
            with self.db() as conn:
                rows = conn.execute("SELECT id, lease_owner FROM matches_match WHERE status = 'running'").fetchall()
            playing = [pk for pk, owner in rows if owner.count(":") >= 2 and owner.split(":")[1].isdigit()
                       and int(owner.split(":")[1]) in pids]
            if not playing:
                time.sleep(0.3)
        processes = target.descendants()
        killed_at = time.time()
        target.kill()
        injection.detail = (f"{target.name} killed while playing {len(playing)} match(es) "
                            f"{playing[:4]}, {len(processes)} processes under it")
        say(f"fault worker-kill: {injection.detail}")

        # Its bots must die with it (bwrap's --die-with-parent), before the restarted worker's sweep could hide
        # a survivor: look for 15 s, then start it again.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not all(gone(p) for p in processes):
            time.sleep(0.2)
        for proc in processes:
            if not gone(proc):
                self._left_behind(proc, f"{target.name} (SIGKILLed)")
                injection.detail += "; a process outlived it"
        time.sleep(max(0.0, killed_at + 2 - time.time()))
        target.start()

        def done():
            if not playing:
                return True if target.alive() and "ready." in target.output() else None
            with self.db() as conn:
                rows = {pk: (kind, status) for pk, kind, status in conn.execute(
                    "SELECT id, kind, status FROM matches_match WHERE id = ANY(%s)", [playing])}
            if any(status not in TERMINAL for _, status in rows.values()):
                return None
            # a casual match is aborted, not played again: a person's moves cannot be replayed
            failed = [pk for pk, (kind, status) in rows.items()
                      if status != "finished" and not (kind == "casual" and status == "aborted")]
            return f"match(es) {failed} ended {[rows[pk][1] for pk in failed]}" if failed else True

        self._recover(injection, killed_at, done)

    def fault_flushdb(self, injection: Injection) -> None:
        deadline = time.monotonic() + 15  # a moment when messages wait in the queues (early on: the uploads')
        while True:
            with self.db() as conn:
                lost = [row[0] for row in conn.execute(
                    "SELECT id FROM matches_match WHERE status = 'queued' AND published_at IS NOT NULL")]
            if len(lost) >= 10 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        flushed_at = time.time()
        self.redis.flushdb()
        injection.detail = f"{len(lost)} queued match(es) lost their message"
        say(f"fault flushdb: {injection.detail}")

        def done():
            if not lost:
                return True
            claimed = self._events_since(lost, flushed_at, "new_status = 'running'")
            republished = self._events_since(lost, flushed_at, "event = 'republish'")
            with self.db() as conn:
                ended = {row[0] for row in conn.execute(
                    "SELECT id FROM matches_match WHERE id = ANY(%s) AND status <> 'queued'", [lost])}
            if any(pk not in claimed and pk not in republished and pk not in ended for pk in lost):
                return None
            if republished and not any(claimed.get(pk, 0) >= at for pk, at in republished.items()):
                return None  # published again, but none of those messages has reached a worker yet
            injection.detail += f" ({len(republished)} published again, {len(claimed)} claimed since)"
            return True

        self._recover(injection, flushed_at, done, bound=max(self.args.recovery_bound, REPUBLISH_AFTER_S + 120))

    def fault_db_cut(self, injection: Injection) -> None:
        with self.db() as conn:
            running = [row[0] for row in conn.execute("SELECT id FROM matches_match WHERE status = 'running'")]
            injection.extra["queued"] = [row[0] for row in conn.execute(
                "SELECT id FROM matches_match WHERE status = 'queued' AND published_at IS NOT NULL")]
        self.proxy.cut()
        time.sleep(self.args.db_cut_seconds)
        self.proxy.restore()
        restored = time.time()
        injection.extra["restored"] = restored
        injection.detail = f"{self.args.db_cut_seconds:.0f} s cut with {len(running)} match(es) running"
        say(f"fault db-cut: {injection.detail}")

        def done():
            with self.db() as conn:
                again = conn.execute("SELECT count(*) FROM soak_match_event WHERE new_status = 'finished' "
                                     "AND at > to_timestamp(%s)", [restored]).fetchone()[0]
            return True if again else None

        self._recover(injection, restored, done)

    def fault_beat_kill(self, injection: Injection) -> None:
        beat = self.site.beat
        killed = time.time()
        beat.kill()
        down = [killed, None]
        self.beat_down.append(down)
        time.sleep(self.args.beat_down_seconds)
        beat.start()
        restarted = time.time()
        down[1] = restarted
        injection.detail = f"beat down {restarted - killed:.0f} s"
        say(f"fault beat-kill: {injection.detail}")

        def done():
            with self.log_lock:
                ran = all(any(t > restarted for t in self.logs.succeeded.get(job, [])) for job in BEAT_JOBS)
            return True if ran else None

        self._recover(injection, restarted, done)

    def fault_two_beats(self, injection: Injection) -> None:
        self.site.beat2 = self.site.beat2 or self.site._beat("beat2")
        second = self.site.beat2
        before = self.ladder_history[-1][1] if self.ladder_history else {}
        # What the ladder may stand at: its depth (and one set), or what it already stood at (over-filled before).
        allowed = {preset: max(self.ladder_bound(preset), before.get(preset, 0)) for preset in self.set_sizes}
        started = time.time()
        second.start()
        time.sleep(self.args.two_beats_seconds)
        second.stop(grace=20)
        stopped = time.time()
        injection.detail = f"a second beat for {stopped - started:.0f} s"
        say(f"fault two-beats: {injection.detail}")

        def done():
            peaks = collections.Counter()
            for t, counts in list(self.ladder_history):
                if t >= started:
                    for preset, n in counts.items():
                        peaks[preset] = max(peaks[preset], n)
            over = {p: n for p, n in peaks.items() if n > allowed.get(p, self.ladder_bound(p))}
            if over:
                return "the ladder rose to " + ", ".join(f"{n} {p} (allowed {allowed[p]})" for p, n in over.items())
            # Fill tasks the second beat sent may still be in the queue: watch a little longer.
            return 0.0 if time.time() > stopped + 10 else None

        self._recover(injection, stopped, done)

    def _wait_for_edge_in_play(self) -> None:
        """Up to --edge-wait seconds for a moment when a remote bot's match and a person's are both being played
        (a fault of the edge should hit both; the remote bots' ladder matches come in bursts)."""
        deadline = time.monotonic() + self.args.edge_wait
        while time.monotonic() < deadline:
            with self.db() as conn:
                kinds = {person for _, person in conn.execute(edge.IN_PLAY_SQL)}
            if kinds == {True, False} or (kinds and not self.remote_bots):
                return
            time.sleep(0.3)

    def _edge_played_between(self, start: float, end: float) -> dict[int, bool]:
        """{match id: whether a person sits there} of the remote and person matches played at some moment from
        ``start`` to ``end``: the ones a fault then may have hurt."""
        with self.db() as conn:
            return dict(conn.execute(edge.PLAYED_BETWEEN_SQL, {"start": start, "end": end}).fetchall())

    def _edge_ended_well(self, hit: dict[int, bool], since: float) -> bool | str | None:
        """Every hit match ended well for its remote and person seats, and a match with such a seat finished
        since ``since`` (the edge plays on)."""
        with self.db() as conn:
            outcome = edge.edge_outcome(conn.execute(edge.EDGE_SEATS_OF_SQL, [list(hit)]).fetchall()) if hit else True
            if outcome is not True:
                return outcome
            return True if conn.execute(edge.FINISHED_SINCE_SQL, [since]).fetchone()[0] else None

    @staticmethod
    def _hit_words(hit: dict[int, bool]) -> str:
        people = sorted(pk for pk, person in hit.items() if person)
        remote = sorted(pk for pk, person in hit.items() if not person)
        return (f"played meanwhile: {len(remote)} remote bot match(es) {remote[:4]}, {len(people)} person "
                f"match(es) {people[:4]}")

    def fault_relay_flush(self, injection: Injection) -> None:
        self._wait_for_edge_in_play()
        flushed_at = time.time()
        what = edge.flush_relay(self.relay_url, self.args.redis)
        hit = self._edge_played_between(flushed_at, flushed_at)
        injection.detail = f"{what}; {self._hit_words(hit)}"
        say(f"fault relay-flush: {injection.detail}")
        self._recover(injection, flushed_at, lambda: self._edge_ended_well(hit, flushed_at))

    def fault_web_db_outage(self, injection: Injection) -> None:
        self._wait_for_edge_in_play()
        away: list[float | None] = [time.time(), None]
        self.web_db_away.append(away)
        self.site.web_db.cut()
        time.sleep(self.args.web_db_outage_seconds)
        self.site.web_db.restore()
        restored = away[1] = time.time()
        hit = self._edge_played_between(away[0], restored)
        injection.detail = f"the web without PostgreSQL for {restored - away[0]:.0f} s; {self._hit_words(hit)}"
        say(f"fault web-db-outage: {injection.detail}")

        def done():
            if edge.healthz(self.site.port) != 200:
                return None
            with self.db() as conn:
                connected = conn.execute(edge.CONNECTED_SINCE_SQL, [restored]).fetchone()[0]
            if connected < len(self.remote_bots):  # each connection's heartbeat is recorded again
                return None
            return self._edge_ended_well(hit, restored)

        self._recover(injection, restored, done)
