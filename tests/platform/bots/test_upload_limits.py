"""The same limits on every path: uploads, new bots and sign-ups through the pages as through the API, and the
per-user caps on bots and on versions waiting for validation (bots/limits.py, checked by the actions).

Rate limits answer 429 (the API's error shape with Retry-After; on a page the form again, the reason beside
its field); caps answer 403 ``cap_reached`` (the page: the form again, the reason beside its field).
"""

from __future__ import annotations

import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client

from accounts.models import User
from bots.models import Bot, BotVersion
from tests.platform.attacks.test_bad_pages import field_errors, signup
from tests.platform.attacks.test_bad_uploads import assert_error, media_files
from tests.platform.conftest import python_bot

BOT = "alice-bura"
NOT_A_ZIP = b"plain text, not an archive\n"


def page_upload(client: Client, bot: str, filename: str, data: bytes):
    return client.post(f"/bots/{bot}/", {"file": SimpleUploadedFile(filename, data)})


def page_new_bot(client: Client, name: str, filename: str = "main.py", data: bytes | None = None,
                 game: str = "bura"):
    return client.post("/bots/new/", {"name": name, "game": game, "description": "",
                                      "file": SimpleUploadedFile(filename, data or python_bot(game))})


def api_new_bot(client, name: str, game: str = "bura"):
    return client.post("/api/v1/bots/", {"name": name, "game": game}, format="json")


def non_field_errors(response) -> str:
    text = response.content.decode()
    start = text.find('<div class="errors" role="alert">')
    return text[start:text.find("</div>", start)] if start >= 0 else ""


@pytest.fixture
def as_alice(alice):
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def high_caps(settings):
    """Caps out of the way, for tests of the rates."""
    settings.MAX_BOTS_PER_USER = 1000
    settings.MAX_PENDING_VERSIONS = 1000


# ---- uploads: one allowance, whichever way ---------------------------------------------------------------

def test_it_limits_uploads_through_the_page_like_the_api_on_one_counter(alice, bura_bot, as_alice, as_user, upload,
                                                                        tmp_path):
    """The report: 27 uploads in 16 s through the form while the API allowed 20 an hour."""
    answers = [page_upload(as_alice, BOT, "bot.zip", NOT_A_ZIP).status_code for _ in range(10)]
    answers += [upload(alice, BOT, "bot.zip", NOT_A_ZIP).status_code for _ in range(10)]
    assert answers == [200] * 10 + [400] * 10, answers
    refused = page_upload(as_alice, BOT, "main.py", python_bot())
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert any("at most 20 uploads an hour" in e for e in field_errors(refused, "file")), field_errors(refused, "file")
    error = assert_error(upload(alice, BOT, "main.py", python_bot()), 429)
    assert error["code"] == "throttled" and "at most 20 uploads an hour" in error["message"], error
    assert not bura_bot.versions.exists() and media_files(tmp_path) == set()


def test_it_counts_uploads_through_the_new_bot_page(alice, house_bots, as_alice, upload, high_caps):
    answers = [page_new_bot(as_alice, f"page-bot-{i}").status_code for i in range(5)]
    assert answers == [302] * 5, answers
    answers = [upload(alice, "page-bot-0", "bot.zip", NOT_A_ZIP).status_code for _ in range(15)]
    assert answers == [400] * 15
    refused = page_new_bot(as_alice, "one-too-many")
    assert refused.status_code == 429
    assert any("at most 20 uploads an hour" in e for e in field_errors(refused, "file"))
    assert not Bot.objects.filter(name="one-too-many").exists()


# ---- new bots ----------------------------------------------------------------------------------------------

def test_it_limits_new_bots_through_the_page_and_the_api_together(alice, house_bots, as_alice, as_user, high_caps):
    api = as_user(alice)
    assert [page_new_bot(as_alice, f"page-bot-{i}").status_code for i in range(5)] == [302] * 5
    assert [api_new_bot(api, f"api-bot-{i}").status_code for i in range(5)] == [201] * 5
    refused = page_new_bot(as_alice, "page-bot-x")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert any("at most 10 new bots an hour" in e for e in field_errors(refused, "name")), refused.content[:2000]
    error = assert_error(api_new_bot(api, "api-bot-x"), 429)
    assert error["code"] == "throttled" and "at most 10 new bots an hour" in error["message"], error
    assert Bot.objects.filter(owner=alice).count() == 10


def test_a_refused_new_bot_does_not_spend_the_allowance(alice, house_bots, as_alice, as_user, high_caps):
    api = as_user(alice)
    assert [api_new_bot(api, f"api-bot-{i}").status_code for i in range(9)] == [201] * 9
    assert [api_new_bot(api, "api-bot-0").status_code for _ in range(5)] == [400] * 5  # the name is taken
    bad_file = page_new_bot(as_alice, "page-bot", "bot.zip", NOT_A_ZIP)
    assert bad_file.status_code == 200 and field_errors(bad_file, "file")
    assert page_new_bot(as_alice, "page-bot").status_code == 302  # the tenth
    assert api_new_bot(api, "api-bot-x").status_code == 429


# ---- caps --------------------------------------------------------------------------------------------------

def test_it_caps_the_bots_of_an_account_on_every_path(alice, house_bots, as_alice, as_user, settings, make_user):
    settings.MAX_BOTS_PER_USER = 3
    api = as_user(alice)
    assert [api_new_bot(api, f"api-bot-{i}").status_code for i in range(3)] == [201] * 3
    error = assert_error(api_new_bot(api, "api-bot-x"), 403)
    assert error["code"] == "cap_reached" and "at most 3 bots per account" in error["message"], error
    page = page_new_bot(as_alice, "page-bot")
    assert page.status_code == 200 and "at most 3 bots per account" in non_field_errors(page), page.content[:3000]
    assert Bot.objects.filter(owner=alice).count() == 3
    assert not BotVersion.objects.filter(bot__owner=alice).exists()

    from bots.actions import do_create_bot
    from bots.limits import CapReached

    with pytest.raises(CapReached, match="at most 3 bots per account"):
        do_create_bot(alice, game="kozel", name="from-a-command")
    staff = make_user("organiser", is_staff=True)
    for i in range(4):
        do_create_bot(staff, game="kozel", name=f"staff-bot-{i}")
    assert Bot.objects.filter(owner=staff).count() == 4, "staff are exempt from the cap"


def test_it_caps_the_versions_waiting_for_validation_on_every_path(alice, house_bots, as_alice, as_user, upload,
                                                                   make_user, tmp_path):
    api = as_user(alice)
    for name in ("one", "two"):
        assert api_new_bot(api, name).status_code == 201
    assert upload(alice, "one", "main.py", python_bot()).status_code == 201
    assert page_upload(as_alice, "two", "main.py", python_bot()).status_code == 302
    assert upload(alice, "one", "main.py", python_bot() + b"\n# v2\n").status_code == 201
    files = media_files(tmp_path)

    error = assert_error(upload(alice, "two", "main.py", python_bot() + b"\n# v2\n"), 403)
    assert error["code"] == "cap_reached", error
    assert "at most 3 versions per account may wait for their validation match" in error["message"], error
    page = page_upload(as_alice, "two", "main.py", python_bot() + b"\n# v2\n")
    assert page.status_code == 200
    assert any("at most 3 versions" in e for e in field_errors(page, "file")), field_errors(page, "file")
    page = page_new_bot(as_alice, "three")
    assert page.status_code == 200 and any("at most 3 versions" in e for e in field_errors(page, "file"))
    assert not Bot.objects.filter(name="three").exists(), "the bot was kept without its version"
    assert BotVersion.objects.filter(bot__owner=alice).count() == 3
    assert media_files(tmp_path) == files, "a refused upload was stored"

    # one validation ends (as finish_validation records it): there is room again
    BotVersion.objects.filter(bot__name="one", number=1).update(status=BotVersion.Status.READY)
    assert upload(alice, "two", "main.py", python_bot() + b"\n# v2\n").status_code == 201

    staff = make_user("organiser", is_staff=True)
    staff_api = as_user(staff)
    assert api_new_bot(staff_api, "staff-bot").status_code == 201
    answers = [upload(staff, "staff-bot", "main.py", python_bot() + f"\n# {i}\n".encode()).status_code
               for i in range(4)]
    assert answers == [201] * 4, "staff are exempt from the cap"


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_cannot_pass_the_bot_cap_together(settings):
    """The cap is counted with the owner's row locked: eight creations at once leave exactly the cap."""
    from bots.actions import do_create_bot
    from bots.limits import CapReached

    settings.MAX_BOTS_PER_USER = 3
    owner = User.objects.create_user("racer", password="a-long-password-1")
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def create(k: int) -> None:
        try:
            start.wait()
            do_create_bot(owner, game="bura", name=f"racer-{k}")
            outcomes.append("made")
        except CapReached:
            outcomes.append("capped")
        finally:
            connection.close()

    threads = [threading.Thread(target=create, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["capped"] * 5 + ["made"] * 3, outcomes
    assert Bot.objects.filter(owner=owner).count() == 3


# ---- sign-ups ----------------------------------------------------------------------------------------------

def test_it_limits_sign_ups_per_address(db, settings):
    settings.TRUSTED_PROXIES = 1
    made = [signup(Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=f"10.1.{i}.1, 203.0.113.5"), f"user-{i}",
                   "a-much-longer-passphrase-7").status_code for i in range(10)]
    assert made == [302] * 10, made
    refused = signup(Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.5"), "user-x",
                     "a-much-longer-passphrase-7")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "at most 10 new accounts from one address an hour" in non_field_errors(refused), refused.content[:3000]
    assert not User.objects.filter(username="user-x").exists()
    # another client behind the same proxy is another address
    elsewhere = signup(Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.7"), "user-y",
                       "a-much-longer-passphrase-7")
    assert elsewhere.status_code == 302
    # a form with mistakes spends nothing
    browser = Client(REMOTE_ADDR="192.0.2.9")
    assert [signup(browser, f"typo-{i}", "a-much-longer-passphrase-7", repeat="other").status_code
            for i in range(12)] == [200] * 12
    assert signup(browser, "typo-fixed", "a-much-longer-passphrase-7").status_code == 302
