"""Fixtures for the platform's tests: real PostgreSQL (pytest-django's test database), real ORM rows.

Tasks are called directly (``play_match(match_id)``) where a test is about what a task does; the
end-to-end tests start real Celery worker processes on Redis.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.support.resources import free_port

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    """Every test stores files in a folder of its own (Django resets its storages on this change)."""
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": tmp_path / "media"}}}


@pytest.fixture(autouse=True)
def _no_throttle_memory(settings):
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture
def house_bots(db):
    from bots.actions import ensure_house_bots

    return ensure_house_bots()


@pytest.fixture
def make_user(db):
    from accounts.models import User

    def make(username: str = "alice", password: str = "a-long-password-1", **extra) -> User:
        return User.objects.create_user(username=username, password=password, **extra)

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def token_for(db):
    from accounts.actions import do_create_token

    def make(user, name: str = "test", days: int | None = None) -> str:
        return do_create_token(user, name, days)[1]

    return make


@pytest.fixture
def as_user(token_for):
    """as_user(user) -> an APIClient authenticated with a fresh token of that user."""

    def make(user) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
        return client

    return make


def python_bot(game: str = "bura") -> bytes:
    return (EXAMPLES / game / "python" / "main.py").read_bytes()


def zip_of(files: dict[str, bytes], **info) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def upload(as_user):
    """upload(user, bot_name, filename, data) -> the API response of a version upload."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    def send(user, bot: str, filename: str, data: bytes):
        client = as_user(user)
        return client.post(f"/api/v1/bots/{bot}/versions/", {"file": SimpleUploadedFile(filename, data)},
                           format="multipart")

    return send


@pytest.fixture
def bura_bot(alice, house_bots):
    from bots.actions import do_create_bot

    return do_create_bot(alice, game="bura", name="alice-bura")




@pytest.fixture
def thread_worker(monkeypatch):
    """A worker thread playing every match the site publishes, one at a time (tests/support/thread_worker.py)."""
    from matches import actions
    from tests.support.thread_worker import ThreadWorker

    worker = ThreadWorker()
    monkeypatch.setattr(actions, "publish", worker.publish)
    yield worker
    worker.stop()


@pytest.fixture
def asgi_site(house_bots, monkeypatch, settings, thread_worker):
    """The site under uvicorn in a thread (ASGI, as in production; the test database), and a worker thread that
    plays every match as it is published (``thread_worker``). Its base URL."""
    import threading

    import uvicorn
    from django.db import connection, connections

    from config.asgi import application
    from tests.support.polling import wait_until

    # Each request runs in a thread of its own: with persistent connections each would keep one, and a crawl of
    # the whole site would use up the server's (a web process takes a bounded pool instead, config/database.py,
    # which a process whose connection is already open, as this one, does not).
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning",
                                           ws_max_size=512 * 1024, lifespan="on"))
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    wait_until(lambda: server.started, 30, "uvicorn to start")
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    serving.join(15)
    # The site's database calls ran in asgiref's one sync thread: its connection must close before the test
    # database is dropped.
    from asgiref.sync import SyncToAsync
    SyncToAsync.single_thread_executor.submit(connections.close_all).result(10)
    # Before the other connections are ended below (it may be playing a match); as before, a match still going
    # after two minutes does not hold up the teardown (the fixture's own stop then reports it).
    thread_worker.stop(strict=False)
    # A request thread of the site that is gone may have left its connection open: closed, so that the test
    # database can be dropped.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
