"""A soak of the whole site under faults, with the invariants of docs/matches.md checked all along.

    .venv/bin/python bench/soak.py [--minutes 30] [--redis redis://127.0.0.1:6379/6]
                                   [--relay-redis redis://127.0.0.1:6379/7] [--json FILE] [--keep]

Starts the real processes, each in a session of its own with its own log, in a temporary folder: the web server
as production runs it (gunicorn with uvicorn's worker, ASGI: config.asgi, config.web_worker) on a free port, two
Celery workers on the site's own queue order (config.celery_settings.QUEUE_ORDER) and, unless
--no-maintenance-worker, a third worker on the maintenance queue alone (as deploy/entrypoint.sh), and beat; on a
fresh PostgreSQL database (kozyr_soak_<pid>, migrated, dropped at the end), a Redis database of its own for the
broker (--redis) and another for the live relay (--relay-redis: the relay's own database on the broker's
server, as the site's default has it, but one no other soak or test shares); both are flushed. The workers
reach PostgreSQL through a local TCP proxy that the soak can cut, the web server through another, a process of
its own (bench/tcp_proxy.py) that the soak can kill; beat and the soak itself connect directly. Sandbox backend
bwrap (weak limits accepted).

The site is kept busy: 50+ bots uploaded through the HTTP API by 20 accounts (the starter kits of
examples/*/python, slow first-legal bots, and bench/bots/soak/misbehave.py bots that crash, stall past their
move time and bank, or flood stdout or stderr in a share of their matches), the ladder at depth 30, a round
robin hosted, joined and started through the API (another when it ends), new versions uploaded all along,
reader threads GETting the pages and the API, and the real-time edge (bench/soak_edge.py): --remote-bots
remote bots on the Bura ladder, each the real `arena connect` running the Bura starter kit (thinking
--remote-think seconds a decision, bench/bots/soak/thinking.py), and --people
people at live tables against a house bot (greedy-bura, active for them and so on the Bura ladder too),
scripted as the table's page behaves, sitting down again whenever a match ends. Faults are injected on a
schedule:

  worker-kill  SIGKILL a match worker's process group while it plays (its bots must die with it), restart it;
               recovery: until every match it was playing is finished by another worker;
  flushdb      FLUSHDB the broker's Redis database (every queued message is lost);
               recovery: until every match whose message was lost is published again or claimed, and one
               published again has been claimed;
  db-cut       the workers' database proxy refuses and drops every connection for a few seconds;
               recovery: from the end of the cut until a match finishes again;
  beat-kill    SIGKILL beat, keep it down a while, start it again;
               recovery: from its restart until recover_matches and fill_ladder have both run on a worker;
  two-beats    a second beat beside the first for a while;
               recovery: from stopping it until the ladder is within its depth again (0 if it never left it);
  relay-flush  the live relay loses everything (its keys deleted at once, as a Redis restarted without
               persistence: kozyr:live:* and kozyr:remote:* when it shares the broker's database, else FLUSHDB
               of its own), at a moment a remote bot's and a person's match are being played (waiting up to
               --edge-wait seconds for one);
               recovery: until every such match ended well (finished, a person's also aborted) and a match
               with a remote or a person seat finished since;
  web-db-outage  the web tier loses PostgreSQL for --web-db-outage-seconds (35) while the workers keep theirs:
               its proxy is SIGKILLed (open connections die, new ones are refused), then started again;
               recovery: from its return until /healthz answers 200, every remote bot is connected again,
               every remote or person match played during the outage ended well, and a match with a remote
               or a person seat finished since. Its 5xx (and --web-db-settle seconds after) are expected.

Invariants, checked every few seconds by SQL in one REPEATABLE READ snapshot (triggers installed in the soak's
database log every status change of a match and every write of a seat):
  no match finished twice (a finish event per match at most, a finished row never changes, a seat is written
  once; tournament pairings and tables count each finished match once; a version's validation follows its
  match) · ratings count each ranked match once (Rating.games and W/D/L against the finished ranked matches)
  · nothing stuck past its lease (no running match whose lease expired longer ago than --lease-slack) · no
  validation, challenge or tournament match queued longer than --queued-bound (the ladder is a backlog by
  design, 30 sets deep; its lost messages are the flushdb fault's to time) · the ladder never over its depth
  (duplicate sets with a match queued or running, exactly) ·
  no bot process left behind (descendants of a killed or stopped worker, and processes in the soak's sandbox
  cgroups, gone) · no 5xx (web access log, readers, uploads, people; but while the web's database is away) ·
  the web serves again once its database is back (no 5xx from --web-db-settle to 120 s after it came back) ·
  Redis memory bounded (the soak's two databases) · no remote or person seat lost to a fault (a seat of a remote bot
  or a person in a finished match that overlapped a fault's window, from its start to --edge-slack seconds
  after its end, was scored ok; people's ratings count each finished casual match once, under ratings-once)
  · every casual match ended finished or aborted (never failed or cancelled, none left queued or running).

Prints a table of the faults (injected, survived, worst recovery), the invariants and the figures
(throughput, remote and casual matches by how they ended, the remote and person seats' verdicts, Redis memory,
queue lengths, beat-job gaps, deadlocks, ...). Exit status 1 when an invariant
failed or a fault was not survived, 0 otherwise. On failure the folder with every log is kept (its path is
printed); --keep also keeps the database.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "platform")]

import psutil  # noqa: E402
import psycopg  # noqa: E402

from bench import soak_edge as edge  # noqa: E402
from bench.soaking.common import BIN, OWNER_KEY, RECOVER_EVERY, say  # noqa: E402
from bench.soaking.faults import FaultsMixin, Injection, Recovery  # noqa: E402
from bench.soaking.invariants import AUDIT_SQL, WEB_BACK_S, Findings, InvariantsMixin, LogEvents  # noqa: E402
from bench.soaking.load import PEOPLE_OPPONENT, LoadMixin, Web  # noqa: E402
from bench.soaking.processes import ProcessesMixin, Service, free_port  # noqa: E402
from bench.soaking.report import Figures, ReportMixin  # noqa: E402
from config.celery_settings import QUEUE_ORDER  # noqa: E402

# What others take from here: bench/fair_share.py the site's processes, tests/platform/site/test_soak.py the checks.
__all__ = ["AUDIT_SQL", "BIN", "WEB_BACK_S", "Injection", "Service", "Soak", "free_port", "main", "parse_args", "say"]


class Soak(ProcessesMixin, LoadMixin, FaultsMixin, InvariantsMixin, ReportMixin):
    """One soak: its state, shared by every part's threads, and the run that ties the parts together."""

    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.findings = Findings()
        self.figures = Figures()
        self.stop_load = threading.Event()
        self.stop_monitor = threading.Event()
        self.injections: list[Injection] = []
        self.recoveries: list[Recovery] = []
        self.recovery_lock = threading.Lock()
        self.logs = LogEvents()
        self.log_lock = threading.Lock()
        self.beat_down: list[list[float | None]] = []  # [from, to] while no beat ran
        self.tracked: dict[tuple[int, float], tuple[psutil.Process, str, int]] = {}
        self.tracked_lock = threading.Lock()
        self.recent_matches: list[int] = []
        self.tournaments: list[int] = []
        self.ladder_peak: dict[str, int] = {}
        self.ladder_first_over: dict[str, float] = {}
        self.ladder_history: collections.deque = collections.deque(maxlen=4000)
        self.run_started = self.run_ended = 0.0
        self.processed_ranked: set[int] = set()
        self.expected_games: collections.Counter = collections.Counter()
        self.versions_seen: dict[int, float] = {}
        self.thread_errors: list[str] = []
        self.edge_forfeits: dict[str, str] = {}  # remote or person seats not ok outside every fault's window
        self.processed_casual: set[int] = set()
        self.remote_bots: list[edge.RemoteBot] = []
        self.people: list[edge.Person] = []
        self.web_db_away: list[list[float | None]] = []  # [cut, restored] of the web's database
        self.web_back: dict[str, tuple[int, float, str]] = {}  # per outage: 5xx after it, the latest, the first
        self.final = False  # the last check, after the site stopped: nothing may still be queued or running

    @contextlib.contextmanager
    def db(self):
        conn = psycopg.connect(self.db_url, autocommit=True)
        try:
            yield conn
        finally:
            conn.close()

    def monitor(self) -> None:
        """Every second, one thread for every part's samples: supervision and processes, logs, the ladder, the
        faults' recoveries; Redis and the sandboxes every 5 s, the tracked processes every 10 s."""
        conn = psycopg.connect(self.db_url, autocommit=True)
        ticks = 0
        while not self.stop_monitor.wait(1):
            ticks += 1
            try:
                self._supervise()
                self._sample_processes()
                self._read_logs()
                self._sample_ladder(conn)
                self._evaluate_recoveries()
                if ticks % 5 == 0:
                    for database in self.owned:
                        database.set(OWNER_KEY, self.owner, ex=30)  # again after a FLUSHDB
                    self._sample_redis()
                    self.figures.peak("sandboxed processes seen at once", len(self.sandboxed()))
                if ticks % 10 == 0:
                    self._check_tracked()
            except Exception as err:  # a monitor that dies silently would hide everything after it
                self.thread_errors.append(f"monitor: {type(err).__name__}: {err}")
                say(f"monitor error: {type(err).__name__}: {err}")
                with contextlib.suppress(Exception):
                    conn.close()
                conn = psycopg.connect(self.db_url, autocommit=True)
        conn.close()

    def run(self) -> int:
        try:
            self.prepare()
            self._soak()
        except BaseException:
            say("the soak stopped early; killing the site")
            self.stop_load.set()
            self.stop_monitor.set()
            for service in self.site.services() if hasattr(self, "site") else []:
                service.intended_down = True
                if service.alive():
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(service.proc.pid, signal.SIGKILL)
            for person in self.people:
                person.gone.set()
            for bot in self.remote_bots:
                bot.stop(grace=0)
            if hasattr(self, "site"):
                self.site.web_db.cut()
            self.cleanup(keep_folder=True)
            raise
        code = self.report()
        self.cleanup(keep_folder=code != 0 or self.args.keep)
        return code

    def _soak(self) -> None:
        t0 = time.monotonic()
        self.site.start(meanwhile=self.populate)
        say(f"site up in {time.monotonic() - t0:.1f} s on port {self.site.port}: web, "
            f"{', '.join(w.name for w in self.site.all_workers())}, beat; queue order {','.join(QUEUE_ORDER)}")
        self.web = Web(self.site.port, self.findings, self.figures, self.outage_5xx)
        self.run_started = time.time()  # the run starts with the uploads: seeding is part of the load
        for target in (self.monitor, self.checker):
            threading.Thread(target=target, daemon=True).start()
        say(f"run: {self.args.minutes} min; faults at {[(round(t), f) for t, f in self.schedule()]}")
        threads = [threading.Thread(target=self.reader, args=(i,), daemon=True) for i in range(self.args.readers)]
        threads += [threading.Thread(target=self.seed_then_upload, daemon=True),
                    threading.Thread(target=self.tournaments_all_along, daemon=True)]
        people = [threading.Thread(target=self.person, args=(i,), daemon=True) for i in range(self.args.people)]
        threads += people
        injector = threading.Thread(target=self.faults, daemon=True)
        for thread in [*threads, injector]:
            thread.start()
        end = self.run_started + self.args.minutes * 60
        while time.time() < end:
            time.sleep(1)
        self.run_ended = time.time()
        injector.join(timeout=120)
        self._drain()
        self.stop_load.set()  # people finish the match at hand (it is counted: it must end well too)
        for thread in threads:
            thread.join(timeout=70)
        deadline = time.time() + 150  # a person's match: a few minutes at the very most
        for thread in people:
            thread.join(timeout=max(0.0, deadline - time.time()))
        if any(thread.is_alive() for thread in people):
            say("a person is still at a table when the site stops (the last check will say which match)")
        for person in self.people:
            person.gone.set()
        say("stopping the site")
        self.site.stop()
        for bot in self.remote_bots:  # after the workers: their last matches' remote seats were still served
            bot.stop()
        self.stop_monitor.set()
        self.final = True
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            self.check(conn)  # once more, after the site stopped: nothing may still wait or play
        self._final_process_scan()
        self._read_logs()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30, help="length of the run under faults (default 30)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6", help="the broker's Redis database (flushed)")
    parser.add_argument("--relay-redis", default="redis://127.0.0.1:6379/7",
                        help="the live relay's Redis database (KOZYR_LIVE_REDIS_URL; flushed). The site's default is "
                             "a fixed database of the broker's server, which every soak and test there would share "
                             "(and the relay-flush fault flush); the same as --redis is allowed")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432", help="the server (no database)")
    parser.add_argument("--workers", type=int, default=2, help="match workers (default 2)")
    parser.add_argument("--concurrency", type=int, default=2, help="processes per match worker (default 2)")
    parser.add_argument("--maintenance-worker", action=argparse.BooleanOptionalAction, default=True,
                        help="a third worker on the maintenance queue alone, as deploy/entrypoint.sh starts one "
                             "(default on)")
    parser.add_argument("--maintenance-concurrency", type=int, default=2,
                        help="its processes (default 2, as deploy/entrypoint.sh)")
    parser.add_argument("--depth", type=int, default=30, help="KOZYR_LADDER_QUEUE_DEPTH (default 30)")
    parser.add_argument("--lease-seconds", type=int, default=30, help="KOZYR_LEASE_SECONDS (default 30)")
    parser.add_argument("--bots", type=int, default=54, help="uploaded bots at the start (at least 50)")
    parser.add_argument("--users", type=int, default=20, help="accounts the bots are spread over")
    parser.add_argument("--house-bots", action="store_true", help="house bots play the ladder too")
    parser.add_argument("--readers", type=int, default=3, help="threads reading pages and the API")
    parser.add_argument("--remote-bots", type=int, default=2,
                        help="remote bots on the Bura ladder, each an `arena connect` of its own (default 2)")
    parser.add_argument("--remote-max-matches", type=int, default=4,
                        help="arena connect --max-matches (default 4, its own default)")
    parser.add_argument("--remote-think", type=float, default=0.3,
                        help="seconds a remote bot holds each action back (default 0.3 of the 1 s move time: its "
                             "matches last long enough for a fault to find one in play)")
    parser.add_argument("--people", type=int, default=2,
                        help=f"people at live tables against {PEOPLE_OPPONENT}, one match after another (default 2)")
    parser.add_argument("--reader-pause", type=float, default=0.25, help="seconds between a reader's requests")
    parser.add_argument("--upload-every", type=float, default=12, help="seconds between uploads during the run")
    parser.add_argument("--seed-wait", type=float, default=90, help="at most this long for the first validations")
    parser.add_argument("--fault-gap", type=float, help="seconds between faults (20; 75 when over 4 minutes)")
    parser.add_argument("--db-cut-seconds", type=float, default=8)
    parser.add_argument("--web-db-outage-seconds", type=float, default=35,
                        help="the web tier without PostgreSQL this long (default 35)")
    parser.add_argument("--web-db-settle", type=float, default=10,
                        help="5xx this long after the web's database came back are still the outage's (default 10: "
                             "a request waiting for a connection when it came back, the log read a moment late)")
    parser.add_argument("--edge-wait", type=float,
                        help="an edge fault waits up to this long for a remote bot's and a person's match to be in "
                             "play (15; 120 over 4 minutes)")
    parser.add_argument("--edge-slack", type=float, default=90,
                        help="a fault's window reaches this long past its end for the seats' check (default 90: a "
                             "seat hurt by it is ruled on within its clock and the remote grace)")
    parser.add_argument("--beat-down-seconds", type=float, help="beat stays dead this long (15; 20 over 4 minutes)")
    parser.add_argument("--two-beats-seconds", type=float, help="two beats this long (20; 30 over 4 minutes)")
    parser.add_argument("--drain-seconds", type=float,
                        help="after the run, at most this long for open recoveries (30; the recovery bound over 4 "
                             "minutes)")
    parser.add_argument("--check-every", type=float, default=5, help="seconds between invariant checks")
    parser.add_argument("--lease-slack", type=float, default=3 * RECOVER_EVERY,
                        help="a running match whose lease expired longer ago than this is stuck (default 45)")
    parser.add_argument("--queued-bound", type=float, default=300, help="seconds a match may wait queued")
    parser.add_argument("--recovery-bound", type=float, default=240, help="seconds a fault may take to recover")
    parser.add_argument("--redis-max-mb", type=float, default=64, help="bound of the soak's Redis database")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the database and the folder")
    args = parser.parse_args(argv)
    short = args.minutes <= 4  # the form `make test` runs: every fault once, close together
    for name, quick, slow in (("fault_gap", 20, 75), ("beat_down_seconds", 15, 20), ("two_beats_seconds", 20, 30),
                              ("drain_seconds", 30, args.recovery_bound + 20), ("edge_wait", 15, 120)):
        if getattr(args, name) is None:
            setattr(args, name, quick if short else slow)
    if args.bots < 50:
        parser.error("--bots: at least 50")
    return args


def main(argv: list[str] | None = None) -> int:
    return Soak(parse_args(argv)).run()


if __name__ == "__main__":
    sys.exit(main())
