"""Logs: JSON lines in production and plain ones for `make run`, every line of a request carrying its id (the
proxy's X-Request-ID when sane, returned as a header) and every line of a played match carrying the match's."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bots.actions import house_version
from config import logs
from matches import actions
from tests.platform.config.test_healthz import closed_port, site_run
from tests.platform.config.test_settings import SECRET

REQUESTS = """
import json
from django.test import Client
client = Client(raise_request_exception=False)
asked = [("/api/v1/nowhere/", "abc-123"), ("/healthz", "f00dfeed.2"), ("/api/v1/nowhere/", "no spaces, please")]
ids = [client.get(path, HTTP_X_REQUEST_ID=given, secure=True)["X-Request-ID"] for path, given in asked]
print(json.dumps(ids))
"""
PRODUCTION = {"KOZYR_ENV": "production", "SECRET_KEY": SECRET, "ALLOWED_HOSTS": "testserver"}


def run_requests(tmp_path, **env: str) -> tuple[list[str], list[str]]:
    """The three requests above in a fresh site process whose /healthz fails (its broker is away): the ids the
    responses carried, and the lines the process logged."""
    done = site_run(REQUESTS, tmp_path, CELERY_BROKER_URL=f"redis://127.0.0.1:{closed_port()}/0", **env)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr.strip().splitlines()


def test_production_logs_json_lines_that_carry_the_request_id(tmp_path):
    ids, lines = run_requests(tmp_path, **PRODUCTION)
    assert ids[:2] == ["abc-123", "f00dfeed.2"]  # the proxy's, kept
    assert len(ids[2]) == 32 and int(ids[2], 16) >= 0  # not sane (spaces, a comma): one of ours instead
    records = [json.loads(line) for line in lines]  # every line is JSON
    not_found = [r for r in records if r["message"] == "Not Found: /api/v1/nowhere/"]
    assert [r["request_id"] for r in not_found] == ["abc-123", ids[2]]
    assert not_found[0]["level"] == "WARNING" and not_found[0]["logger"] == "django.request"
    assert not_found[0]["time"].endswith("+00:00") and "request" not in not_found[0]
    # Logged by Django after the middleware returned (a view's own 503): it carries the id all the same.
    unavailable = [r for r in records if r["message"] == "Service Unavailable: /healthz"]
    assert [r["request_id"] for r in unavailable] == ["f00dfeed.2"]
    assert not any("match_id" in r for r in records)


def test_make_run_logs_plain_lines_with_the_request_id(tmp_path):
    ids, lines = run_requests(tmp_path)  # the local default, as `make run` starts it
    assert ids[0] == "abc-123"
    line = next(line for line in lines if "Not Found: /api/v1/nowhere/" in line)
    assert " WARNING django.request [request abc-123]: Not Found: /api/v1/nowhere/" in line
    assert not any(line.startswith("{") for line in lines)


def test_json_lines_can_be_chosen_locally(tmp_path):
    _, lines = run_requests(tmp_path, KOZYR_LOG_FORMAT="json")
    assert lines and all(json.loads(line)["level"] for line in lines)


@pytest.fixture
def json_lines():
    """What the worker runtime's loggers write, through the console handler's JSON formatter and context filter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.json_formatter())
    handler.addFilter(logs.Context())
    logger = logging.getLogger("play")
    logger.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)


def test_every_line_logged_while_a_match_is_played_carries_its_id(house_bots, monkeypatch, json_lines):
    import play.match
    from play.tasks import log, play_match

    match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                 seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])

    def broken(job):
        log.info("playing")
        raise RuntimeError("the sandbox fell over")

    monkeypatch.setattr(play.match, "play", broken)
    assert play_match(match.pk) == "infrastructure"
    log.info("after the match")
    records = json_lines()
    ended = records[3]["message"]
    assert [(r["message"], r.get("match_id")) for r in records] == [
        (f"match {match.pk}: taken", match.pk), ("playing", match.pk),
        (f"match {match.pk} could not be played", match.pk), (ended, match.pk), ("after the match", None)]
    assert "RuntimeError: the sandbox fell over" in records[2]["exc_info"]
    # At INFO, what a worker logs of every match it plays: when it took it, and how and when it ended.
    assert ended.startswith(f"match {match.pk}: infrastructure after ") and ended.endswith(" s")
    assert records[0]["level"] == records[3]["level"] == "INFO"
    assert records[3]["outcome"] == "infrastructure" and records[3]["seconds"] >= 0


def test_a_match_that_ends_in_an_exception_says_so_with_its_id(json_lines):
    def task(match: int) -> str:
        raise ConnectionError("the broker went away")

    task.__module__ = "play.tasks"  # logged by the task's own module's logger
    with pytest.raises(ConnectionError):
        logs.with_match_id(task)(41)
    records = json_lines()
    assert [(r["message"].split(" after ")[0], r["match_id"]) for r in records] == [
        ("match 41: taken", 41), ("match 41: ConnectionError", 41)]
