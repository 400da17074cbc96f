"""The operator's settings: timeouts, the metrics token and the log format. A bad value stops start-up with one
line naming it; a good one reaches the database, the broker, the cache and the logs; the statement timeout
holds in the web process only, never in a worker's."""

from __future__ import annotations

import json

import pytest

from tests.platform.config.test_settings import SECRET, manage

POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"  # any database answers SHOW


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("KOZYR_DB_CONNECT_TIMEOUT", "1", "KOZYR_DB_CONNECT_TIMEOUT='1': expected an integer from 2 to 600"),
    ("KOZYR_DB_CONNECT_TIMEOUT", "5s", "KOZYR_DB_CONNECT_TIMEOUT='5s': expected an integer from 2 to 600"),
    ("KOZYR_WEB_STATEMENT_TIMEOUT", "-1", "KOZYR_WEB_STATEMENT_TIMEOUT='-1': expected an integer from 0 to 3600"),
    ("KOZYR_REDIS_CONNECT_TIMEOUT", "0", "KOZYR_REDIS_CONNECT_TIMEOUT='0': expected an integer from 1 to 600"),
    ("KOZYR_REDIS_TIMEOUT", "1", "KOZYR_REDIS_TIMEOUT='1': expected an integer from 2 to 600"),
    ("KOZYR_METRICS_TOKEN", "short", "KOZYR_METRICS_TOKEN: expected at least 32 characters"),
    ("KOZYR_METRICS_TOKEN", "a" * 31 + " b", "KOZYR_METRICS_TOKEN: expected at least 32 characters"),
    ("KOZYR_LOG_FORMAT", "yaml", "KOZYR_LOG_FORMAT='yaml': expected one of json, plain"),
])
def test_it_stops_with_one_line_naming_a_bad_operations_setting(tmp_path, name, value, expected):
    done = manage("check", tmp_path=tmp_path, **{name: value})
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("kozyr: bad setting: ") and expected in lines[0]


SHOW = """
import json
from django.conf import settings
print(json.dumps({"connect": settings.DATABASES["default"]["OPTIONS"].get("connect_timeout"),
                  "cache": settings.CACHES["default"].get("OPTIONS"),
                  "broker": {k: settings.CELERY_BROKER_TRANSPORT_OPTIONS[k]
                             for k in ("socket_connect_timeout", "socket_timeout")},
                  "format": settings.LOGGING["handlers"]["console"]["formatter"]}))
"""


def show(tmp_path, **env: str) -> dict:
    done = manage("shell", "--verbosity", "0", "-c", SHOW, tmp_path=tmp_path, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_timeouts_have_safe_defaults_and_reach_postgresql_and_redis(tmp_path):
    seen = show(tmp_path, DATABASE_URL=POSTGRES, CELERY_BROKER_URL="redis://127.0.0.1:6379/0")
    assert seen == {"connect": 5, "cache": {"socket_connect_timeout": 5, "socket_timeout": 5},
                    "broker": {"socket_connect_timeout": 5, "socket_timeout": 5}, "format": "plain"}
    seen = show(tmp_path, DATABASE_URL=POSTGRES, CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
                KOZYR_DB_CONNECT_TIMEOUT="3", KOZYR_REDIS_CONNECT_TIMEOUT="2", KOZYR_REDIS_TIMEOUT="7",
                KOZYR_ENV="production", SECRET_KEY=SECRET, ALLOWED_HOSTS="kozyr.example.org")
    assert seen == {"connect": 3, "cache": {"socket_connect_timeout": 2, "socket_timeout": 7},
                    "broker": {"socket_connect_timeout": 2, "socket_timeout": 7}, "format": "json"}
    embedded = show(tmp_path)  # `make run`: SQLite (no connect timeout), the embedded Redis's socket
    assert embedded["connect"] is None and embedded["cache"] == {"socket_connect_timeout": 5, "socket_timeout": 5}


def test_a_connect_timeout_in_the_database_url_wins(tmp_path):
    assert show(tmp_path, DATABASE_URL=f"{POSTGRES}?connect_timeout=9")["connect"] == 9


STATEMENT_TIMEOUT = """
import {module}
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SHOW statement_timeout")
    print(cursor.fetchone()[0])
"""


@pytest.mark.parametrize(("module", "env", "expected"), [
    ("config.wsgi", {}, "20s"),  # gunicorn's entry point: the web process
    ("config.wsgi", {"KOZYR_WEB_STATEMENT_TIMEOUT": "7"}, "7s"),
    ("config.wsgi", {"KOZYR_WEB_STATEMENT_TIMEOUT": "0"}, "0"),
    ("config.asgi", {}, "20s"),
    ("config.celery", {"KOZYR_WEB_STATEMENT_TIMEOUT": "7"}, "0"),  # a worker, beat: no limit on a match or refit
])
def test_the_statement_timeout_holds_in_the_web_process_only(tmp_path, module, env, expected):
    done = manage("shell", "--verbosity", "0", "-c", STATEMENT_TIMEOUT.format(module=module), tmp_path=tmp_path,
                  DATABASE_URL=POSTGRES, CELERY_BROKER_URL="memory://", **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == expected


def test_a_slow_query_of_the_web_process_is_cancelled_by_the_server(db):
    from django.db import OperationalError, connections

    from config.database import limit_statements

    limit_statements(1)
    try:
        connection = connections.create_connection("default")  # a new connection, as a web process opens one
        try:
            with pytest.raises(OperationalError, match="statement timeout"), connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(5)")
        finally:
            connection.close()
    finally:
        limit_statements(0)
    fresh = connections.create_connection("default")
    try:
        with fresh.cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            assert cursor.fetchone()[0] == "0"  # switched off again: this test process is no web server
    finally:
        fresh.close()
