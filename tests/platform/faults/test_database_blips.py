"""A database that goes away for a moment at any point of a worker's task is waited for, never turned into a
lost or a stuck match: between the claim and reading the seats, and while a failed attempt is given back.
(test_worker_e2e.py cuts a real connection at the end of a match; these pick the other moments exactly.)"""

from __future__ import annotations

import pytest
from django.db import OperationalError

from bots.actions import house_version
from matches import actions
from play import match as play
from play import tasks

# The retries close every connection, as they must after a real cut: so no test-wide transaction here.
pytestmark = pytest.mark.django_db(transaction=True)


def flaky(real, failures: int):
    """``real``, failing with the error a cut connection raises for its first ``failures`` calls."""
    calls = {"n": 0}

    def call(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= failures:
            raise OperationalError("server closed the connection unexpectedly")
        return real(*args, **kwargs)

    call.calls = calls
    return call


@pytest.fixture
def match(house_bots):
    return actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch):
    monkeypatch.setattr(tasks.time, "sleep", lambda seconds: None)


def test_it_plays_the_match_when_the_database_blinks_between_the_claim_and_the_seats(match, monkeypatch):
    job_for = flaky(play.job_for, failures=2)
    monkeypatch.setattr(play, "job_for", job_for)
    assert tasks.play_match(match.pk) == "finished"
    match.refresh_from_db()
    assert match.status == "finished" and match.attempts == 1 and job_for.calls["n"] == 3


def test_it_gives_a_failed_attempt_back_when_the_database_blinks_during_the_release(match, monkeypatch):
    def broken_sandbox(job):
        raise RuntimeError("the sandbox fell over")

    monkeypatch.setattr(play, "play", broken_sandbox)
    release = flaky(actions.release, failures=2)
    monkeypatch.setattr(actions, "release", release)
    assert tasks.play_match(match.pk) == "infrastructure"
    match.refresh_from_db()
    assert match.status == "queued" and match.lease_owner == "" and release.calls["n"] == 3
    assert "the worker failed: RuntimeError: the sandbox fell over" in match.failure
