"""What a web process's PostgreSQL connections are: a bounded pool (KOZYR_DB_POOL_MAX), and a statement timeout
(KOZYR_WEB_STATEMENT_TIMEOUT).

**The pool.** Under ASGI every request runs its views in a thread of its own, and Django keeps a connection per
thread: with persistent connections (CONN_MAX_AGE) each request thread kept one, so bursts of requests grew a web
process's idle connections without bound and two web processes used up the server's connections. The web
process (config/asgi.py) therefore takes its connections from psycopg's pool (Django's ``OPTIONS["pool"]``): at
most ``KOZYR_DB_POOL_MAX`` per process, handed to a request for its length and back to the pool at its end (a
request that finds them all busy waits up to KOZYR_DB_CONNECT_TIMEOUT, as it would for a new connection, then
answers 500). Celery's workers and beat
keep one persistent connection per process: a prefork child runs one task at a time, so they are bounded by
their concurrency (docs/operations.md, "Database connections").

**The statement timeout.** Only a process that serves pages sets it (config/wsgi.py, config/asgi.py): a request
has someone waiting and a server process held, so a query that runs longer than a request may is cancelled by
the server and the request answers 500 with the query in the log. Workers, beat and management commands never
set it: a match's result transaction and a refit over every ranked match of a preset must never be cut short
by a limit meant for pages (docs/operations.md, "Settings").
"""

from __future__ import annotations

import weakref

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.signals import connection_created

DISPATCH_UID = "kozyr-web-statement-timeout"
POSTGRESQL = "django.db.backends.postgresql"
APPLICATION_NAME = "kozyr-web"  # how the web processes' connections show in pg_stat_activity
POOL_IDLE_SECONDS = 60  # a connection beyond the first unused this long is closed (as CONN_MAX_AGE did)


def pool_connections(max_size: int, wait_seconds: int, alias: str = DEFAULT_DB_ALIAS) -> None:
    """Make this process's connections to the database ``alias`` come from a pool of at most ``max_size``, for
    which a request waits at most ``wait_seconds`` (all busy, or the server slow to accept a new one) before it
    fails. Called before the first query. SQLite (`make run`) has no server connections to bound, and a process
    that has opened its connection already (a test serving the site in its own process) keeps it as it is: a
    pool set up under an open connection would strand it. Both are left alone."""
    database = connections[alias].settings_dict
    if database["ENGINE"] != POSTGRESQL or connections[alias].connection is not None:
        return
    database["CONN_MAX_AGE"] = 0  # a request's connection goes back to the pool when the request ends
    options = database.setdefault("OPTIONS", {})
    options.setdefault("application_name", APPLICATION_NAME)
    # Checked when borrowed (Django passes psycopg's check to the pool), so a request is never handed a
    # connection the server cut. A pool that lost its database retries with a growing backoff (1, 2, 4 … 32 s):
    # after half a minute away, its next try could come half a minute after the database is back, and every
    # request meanwhile failed. Giving up a reconnection after ``wait_seconds`` lets the next request open one.
    database["CONN_HEALTH_CHECKS"] = True
    options["pool"] = {"min_size": 1, "max_size": max_size, "timeout": wait_seconds,
                       "max_idle": POOL_IDLE_SECONDS, "name": APPLICATION_NAME, "reconnect_timeout": wait_seconds}


def limit_statements(seconds: int) -> None:
    """Every PostgreSQL connection this process opens from now on gets ``statement_timeout = seconds``
    (0: none). One ``set_config`` per server connection: Django announces a pooled connection each time a
    request borrows it, and it keeps the setting between borrows."""
    connection_created.disconnect(dispatch_uid=DISPATCH_UID)
    if not seconds:
        return
    limited: weakref.WeakSet = weakref.WeakSet()  # the server connections (psycopg's) already set

    def set_timeout(sender, connection, **_) -> None:
        if connection.vendor != "postgresql":
            return  # SQLite (`make run`) has no statement timeout; its busy timeout bounds lock waits
        if connection.connection in limited:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [f"{seconds}s"])
        limited.add(connection.connection)

    connection_created.connect(set_timeout, weak=False, dispatch_uid=DISPATCH_UID)
