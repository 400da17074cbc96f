"""The web process's statement timeout on PostgreSQL (KOZYR_WEB_STATEMENT_TIMEOUT).

Only a process that serves pages sets it (config/wsgi.py, config/asgi.py): a request has someone waiting
and a gunicorn worker held, so a query that runs longer than a request may is cancelled by the server and
the request answers 500 with the query in the log. Workers, beat and management commands never set it: a
match's result transaction and a refit over every ranked match of a preset must never be cut short by a
limit meant for pages (docs/operations.md, "Settings").
"""

from __future__ import annotations

from django.db.backends.signals import connection_created

DISPATCH_UID = "kozyr-web-statement-timeout"


def limit_statements(seconds: int) -> None:
    """Every PostgreSQL connection this process opens from now on gets ``statement_timeout = seconds``
    (0: none). One ``set_config`` per new connection; connections are kept for a minute (CONN_MAX_AGE)."""
    connection_created.disconnect(dispatch_uid=DISPATCH_UID)
    if not seconds:
        return

    def set_timeout(sender, connection, **_) -> None:
        if connection.vendor != "postgresql":
            return  # SQLite (`make run`) has no statement timeout; its busy timeout bounds lock waits
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [f"{seconds}s"])

    connection_created.connect(set_timeout, weak=False, dispatch_uid=DISPATCH_UID)
