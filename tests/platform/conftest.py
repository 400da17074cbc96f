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
