"""The soak (bench/soak.py): its short form on real processes under every fault for two and a half minutes,
remote bots and people at live tables among the load, and its invariant checks against rows that break each
invariant on purpose (a harness that sees nothing proves nothing). The long form is bench/soak.py itself: 30
minutes by default."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from tests.support.resources import redis_url

REPO = Path(__file__).resolve().parents[3]
FAULTS = {"worker-kill", "flushdb", "db-cut", "beat-kill", "two-beats", "relay-flush", "web-db-outage"}
# Redis databases of its own, the broker's and the live relay's: the soak flushes them (and refuses one that
# another soak is using).
REDIS = redis_url("soak")
RELAY_REDIS = redis_url("soak-relay")
RESULT = {"seats": [{"seat": 0, "verdict": "ok"}, {"seat": 1, "verdict": "ok"}], "ranks": [1, 2], "points": [0, 12],
          "points_kind": "penalty", "teams": [[0], [1]], "ended_by": "rules"}
# Seat 0 forfeited: what a relay flush or the web's database outage made of a remote bot's seat before 714b825.
FORFEIT = {**RESULT, "ranks": [2, 1], "points": [12, 0], "ended_by": "forfeit",
           "seats": [{"seat": 0, "verdict": "timeout", "code": "disconnected", "detail": "no connection for 60 s"},
                     {"seat": 1, "verdict": "ok"}]}


@pytest.mark.slow
@pytest.mark.site
def test_it_survives_every_fault_with_every_invariant_kept(tmp_path):
    report_file = tmp_path / "soak.json"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "soak.py"), "--minutes", "2.5", "--redis", REDIS,
                           "--relay-redis", RELAY_REDIS, "--json", str(report_file)],
                          capture_output=True, text=True, timeout=280)
    assert report_file.exists(), done.stderr[-6000:]
    report = json.loads(report_file.read_text())
    assert {fault for fault, row in report["faults"].items() if row["injected"]} == FAULTS, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    # the real-time edge was among the load: remote bots validated over their connections, people played
    assert set(report["figures"]["remote versions"].values()) == {"ready"}, done.stdout
    assert report["figures"]["casual matches finished"] >= 1, done.stdout


def soak_module():
    return importlib.import_module("bench.soak")


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

    check.checker = checker
    return check


def ranked_match(kind: str = "ladder", first=None):
    from bots.actions import house_version
    from matches import actions

    return actions.create_match(kind=kind, preset="bura", ranked=kind == "ladder",
                                seat_versions=[first or house_version("bura", "random"),
                                               house_version("bura", "greedy")])


def play(match, owner: str = "host:1:a", result: dict = RESULT) -> None:
    from matches import actions

    assert actions.claim(match.pk, owner) is not None
    assert actions.finish(match.pk, owner, result, "", 0, {})


def remote_version(user):
    from bots.actions import do_create_bot
    from bots.models import BotVersion
    from bots.remote import do_make_remote_version

    version, _ = do_make_remote_version(do_create_bot(user, game="bura", name="far-away", presets=["bura"]))
    BotVersion.objects.filter(pk=version.pk).update(status="ready")
    return version


def casual_match(user):
    from bots.people import person_version

    return ranked_match("casual", person_version(user, "bura"))


def a_fault_now(checker, fault: str = "relay-flush") -> None:
    soak = soak_module()
    checker.injections.append(soak.Injection(fault, 0.0, started=time.time() - 2, ended=time.time() - 1))


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


def test_its_checks_see_a_remote_seat_lost_to_a_fault_and_a_casual_match_that_failed(violations, alice):
    from matches.models import Match

    a_fault_now(violations.checker)
    lost = ranked_match(first=remote_version(alice))
    play(lost, result=FORFEIT)
    failed = casual_match(alice)
    Match.objects.filter(pk=failed.pk).update(status="failed", failure="attempt 3: the worker died")
    found = violations()
    assert set(found) == {"edge-seats", "casual"}
    assert found["edge-seats"] == [f"ladder match {lost.pk}: seat 0 (far-away) scored timeout/disconnected during "
                                   f"relay-flush: no connection for 60 s"]
    assert found["casual"] == [f"casual match {failed.pk} ended failed: attempt 3: the worker died"]


def test_its_checks_accept_a_forfeit_far_from_every_fault_but_count_it(violations, alice):
    lost = ranked_match(first=remote_version(alice))
    play(lost, result=FORFEIT)
    assert violations() == {}  # no fault: the remote bot's own doing, as far as the soak can tell
    assert list(violations.checker.edge_forfeits) == [f"{lost.pk}:0"]


def test_its_checks_count_a_persons_casual_match_once_and_accept_an_aborted_one(violations, alice):
    from matches import actions
    from ratings.models import Rating

    a_fault_now(violations.checker, "worker-kill")
    play(casual_match(alice))
    aborted = casual_match(alice)
    assert actions.claim(aborted.pk, "host:4:d") is not None
    assert actions.release(aborted.pk, "host:4:d", "attempt 1: the worker host:4:d stopped renewing its lease")
    assert Rating.objects.get(bot__name="@alice", preset="bura").games == 1
    assert violations() == {}
    violations.checker.final = True  # after the site stopped, nothing may still wait to be played
    left = casual_match(alice)
    assert violations() == {"casual": [f"casual match {left.pk} is still queued"]}


def test_its_checks_see_a_persons_rating_counted_twice(violations, alice):
    from ratings.models import Rating

    play(casual_match(alice))
    Rating.objects.filter(bot__name="@alice", preset="bura").update(games=2, wins=2)
    found = violations()
    assert set(found) == {"ratings-once"}
    assert "2 games counted" in found["ratings-once"][0] and "1 finished ranked matches" in found["ratings-once"][0]


def test_its_checks_expect_5xx_while_the_webs_database_is_away_but_not_long_after_it_came_back():
    soak = soak_module()
    checker = soak.Soak(soak.parse_args(["--minutes", "1", "--web-db-settle", "10"]))
    cut = time.time() - 100
    checker.web_db_away.append([cut, cut + 35])
    assert not checker.outage_5xx(cut - 30, "http", "reader GET / -> 500")  # before the outage: a plain 5xx
    assert checker.outage_5xx(cut + 20, "http", "reader GET / -> 500")
    assert checker.outage_5xx(cut + 44, "http", "reader GET / -> 500")  # within the settle
    assert checker.findings.failed() == []
    assert checker.outage_5xx(cut + 63, "http", "person GET /play/7/lines/ -> 500")
    assert checker.outage_5xx(cut + 70, "web access log", '127.0.0.1:1 - "GET /bots/ HTTP/1.1" 500')
    assert checker.findings.failed() == ["web-back"]
    assert list(checker.findings.seen["web-back"].values()) == [
        "2 5xx (http and logs) up to 35 s after the web's database came back (settle 10 s); the first: person GET "
        "/play/7/lines/ -> 500"]
    assert not checker.outage_5xx(cut + 35 + soak.WEB_BACK_S + 1, "http", "reader GET / -> 500")
