"""Real-browser tests: Playwright drives Debian's Chromium (/usr/bin/chromium; never a downloaded browser)
against pytest-django's live server, with matches played in-process by the house bots.

Nothing here is skipped: without Chromium the tests fail and say what to install.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
TIMEOUT_MS = 30_000  # generous: two cores are shared by several agents


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    """Every test stores files in a folder of its own (the live server thread reads the same settings)."""
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": tmp_path / "media"}}}


@pytest.fixture(autouse=True)
def _fresh_cache():
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium); "
                    f"these tests never download a browser", pytrace=False)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the live server's ORM calls run in their own
    # thread, but the tests' own ORM calls (creating and playing matches) would otherwise be refused.
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as driver:
            launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
            yield launched
            launched.close()
    finally:
        if before is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture(autouse=True)
def _no_page_outlives_its_test(request):
    """Close every browser context a test opened, passed or failed: a live view left open would go on asking
    the live server for frames during the tests that follow, whose database it may no longer reach."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and uncaught exceptions in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    opened.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    opened.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    opened.errors = errors
    yield opened
    context.close()


@pytest.fixture
def house_bots(transactional_db):
    from bots.actions import ensure_house_bots

    return ensure_house_bots()


@pytest.fixture
def play(house_bots):
    """play(preset, builtins, overrides=None) -> the first Match of a ranked ladder duplicate set, every match of
    the set played (a replay is served once every match of its deal has ended)."""
    from arena.games import all_presets
    from bots.actions import house_version
    from matches import actions
    from matches.models import Match
    from play.tasks import play_match

    def run(preset: str, builtins=("greedy", "random"), overrides=None) -> Match:
        game = all_presets()[preset][0]
        versions = [house_version(game, b) for b in builtins]
        made = actions.create_duplicate_set(kind="ladder", preset=preset, versions=versions, ranked=True,
                                            overrides=overrides)
        for rotation in made:
            assert play_match(rotation.pk) == "finished"
        match = made[0]
        match.refresh_from_db()
        return match

    return run
