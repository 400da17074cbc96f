"""The report: a table of the faults, one of the invariants and the figures on stdout (and --json), and the
exit status."""

from __future__ import annotations

import collections
import json
import sys
import threading
import time
from pathlib import Path

from bench import soak_edge as edge
from bench.soaking.faults import FAULTS
from bench.soaking.invariants import INVARIANTS
from config.celery_settings import QUEUE_ORDER


class Figures:
    """Maxima and counters for the report, shared by every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.values: dict[str, float] = collections.defaultdict(float)

    def inc(self, name: str, by: float = 1) -> None:
        with self.lock:
            self.values[name] += by

    def peak(self, name: str, value: float) -> None:
        with self.lock:
            self.values[name] = max(self.values.get(name, value), value)

    def get(self, name: str, default: float = 0) -> float:
        with self.lock:
            return self.values.get(name, default)


class ReportMixin:
    """Reads the figures, the faults' injections and the findings once the run is over."""

    def report(self) -> int:
        with self.db() as conn:
            finished = conn.execute(
                "SELECT count(*) FROM soak_match_event WHERE new_status = 'finished' AND at BETWEEN to_timestamp(%s) "
                "AND to_timestamp(%s)", [self.run_started, self.run_ended or time.time()]).fetchone()[0]
            kinds = dict(conn.execute("SELECT kind || ' ' || status, count(*) FROM matches_match GROUP BY 1"))
            verdicts = dict(conn.execute("SELECT s.verdict, count(*) FROM matches_seat s JOIN matches_match m ON "
                                         "m.id = s.match_id WHERE m.status = 'finished' GROUP BY 1"))
            deadlocks = conn.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = %s",
                                     [self.db_name]).fetchone()[0]
            suspended = conn.execute("SELECT count(*) FROM bots_bot WHERE suspended_by = 'ladder'").fetchone()[0]
            attempts = dict(conn.execute("SELECT attempts, count(*) FROM matches_match WHERE status = 'finished' "
                                         "GROUP BY 1"))
            bots = conn.execute("SELECT count(*) FROM bots_bot WHERE name LIKE 'soak-%%'").fetchone()[0]
            edge_matches = conn.execute(edge.EDGE_MATCHES_SQL).fetchall()
            edge_seats = conn.execute(edge.EDGE_SEATS_SQL).fetchall()
            aborted = collections.Counter(edge.aborted_reason(row[0] or "") for row in conn.execute(
                "SELECT failure FROM matches_match WHERE kind = 'casual' AND status = 'aborted'"))
            remote_versions = dict(conn.execute(
                "SELECT b.name, v.status FROM bots_bot b JOIN bots_botversion v ON v.bot_id = b.id "
                "WHERE v.runtime = 'remote'").fetchall())
        minutes = max(1e-9, ((self.run_ended or time.time()) - self.run_started) / 60)
        figures = dict(self.figures.values)
        figures.update({
            "run minutes": round(minutes, 2), "matches finished in the run": finished,
            "matches finished per minute": round(finished / minutes, 1), "uploaded bots": bots,
            "bots suspended by the ladder": suspended, "postgres deadlocks": deadlocks,
            "max gap between recover_matches runs s (beat down excluded)": round(self._beat_gap(), 1),
        })
        for name, count in sorted(self.logs.discarded.items()):
            figures[f"discarded (expired) {name}"] = count
        for marker, count in sorted(self.logs.errors.items()):
            figures[f"worker log '{marker}'"] = count
        for preset, peak in sorted(self.ladder_peak.items()):
            figures[f"ladder {preset} queued+running max"] = peak
        by = collections.Counter()  # (remote or person, kind, status) -> matches
        for who, kind, status, count in edge_matches:
            by[(who, kind, status)] += count
        figures.update({
            "remote matches finished": sum(n for (w, _, st), n in by.items() if w == "remote" and st == "finished"),
            "remote matches by kind and status": {f"{k} {st}": n for (w, k, st), n in sorted(by.items())
                                                  if w == "remote"},
            "casual matches finished": sum(n for (_, k, st), n in by.items() if k == "casual" and st == "finished"),
            "casual matches aborted": sum(n for (_, k, st), n in by.items() if k == "casual" and st == "aborted"),
            "casual matches aborted, why": dict(aborted),
            "remote seats by verdict (finished matches)": {v: n for e, v, n in edge_seats if e == "remote"},
            "person seats by verdict (finished matches)": {v: n for e, v, n in edge_seats if e == "person"},
            "remote or person seats not ok outside every fault's window": len(self.edge_forfeits),
            "remote versions": remote_versions,
            "arena connect reconnections": sum(b.disconnects() for b in self.remote_bots),
            "person answers sent": sum(p.answers for p in self.people),
            "person answers refused, by code": {code: sum(p.refused.get(code, 0) for p in self.people)
                                                for code in sorted({c for p in self.people for c in p.refused})},
            "faults injected": dict(collections.Counter(i.fault for i in self.injections)),
        })
        figures["matches by kind and status"] = kinds
        figures["finished seats by verdict"] = verdicts
        figures["finished matches by attempts"] = attempts
        for service in self.site.services():
            figures[f"{service.name} starts"] = service.starts

        for injection in self.injections:
            if injection.fault == "db-cut" and injection.extra.get("queued"):
                queued, restored = injection.extra["queued"], injection.extra["restored"]
                claimed = self._events_since(queued, restored - self.args.db_cut_seconds - 1, "new_status = 'running'")
                waits = [at - restored for at in claimed.values()]
                worst = max(waits, default=0.0)
                injection.detail += (f"; of {len(queued)} queued at the cut, {len(claimed)} claimed since, the last "
                                     f"{worst:.0f} s after the database came back")
                key = "db-cut: matches queued at the cut claimed again after (worst) s"
                figures[key] = max(figures.get(key, 0.0), round(worst, 1))
        faults = {}
        for fault in FAULTS:
            done = [i for i in self.injections if i.fault == fault]
            times = [i.recovery for i in done if i.recovery is not None]
            faults[fault] = {"injected": len(done), "survived": bool(done) and all(i.survived for i in done),
                             "worst_recovery_s": round(max(times), 1) if times else None,
                             "injections": [{"at_s": round(i.at, 1), "recovery_s": None if i.recovery is None else
                                             round(i.recovery, 1), "survived": i.survived, "detail": i.detail}
                                            for i in done]}
        invariants = {name: {"title": title, "ok": not self.findings.seen[name], "violations":
                             len(self.findings.seen[name]), "examples": list(self.findings.seen[name].values())[:8]}
                      for name, title in INVARIANTS.items()}
        failed = self.findings.failed()
        code = 1 if failed or any(f["injected"] and not f["survived"] for f in faults.values()) else 0

        out = sys.stdout
        print(f"\nsoak: {minutes:.1f} min on {self.args.workers} workers x {self.args.concurrency}"
              f"{' + a maintenance worker' if self.args.maintenance_worker else ''}, ladder depth {self.args.depth}, "
              f"lease {self.args.lease_seconds} s, queue order {','.join(QUEUE_ORDER)}", file=out)
        print(f"\n{'fault':13} {'injected':>8} {'survived':>9} {'worst recovery s':>17}  detail", file=out)
        for fault, row in faults.items():
            worst = "-" if row["worst_recovery_s"] is None else f"{row['worst_recovery_s']:.1f}"
            survived = "-" if not row["injected"] else ("yes" if row["survived"] else "NO")
            detail = row["injections"][-1]["detail"] if row["injections"] else ""
            print(f"{fault:13} {row['injected']:8d} {survived:>9} {worst:>17}  {detail[:110]}", file=out)
            for inj in row["injections"]:
                if inj["survived"] is False:
                    print(f"{'':13} at {inj['at_s']:.0f}s: {inj['detail'][:160]}", file=out)
        print(f"\n{'invariant':42} {'result':>6}  violations", file=out)
        for row in invariants.values():
            print(f"{row['title']:42} {'ok' if row['ok'] else 'FAILED':>6}  {row['violations'] or ''}", file=out)
            for example in row["examples"][:4]:
                print(f"{'':44}- {example[:150]}", file=out)
        print("\nfigures", file=out)
        for name, value in figures.items():
            shown = f"{value:.1f}" if isinstance(value, float) else value
            print(f"  {name}: {shown}", file=out)
        for text in list(self.edge_forfeits.values())[:6]:
            print(f"  not ok outside the faults' windows: {text[:200]}", file=out)
        if self.thread_errors:
            print(f"\nharness errors: {self.thread_errors[:5]}", file=out)
        print(f"\nsoak {'PASSED' if code == 0 else 'FAILED'}" + (f" (logs in {self.root}/logs)" if code else ""),
              file=out)
        if self.args.json:
            Path(self.args.json).write_text(json.dumps({"faults": faults, "invariants": invariants, "figures": figures,
                                                        "exit": code, "logs": str(self.root / "logs"),
                                                        "harness_errors": self.thread_errors,
                                                        "not_ok_outside_faults": list(self.edge_forfeits.values())},
                                                       indent=1, default=str))
        return code

    def _beat_gap(self) -> float:
        runs = sorted(t for t in self.logs.succeeded.get("play.tasks.recover_matches", [])
                      if t >= self.run_started)
        worst = 0.0
        for a, b in zip([self.run_started, *runs], [*runs, self.run_ended or time.time()], strict=True):
            overlap = sum(max(0.0, min(b, end or b) - max(a, begin)) for begin, end in self.beat_down)
            worst = max(worst, b - a - overlap)
        return worst
