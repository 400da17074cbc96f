"""Bad input to the HTML pages (Django's test client): each error is shown beside the field it is about,
nothing is created for a refused form, and other users' bots cannot be changed (404, the friendly page).
"""

from __future__ import annotations

import html
import re
import stat

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts.models import User
from bots.models import Bot, BotVersion
from tests.platform.attacks.test_bad_uploads import media_files, zip_with_modes

MAIN = b"import sys\nfor line in sys.stdin:\n    pass\n"


def field_errors(response, field: str) -> list[str]:
    """The error messages the page shows beside ``field`` (form_fields.html: <p class="error" id="id_F-error">)."""
    text = response.content.decode()
    return [html.unescape(m) for m in re.findall(rf'<p class="error" id="id_{field}-error">(.*?)</p>', text, re.S)]


def assert_friendly_404(response) -> None:
    assert response.status_code == 404, response.status_code
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    assert "404.html" in [t.name for t in response.templates], [t.name for t in response.templates]
    text = response.content.decode()
    assert "<h1>Not found</h1>" in text
    assert 'href="/"' in text, "the 404 page should lead back to the start"
    assert "Traceback" not in text


@pytest.fixture
def browser():
    return Client()


@pytest.fixture
def as_alice(alice):
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def as_bob(bob):
    client = Client()
    client.force_login(bob)
    return client


# ---- sign-up ---------------------------------------------------------------------------------------------

def signup(client: Client, username: str, password: str, repeat: str | None = None):
    return client.post("/signup/", {"username": username, "email": "", "password1": password,
                                    "password2": password if repeat is None else repeat})


def test_it_refuses_a_taken_user_name_beside_the_field(browser, alice):
    response = signup(browser, "alice", "a-much-longer-passphrase-7")
    assert response.status_code == 200
    errors = field_errors(response, "username")
    assert errors and "already exists" in errors[0], errors
    assert User.objects.filter(username__iexact="alice").count() == 1


def test_it_refuses_a_taken_user_name_in_another_case(browser, alice):
    response = signup(browser, "ALICE", "a-much-longer-passphrase-7")
    assert response.status_code == 200
    assert field_errors(response, "username"), "a name differing only in case must count as taken"
    assert User.objects.filter(username__iexact="alice").count() == 1


@pytest.mark.parametrize(("password", "words"), [("123", "too short"), ("password", "too common"),
                                                 ("83917465028", "numeric")])
def test_it_refuses_a_weak_password_beside_the_field(browser, db, password, words):
    response = signup(browser, "carol", password)
    assert response.status_code == 200
    errors = field_errors(response, "password2") + field_errors(response, "password1")
    assert any(words in e for e in errors), errors
    assert not User.objects.filter(username="carol").exists()
    assert "_auth_user_id" not in browser.session


def test_it_refuses_passwords_that_differ_beside_the_field(browser, db):
    response = signup(browser, "carol", "a-much-longer-passphrase-7", "a-much-longer-passphrase-8")
    assert response.status_code == 200
    assert any("match" in e for e in field_errors(response, "password2")), field_errors(response, "password2")
    assert not User.objects.filter(username="carol").exists()


def test_it_refuses_an_invalid_user_name_beside_the_field(browser, db):
    response = signup(browser, "carol smith!", "a-much-longer-passphrase-7")
    assert response.status_code == 200
    assert field_errors(response, "username")
    assert not User.objects.filter(username__startswith="carol").exists()


# ---- the new-bot form ------------------------------------------------------------------------------------

def new_bot(client: Client, filename: str, data: bytes, name: str = "fresh-bot", game: str = "bura"):
    return client.post("/bots/new/", {"name": name, "game": game, "description": "",
                                      "file": SimpleUploadedFile(filename, data)})


@pytest.mark.parametrize(("filename", "data", "words"), [
    ("bot.zip", b"plain text, not an archive\n", "not a zip"),
    ("bot.zip", zip_with_modes([("main.py", 0o100644, MAIN), ("../x", 0o100644, b"x")]), "outside"),
    ("bot.zip", zip_with_modes([("main.py", 0o100644, MAIN), ("l", stat.S_IFLNK | 0o777, b"/etc")]), "symlink"),
    ("bot.zip", zip_with_modes([("helper.py", 0o100644, MAIN)]), "entry point"),
    ("mybot", b"#!/usr/bin/ruby\nputs 1\n", "ruby"),
    ("my bot.py", MAIN, "invalid file name"),
    ("main.py", b"", "empty"),
], ids=["not-a-zip", "traversal", "symlink", "no-entry-point", "ruby", "bad-name", "empty"])
def test_it_refuses_a_new_bot_with_a_bad_file_beside_the_file_field(as_alice, house_bots, tmp_path, filename, data,
                                                                     words):
    response = new_bot(as_alice, filename, data)
    assert response.status_code == 200
    errors = field_errors(response, "file")
    assert any(words in e for e in errors), errors
    assert not Bot.objects.filter(name="fresh-bot").exists(), "a refused upload must not leave its bot behind"
    assert not BotVersion.objects.filter(builtin="").exists()
    assert media_files(tmp_path) == set()


def test_it_refuses_a_new_bot_over_the_size_limit_beside_the_file_field(as_alice, house_bots, tmp_path, settings):
    settings.UPLOAD_MAX_MB = 1
    response = new_bot(as_alice, "main.py", MAIN + b"#" * (1024 * 1024))
    assert any("1 MiB" in e for e in field_errors(response, "file")), field_errors(response, "file")
    assert not Bot.objects.filter(name="fresh-bot").exists()
    assert media_files(tmp_path) == set()


def test_it_refuses_a_new_bot_with_a_taken_name_beside_the_name_field(as_alice, house_bots, tmp_path):
    response = new_bot(as_alice, "main.py", MAIN, name="Random-Bura")
    assert response.status_code == 200
    assert any("taken" in e for e in field_errors(response, "name")), field_errors(response, "name")
    assert not BotVersion.objects.filter(builtin="").exists()
    assert media_files(tmp_path) == set()


def test_it_refuses_a_new_bot_with_an_unknown_game_beside_the_game_field(as_alice, house_bots):
    response = new_bot(as_alice, "main.py", MAIN, game="poker")
    assert response.status_code == 200
    assert field_errors(response, "game")
    assert not Bot.objects.filter(name="fresh-bot").exists()


def test_it_sends_an_anonymous_visitor_of_the_new_bot_form_to_log_in(browser, house_bots):
    response = new_bot(browser, "main.py", MAIN)
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not Bot.objects.filter(name="fresh-bot").exists()


def test_it_refuses_a_bad_upload_on_the_bot_page_beside_the_file_field(as_alice, bura_bot, tmp_path):
    response = as_alice.post(f"/bots/{bura_bot.name}/", {"file": SimpleUploadedFile("bot.zip", b"nope")})
    assert response.status_code == 200
    assert any("not a zip" in e for e in field_errors(response, "file")), field_errors(response, "file")
    assert not bura_bot.versions.exists()
    assert media_files(tmp_path) == set()


# ---- other users' bots -----------------------------------------------------------------------------------

def test_it_shows_no_upload_form_on_another_users_bot_page(as_bob, bura_bot):
    response = as_bob.get(f"/bots/{bura_bot.name}/")
    assert response.status_code == 200
    text = response.content.decode()
    assert bura_bot.name in text
    assert 'enctype="multipart/form-data"' not in text
    assert "Upload a new version" not in text
    assert 'name="deactivate"' not in text


def test_it_refuses_an_upload_to_another_users_bot_page_with_404(as_bob, bura_bot, tmp_path):
    response = as_bob.post(f"/bots/{bura_bot.name}/", {"file": SimpleUploadedFile("main.py", MAIN)})
    assert_friendly_404(response)
    assert not bura_bot.versions.exists()
    assert media_files(tmp_path) == set()


@pytest.mark.parametrize("who", ["bob", "anonymous"])
def test_it_refuses_to_deactivate_another_users_bot_with_404(as_bob, browser, bura_bot, who):
    client = as_bob if who == "bob" else browser
    assert_friendly_404(client.post(f"/bots/{bura_bot.name}/", {"deactivate": "1"}))
    bura_bot.refresh_from_db()
    assert bura_bot.active


def test_it_hides_a_rejection_reason_on_another_users_bot_page(as_alice, as_bob, bura_bot):
    BotVersion.objects.create(bot=bura_bot, number=1, sha256="b" * 64, filename="main.py", runtime="python3",
                              status=BotVersion.Status.REJECTED, reason="crashed: Traceback in secret_plan.py")
    assert "secret_plan.py" in as_alice.get(f"/bots/{bura_bot.name}/").content.decode()
    assert "secret_plan.py" not in as_bob.get(f"/bots/{bura_bot.name}/").content.decode()


# ---- the friendly 404 ------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/bots/no-such-bot/", "/matches/999999/", "/no/such/page/",
                                 "/profile/tokens/kz_nothing/revoke/"])
def test_it_shows_the_friendly_404_page(as_alice, url):
    method = as_alice.post if url.endswith("/revoke/") else as_alice.get
    assert_friendly_404(method(url))


def test_it_shows_the_friendly_404_for_a_nul_character_in_a_bot_name(as_alice):
    as_alice.raise_request_exception = False
    assert_friendly_404(as_alice.get("/bots/a%00b/"))


def test_it_refuses_a_bot_name_whose_page_the_new_bot_form_would_hide(as_alice, house_bots, tmp_path):
    """/bots/new/ is the form: a bot called 'new' (any case) could never show its own page."""
    response = new_bot(as_alice, "main.py", MAIN, name="new")
    assert response.status_code == 200, "a bot called 'new' was created"
    assert field_errors(response, "name")
    assert not Bot.objects.filter(name__iexact="new").exists()


def test_it_throttles_failed_log_ins_on_the_log_in_page(browser, alice):
    for _ in range(10):
        response = browser.post("/login/", {"username": "alice", "password": "guess"})
        assert response.status_code == 200
    blocked = browser.post("/login/", {"username": "alice", "password": "a-long-password-1"})
    assert blocked.status_code == 429
    assert "Too many failed log-ins" in blocked.content.decode()
    assert "_auth_user_id" not in browser.session


def test_it_hides_a_rejected_validations_detail_on_the_match_page(as_alice, as_bob, browser, bura_bot):
    from bots.actions import house_version
    from matches.actions import create_match
    from matches.models import Seat

    version = BotVersion.objects.create(bot=bura_bot, number=1, sha256="c" * 64, filename="main.py",
                                        runtime="python3", status=BotVersion.Status.REJECTED,
                                        reason="protocol-error (bad-json): 'SECRET-PLAN-42'")
    match = create_match(kind="validation", preset="bura", seat_versions=[version, house_version("bura", "random")])
    Seat.objects.filter(match=match, seat=0).update(verdict="protocol-error", code="bad-json",
                                                    detail="line is not JSON: 'SECRET-PLAN-42'")
    assert "SECRET-PLAN-42" in as_alice.get(f"/matches/{match.pk}/").content.decode()
    for client in (as_bob, browser):
        response = client.get(f"/matches/{match.pk}/")
        assert "SECRET-PLAN-42" not in response.content.decode()


def test_it_refuses_the_current_version_again_on_the_bot_page_beside_the_file_field(as_alice, alice, bura_bot,
                                                                                     upload, tmp_path):
    from play.tasks import play_match
    from tests.platform.conftest import python_bot

    assert upload(alice, bura_bot.name, "main.py", python_bot("bura")).status_code == 201
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    files = media_files(tmp_path)
    response = as_alice.post(f"/bots/{bura_bot.name}/", {"file": SimpleUploadedFile("main.py", python_bot("bura"))})
    assert response.status_code == 200
    assert any("current version" in e for e in field_errors(response, "file")), field_errors(response, "file")
    assert bura_bot.versions.count() == 1
    assert media_files(tmp_path) == files


def test_it_refuses_a_password_change_with_a_wrong_old_password_beside_the_field(as_alice, alice):
    response = as_alice.post("/password/", {"old_password": "not-my-password", "new_password1": "another-long-pass-9",
                                            "new_password2": "another-long-pass-9"})
    assert response.status_code == 200
    assert any("incorrect" in e for e in field_errors(response, "old_password")), field_errors(response, "old_password")
    alice.refresh_from_db()
    assert alice.check_password("a-long-password-1")
