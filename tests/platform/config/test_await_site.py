"""The image's roles wait for the database (and its migrations) whatever starts them: a database that does
not answer is waited for with one line saying so, and given up on with a clear error after the timeout."""

from __future__ import annotations

import io
import socket

import pytest
from django.core.management import CommandError, call_command
from django.db import connections

from web.management.commands import await_site


@pytest.mark.django_db
def test_it_returns_at_once_when_the_database_answers_and_is_migrated():
    out, err = io.StringIO(), io.StringIO()
    call_command("await_site", "--migrated", "--timeout", "5", stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert await_site.unapplied_migrations() == []


@pytest.mark.django_db(transaction=True)  # the test's own connection is closed and reopened elsewhere
def test_it_says_why_it_waits_and_gives_up_on_a_database_that_never_answers(monkeypatch, settings):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    monkeypatch.setattr(await_site, "EVERY_SECONDS", 0.1)
    connection = connections["default"]
    monkeypatch.setitem(connection.settings_dict, "PORT", str(port))
    connection.close()
    err = io.StringIO()
    try:
        with pytest.raises(CommandError, match=r"gave up after 0\.5 s: the database does not answer"):
            call_command("await_site", "--timeout", "0.5", stderr=err)
    finally:
        monkeypatch.undo()
        connection.close()
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kozyr: waiting: the database does not answer")
