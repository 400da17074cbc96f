"""The soak (bench/soak.py): its short form on real processes under every fault for two and a half minutes,
and its invariant checks against rows that break each invariant on purpose (a harness that sees nothing proves
nothing). The long form is bench/soak.py itself: 30 minutes by default."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

REPO = Path(__file__).resolve().parents[2]
FAULTS = {"worker-kill", "flushdb", "db-cut", "beat-kill", "two-beats"}
# A Redis database of its own: the soak flushes it (and refuses one that another soak is using).
REDIS = os.environ.get("KOZYR_TEST_SOAK_REDIS", "redis://127.0.0.1:6379/13")
RESULT = {"seats": [{"seat": 0, "verdict": "ok"}, {"seat": 1, "verdict": "ok"}], "ranks": [1, 2], "points": [0, 12],
          "points_kind": "penalty", "teams": [[0], [1]], "ended_by": "rules"}


@pytest.mark.slow
@pytest.mark.site
def test_it_survives_every_fault_with_every_invariant_kept(tmp_path):
    report_file = tmp_path / "soak.json"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "soak.py"), "--minutes", "2.5", "--redis", REDIS,
                           "--json", str(report_file)], capture_output=True, text=True, timeout=280)
    assert report_file.exists(), done.stderr[-6000:]
    report = json.loads(report_file.read_text())
    assert {fault for fault, row in report["faults"].items() if row["injected"]} == FAULTS, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]


def soak_module():
    if "bench_soak" not in sys.modules:  # bench/ is no package; its dataclasses need the module registered
        spec = importlib.util.spec_from_file_location("bench_soak", REPO / "bench" / "soak.py")
        sys.modules["bench_soak"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["bench_soak"])
    return sys.modules["bench_soak"]


@pytest.fixture
def violations(db, house_bots):
    """violations() -> {invariant: [what was found]} in the test database, audited as the soak audits its own."""
    soak = soak_module()
    with connection.cursor() as cursor:
        cursor.execute(soak.AUDIT_SQL)
    checker = soak.Soak(soak.parse_args(["--minutes", "1"]))

    def check() -> dict[str, list[str]]:
        checker.violations(connection.connection)
        return {name: list(found.values()) for name, found in checker.findings.seen.items() if found}

    return check


def ranked_match(kind: str = "ladder"):
    from bots.actions import house_version
    from matches import actions

    return actions.create_match(kind=kind, preset="bura", ranked=kind == "ladder",
                                seat_versions=[house_version("bura", "random"), house_version("bura", "greedy")])


def play(match, owner: str = "host:1:a") -> None:
    from matches import actions

    assert actions.claim(match.pk, owner) is not None
    assert actions.finish(match.pk, owner, RESULT, "", 0, {})


def test_its_checks_find_nothing_wrong_with_a_match_played_once(violations):
    play(ranked_match())
    assert violations() == {}


def test_its_checks_see_a_match_finished_twice_and_its_rating_counted_twice(violations):
    from matches import actions
    from matches.models import Match

    match = ranked_match()
    play(match)
    Match.objects.filter(pk=match.pk).update(status="running", lease_owner="host:2:b")  # what a lost lease guard allows
    assert actions.finish(match.pk, "host:2:b", RESULT, "", 0, {})
    found = violations()
    assert set(found) == {"finished-once", "ratings-once"}
    assert any(f"match {match.pk} finished 2 times" in text for text in found["finished-once"])
    assert any("2 games counted" in text and "1 finished ranked matches" in text for text in found["ratings-once"])


def test_its_checks_see_a_stuck_lease_a_forgotten_queued_match_and_a_validation_left_pending(violations, bura_bot):
    from bots.models import BotVersion
    from bots.upload import check_upload
    from matches import actions
    from matches.models import Match
    from matches.validation import do_upload_version
    from tests.platform.conftest import python_bot

    stuck = ranked_match()
    actions.claim(stuck.pk, "host:3:c")
    Match.objects.filter(pk=stuck.pk).update(lease_expires=timezone.now() - timedelta(minutes=5))
    forgotten = ranked_match("challenge")
    backlog = ranked_match()  # a ladder match waiting an hour is the ladder's backlog, not a forgotten match
    with connection.cursor() as cursor:
        cursor.execute("UPDATE soak_match_event SET at = now() - interval '1 hour' WHERE match_id IN (%s, %s)",
                       [forgotten.pk, backlog.pk])
    version = do_upload_version(bura_bot, check_upload("main.py", python_bot("bura")))
    play(Match.objects.get(pk=version.validation_match_id))
    BotVersion.objects.filter(pk=version.pk).update(status="pending")
    found = violations()
    assert set(found) == {"lease", "queued", "validation"}
    assert f"match {stuck.pk} running under host:3:c" in found["lease"][0]
    assert len(found["queued"]) == 1
    assert f"challenge match {forgotten.pk} queued for 3600 s" in found["queued"][0]
    assert f"version {version.pk} is pending while its validation match" in found["validation"][0]
