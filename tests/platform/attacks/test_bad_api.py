"""Bad input to the API v1: wrong bodies, other users' bots, bad credentials, throttling, oversized bodies,
unknown objects and impossible challenges. Every answer must be the one error shape, never a 500.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from bots import blobs
from bots.models import Bot, BotVersion
from matches.models import Match, Seat
from tests.platform.attacks.test_bad_uploads import assert_error, media_files

BOTS = "/api/v1/bots/"
MINE = "alice-bura"


def ready_version(bot: Bot, number: int = 1, **extra) -> BotVersion:
    """A version row that validated (the file itself is irrelevant to the refusals tested here)."""
    version = BotVersion.objects.create(bot=bot, number=number, sha256=f"{number:064x}", size=10, filename="main.py",
                                        entry=["python3", "main.py"], runtime="python3",
                                        status=BotVersion.Status.READY, validated_at=timezone.now(), **extra)
    bot.current_version = version
    bot.save(update_fields=["current_version"])
    return version


@pytest.fixture
def bobs_bot(bob, house_bots):
    from bots.actions import do_create_bot

    return do_create_bot(bob, game="bura", name="bob-bura")


def create(client: APIClient, **body):
    return client.post(BOTS, body, format="json")


# ---- bot creation ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("missing", ["name", "game"])
def test_it_refuses_to_create_a_bot_without_a_required_field(alice, as_user, house_bots, missing):
    body = {"name": "fresh-bot", "game": "bura"}
    del body[missing]
    error = assert_error(create(as_user(alice), **body), 400)
    assert missing in error["fields"], error
    assert error["message"].startswith(f"{missing}: "), error
    assert not Bot.objects.filter(owner=alice).exists()


def test_it_refuses_to_create_a_bot_with_an_unknown_field(alice, as_user, house_bots):
    error = assert_error(create(as_user(alice), name="fresh-bot", game="bura", colour="red"), 400)
    assert error["fields"] == {"colour": ["unknown field"]}, error
    assert "colour" in error["message"], error
    assert not Bot.objects.filter(owner=alice).exists()


@pytest.mark.parametrize(("field", "value"), [
    ("name", ["a", "list"]), ("name", {"an": "object"}), ("name", True), ("name", None),
    ("game", 3), ("game", ["bura"]), ("description", ["text"]), ("description", {"x": 1}),
    ("presets", "bura"), ("presets", {"bura": True}), ("presets", [["bura"]]), ("presets", None),
], ids=lambda v: json.dumps(v))
def test_it_refuses_to_create_a_bot_with_a_wrongly_typed_field(alice, as_user, house_bots, field, value):
    body = {"name": "fresh-bot", "game": "bura", field: value}
    error = assert_error(create(as_user(alice), **body), 400)
    assert any(name == field or name.startswith((f"{field}[", f"{field}.")) for name in error["fields"]), error
    assert not Bot.objects.filter(owner=alice).exists()


@pytest.mark.parametrize("name", ["a", "-dash-first", "_under", "has space", "slash/name", "dots..ok?", "n" * 41,
                                  "émile", "", "   "])
def test_it_refuses_to_create_a_bot_with_an_invalid_name(alice, as_user, house_bots, name):
    error = assert_error(create(as_user(alice), name=name, game="bura"), 400)
    assert "name" in error["fields"], error
    assert not Bot.objects.filter(owner=alice).exists()


def test_it_refuses_to_create_a_bot_with_a_taken_name_in_any_case(alice, bob, as_user, house_bots):
    assert create(as_user(bob), name="Shared-Name", game="bura").status_code == 201
    error = assert_error(create(as_user(alice), name="shared-NAME", game="kozel"), 400)
    assert "taken" in error["fields"]["name"][0], error
    assert not Bot.objects.filter(owner=alice).exists()


def test_it_refuses_the_name_of_a_house_bot(alice, as_user, house_bots):
    error = assert_error(create(as_user(alice), name="random-bura", game="bura"), 400)
    assert "taken" in error["message"], error


def test_it_refuses_an_unknown_game(alice, as_user, house_bots):
    error = assert_error(create(as_user(alice), name="fresh-bot", game="poker"), 400)
    assert "game" in error["fields"], error
    assert "poker" in error["message"], error


def test_it_refuses_presets_of_another_game(alice, as_user, house_bots):
    error = assert_error(create(as_user(alice), name="fresh-bot", game="bura", presets=["bura", "kozel"]), 400)
    assert "presets" in error["fields"], error
    assert "kozel" in error["message"] and "bura" in error["message"], error
    assert not Bot.objects.filter(owner=alice).exists()


def test_it_refuses_an_unknown_preset_on_creation(alice, as_user, house_bots):
    error = assert_error(create(as_user(alice), name="fresh-bot", game="bura", presets=["no-such-preset"]), 400)
    assert "no-such-preset" in error["message"], error


def test_it_refuses_a_description_over_2000_characters(alice, as_user, house_bots):
    error = assert_error(create(as_user(alice), name="fresh-bot", game="bura", description="d" * 2001), 400)
    assert "description" in error["fields"], error
    assert "2000" in error["message"], error
    assert not Bot.objects.filter(owner=alice).exists()


def test_it_refuses_a_body_that_is_not_json(alice, as_user, house_bots):
    response = as_user(alice).post(BOTS, data='{"name": "fresh-bot", "game": ', content_type="application/json")
    error = assert_error(response, 400)
    assert "json" in error["message"].lower(), error
    assert not Bot.objects.filter(owner=alice).exists()


@pytest.mark.parametrize("body", ['[{"name": "fresh-bot", "game": "bura"}]', '"fresh-bot"', "42", "null"])
def test_it_refuses_a_json_body_that_is_not_an_object(alice, as_user, house_bots, body):
    response = as_user(alice).post(BOTS, data=body, content_type="application/json")
    error = assert_error(response, 400)
    assert "object" in error["message"].lower() or "name" in error["fields"], error
    assert not Bot.objects.filter(owner=alice).exists()


def test_it_refuses_a_body_of_an_unsupported_media_type(alice, as_user, house_bots):
    response = as_user(alice).post(BOTS, data="name=fresh-bot", content_type="text/plain")
    assert_error(response, 415)
    assert not Bot.objects.filter(owner=alice).exists()


# ---- bot update ------------------------------------------------------------------------------------------

def patch(client: APIClient, name: str, body):
    return client.patch(f"{BOTS}{name}/", body, format="json")


@pytest.mark.parametrize(("body", "field"), [
    ({"game": "kozel"}, "game"), ({"owner": "bob"}, "owner"), ({"current_version": 3}, "current_version"),
    ({"active": "maybe"}, "active"), ({"active": None}, "active"), ({"presets": "bura"}, "presets"),
    ({"presets": ["kozel"]}, "presets"), ({"description": "d" * 2001}, "description"),
    ({"name": "x"}, "name"), ({"name": "random-bura"}, "name"), ({"name": ["a", "b"]}, "name"),
], ids=lambda v: json.dumps(v)[:40] if isinstance(v, dict) else v)
def test_it_refuses_a_bad_update_and_changes_nothing(alice, as_user, bura_bot, body, field):
    before = Bot.objects.filter(pk=bura_bot.pk).values().get()
    error = assert_error(patch(as_user(alice), MINE, body), 400)
    assert any(name == field or name.startswith((f"{field}[", f"{field}.")) for name in error["fields"]), error
    assert Bot.objects.filter(pk=bura_bot.pk).values().get() == before


@pytest.mark.parametrize("body", ["[]", '"x"', "{broken"])
def test_it_refuses_an_update_body_that_is_not_a_json_object(alice, as_user, bura_bot, body):
    response = as_user(alice).patch(f"{BOTS}{MINE}/", data=body, content_type="application/json")
    assert_error(response, 400)


# ---- other users' bots: 404, never 403; private data hidden ----------------------------------------------

def test_it_answers_a_change_to_another_users_bot_exactly_like_a_missing_bot(alice, bob, as_user, bura_bot):
    client = as_user(bob)
    theirs = patch(client, MINE, {"description": "mine now"})
    missing = patch(client, "no-such-bot", {"description": "mine now"})
    assert_error(theirs, 404)
    assert theirs.json() == missing.json()
    bura_bot.refresh_from_db()
    assert bura_bot.description == ""


def test_it_refuses_an_upload_to_another_users_bot_with_404(alice, bob, upload, bura_bot, tmp_path):
    response = upload(bob, MINE, "main.py", b"print('hijack')\n")
    assert_error(response, 404)
    assert not bura_bot.versions.exists()
    assert media_files(tmp_path) == set()


def test_it_refuses_to_retire_another_users_version_with_404(alice, bob, as_user, bura_bot):
    ready_version(bura_bot, 1)
    old = BotVersion.objects.get(bot=bura_bot, number=1)
    ready_version(bura_bot, 2)
    response = as_user(bob).post(f"{BOTS}{MINE}/versions/1/retire/")
    assert_error(response, 404)
    old.refresh_from_db()
    assert not old.retired


def test_it_refuses_to_download_another_users_version_with_404(alice, bob, as_user, bura_bot):
    digest = blobs.put("bots", b"print('secret strategy')\n")
    BotVersion.objects.create(bot=bura_bot, number=1, sha256=digest, size=25, filename="main.py",
                              entry=["python3", "main.py"], runtime="python3")
    url = f"{BOTS}{MINE}/versions/1/download/"
    assert as_user(alice).get(url).content == b"print('secret strategy')\n"  # the owner may
    response = as_user(bob).get(url)
    assert_error(response, 404)
    assert b"secret" not in response.content
    assert_error(APIClient().get(url), 401)


def test_it_hides_a_versions_rejection_reason_from_others(alice, bob, as_user, bura_bot):
    BotVersion.objects.create(bot=bura_bot, number=1, sha256="a" * 64, filename="main.py", runtime="python3",
                              status=BotVersion.Status.REJECTED, reason="crashed: Traceback in strategy.py")
    url = f"{BOTS}{MINE}/versions/1/"
    assert as_user(alice).get(url).json()["reason"].startswith("crashed")
    assert as_user(bob).get(url).json()["reason"] is None
    assert APIClient().get(url).json()["reason"] is None
    listed = as_user(bob).get(f"{BOTS}{MINE}/versions/").json()
    assert [v["reason"] for v in listed] == [None]


def test_it_hides_a_seat_log_from_everyone_but_the_owner(alice, bob, as_user, bura_bot):
    from bots.actions import house_version
    from matches.actions import create_match

    mine = ready_version(bura_bot)
    match = create_match(kind="challenge", preset="bura", seat_versions=[mine, house_version("bura", "random")])
    Seat.objects.filter(match=match, seat=0).update(log_sha256=blobs.put("logs", b"my secret stderr\n"), log_size=17)
    Match.objects.filter(pk=match.pk).update(status="finished")  # a log is embargoed while its deal is in play
    url = f"/api/v1/matches/{match.pk}/seats/0/log/"
    assert as_user(alice).get(url).content == b"my secret stderr\n"
    theirs, missing = as_user(bob).get(url), as_user(bob).get(f"/api/v1/matches/{match.pk}/seats/7/log/")
    assert_error(theirs, 404)
    assert theirs.json() == missing.json()
    assert_error(APIClient().get(url), 401)


def test_it_refuses_to_challenge_with_another_users_bot(alice, bob, as_user, bura_bot, bobs_bot):
    ready_version(bura_bot)
    ready_version(bobs_bot, 1)
    response = as_user(bob).post("/api/v1/challenges/", {"bot": MINE, "opponent": "random-bura"}, format="json")
    assert_error(response, 404)
    assert not Match.objects.filter(kind="challenge").exists()


# ---- authentication --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "url", "body"), [
    ("post", BOTS, {"name": "anon-bot", "game": "bura"}),
    ("patch", f"{BOTS}{MINE}/", {"description": "x"}),
    ("post", f"{BOTS}{MINE}/versions/", None),
    ("post", f"{BOTS}{MINE}/versions/1/retire/", None),
    ("post", "/api/v1/tokens/", {"name": "laptop"}),
    ("delete", "/api/v1/tokens/kz_abcdef/", None),
    ("post", "/api/v1/challenges/", {"bot": MINE, "opponent": "random-bura"}),
    ("get", "/api/v1/me/", None),
], ids=lambda v: v if isinstance(v, str) else "")
def test_it_refuses_unauthenticated_writes_with_401(bura_bot, method, url, body):
    response = getattr(APIClient(), method)(url, body, format="json")
    error = assert_error(response, 401)
    assert "credentials" in error["message"].lower() or "authenticat" in error["message"].lower(), error
    assert response.has_header("WWW-Authenticate")
    assert Bot.objects.filter(name="anon-bot").count() == 0


def test_it_refuses_an_upload_without_credentials(bura_bot, tmp_path):
    response = APIClient().post(f"{BOTS}{MINE}/versions/", {"file": SimpleUploadedFile("main.py", b"print(1)\n")},
                                format="multipart")
    assert_error(response, 401)
    assert not bura_bot.versions.exists()


def with_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_it_refuses_an_expired_token_saying_it_expired(alice, as_user):
    made = as_user(alice).post("/api/v1/tokens/", {"name": "short-lived", "expires_in_days": 1}, format="json")
    assert made.status_code == 201, made.json()
    token = made.json()["token"]
    assert with_token(token).get("/api/v1/me/").status_code == 200
    ApiToken.objects.filter(token_key=made.json()["id"]).update(expiry=timezone.now() - timedelta(minutes=1))
    response = with_token(token).post(BOTS, {"name": "late-bot", "game": "bura"}, format="json")
    error = assert_error(response, 401)
    assert "expired" in error["message"].lower(), error
    assert not Bot.objects.filter(name="late-bot").exists()


def test_it_refuses_an_expired_token_on_every_later_use(alice, as_user):
    made = as_user(alice).post("/api/v1/tokens/", {"name": "short-lived", "expires_in_days": 1}, format="json")
    token = made.json()["token"]
    ApiToken.objects.filter(token_key=made.json()["id"]).update(expiry=timezone.now() - timedelta(seconds=1))
    for _ in range(2):
        assert_error(with_token(token).get("/api/v1/me/"), 401)


def test_it_refuses_a_revoked_token_with_a_clear_message(alice, as_user, token_for):
    client = as_user(alice)
    made = client.post("/api/v1/tokens/", {"name": "old laptop"}, format="json").json()
    assert client.delete(f"/api/v1/tokens/{made['id']}/").status_code == 204
    error = assert_error(with_token(made["token"]).get("/api/v1/me/"), 401)
    assert "token" in error["message"].lower(), error


@pytest.mark.parametrize("header", [
    "Token", "Token kz_not-a-real-token", "Token a b",
    pytest.param("Token \u00e9\u00e9\u00e9", id="latin-1"),
])
def test_it_refuses_a_malformed_or_unknown_token(alice, header):
    client = no_raise(APIClient())
    client.credentials(HTTP_AUTHORIZATION=header)
    error = assert_error(client.get("/api/v1/me/"), 401)
    assert "token" in error["message"].lower(), error


def test_it_refuses_the_token_of_a_suspended_user(alice, token_for):
    token = token_for(alice)
    alice.is_active = False
    alice.save()
    assert_error(with_token(token).get("/api/v1/me/"), 401)


def test_it_refuses_to_revoke_an_unknown_or_another_users_token(alice, bob, as_user):
    bobs = as_user(bob).post("/api/v1/tokens/", {"name": "bob's"}, format="json").json()
    error = assert_error(as_user(alice).delete(f"/api/v1/tokens/{bobs['id']}/"), 404)
    assert "token" in error["message"], error
    assert with_token(bobs["token"]).get("/api/v1/me/").status_code == 200


@pytest.mark.parametrize(("body", "field"), [
    ({}, "name"), ({"name": ""}, "name"), ({"name": "\x07bell"}, "name"), ({"name": "n" * 65}, "name"),
    ({"name": "x", "expires_in_days": 0}, "expires_in_days"), ({"name": "x", "expires_in_days": "soon"},
                                                               "expires_in_days"),
    ({"name": "x", "expires_in_days": 3651}, "expires_in_days"), ({"name": "x", "scope": "all"}, "scope"),
], ids=lambda v: json.dumps(v)[:40] if isinstance(v, dict) else v)
def test_it_refuses_a_bad_token_request(alice, as_user, body, field):
    error = assert_error(as_user(alice).post("/api/v1/tokens/", body, format="json"), 400)
    assert field in error["fields"], error
    # as_user made one token: a refused request adds none
    assert ApiToken.objects.filter(user=alice).count() == 1


# ---- log-in for a token ----------------------------------------------------------------------------------

LOGIN = "/api/v1/auth/token/"


def test_it_refuses_a_wrong_password_for_a_token(alice):
    response = APIClient().post(LOGIN, {"username": "alice", "password": "wrong-password", "name": "cli"},
                                format="json")
    # 401 (or 400): not 403, which tells a client it is known but not allowed, and sends users looking
    # for a permission problem instead of a typo
    assert response.status_code in (400, 401), (response.status_code, response.json())
    error = assert_error(response, response.status_code)
    assert "wrong username or password" in error["message"], error
    assert not ApiToken.objects.filter(user=alice).exists()


def test_it_answers_an_unknown_user_like_a_wrong_password(alice):
    unknown = APIClient().post(LOGIN, {"username": "nobody", "password": "whatever", "name": "cli"}, format="json")
    wrong = APIClient().post(LOGIN, {"username": "alice", "password": "whatever", "name": "cli"}, format="json")
    assert unknown.status_code == wrong.status_code
    assert unknown.json() == wrong.json()


@pytest.mark.parametrize(("body", "field"), [
    ({"username": "alice", "name": "cli"}, "password"), ({"password": "a-long-password-1", "name": "cli"}, "username"),
    ({"username": "alice", "password": "a-long-password-1"}, "name"),
    ({"username": "alice", "password": "a-long-password-1", "name": "cli", "remember": True}, "remember"),
], ids=["no-password", "no-username", "no-name", "extra-field"])
def test_it_refuses_a_log_in_with_missing_or_extra_fields(alice, body, field):
    error = assert_error(APIClient().post(LOGIN, body, format="json"), 400)
    assert field in error["fields"], error
    assert not ApiToken.objects.filter(user=alice).exists()


def test_it_throttles_log_in_attempts_with_429_in_the_error_shape(alice):
    client = APIClient()
    wrong = {"username": "alice", "password": "guess", "name": "cli"}
    statuses = [client.post(LOGIN, wrong, format="json").status_code for _ in range(10)]
    assert 429 not in statuses, statuses
    throttled = client.post(LOGIN, {**wrong, "password": "a-long-password-1"}, format="json")
    error = assert_error(throttled, 429)
    assert error["code"] == "throttled", error
    assert error.get("retry_after_seconds", 0) > 0, error
    assert throttled.has_header("Retry-After")
    assert not ApiToken.objects.filter(user=alice).exists(), "the right password must not get through either"


# ---- oversized bodies ------------------------------------------------------------------------------------

def test_it_refuses_a_json_body_over_the_size_limit_without_a_500(alice, as_user, house_bots, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps({"name": "padded-bot", "game": "bura", "description": "ok"}) + " " * 20_000
    response = as_user(alice).post(BOTS, data=body, content_type="application/json")
    assert 400 <= response.status_code < 500, response.status_code
    assert_error(response, response.status_code)
    assert not Bot.objects.filter(name="padded-bot").exists(), "a body over the limit was accepted"


def test_it_refuses_a_json_update_over_the_size_limit_without_a_500(alice, as_user, bura_bot, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps({"description": "x" * 1500}) + "\n" * 20_000
    response = as_user(alice).patch(f"{BOTS}{MINE}/", data=body, content_type="application/json")
    assert 400 <= response.status_code < 500, response.status_code
    assert_error(response, response.status_code)
    bura_bot.refresh_from_db()
    assert bura_bot.description == ""


def test_it_refuses_a_form_field_over_the_size_limit_without_a_500(alice, as_user, bura_bot, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = as_user(alice).post(f"{BOTS}{MINE}/versions/", {"file": SimpleUploadedFile("main.py", b"print(1)\n"),
                                                               "notes": "n" * 20_000}, format="multipart")
    assert 400 <= response.status_code < 500, response.status_code
    assert_error(response, response.status_code)
    assert not bura_bot.versions.exists()


# ---- unknown objects -------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/api/v1/matches/999999/", "/api/v1/matches/999999/replay/",
                                 "/api/v1/presets/no-such-preset/", f"{BOTS}no-such-bot/",
                                 f"{BOTS}no-such-bot/versions/", f"{BOTS}{MINE}/versions/9/"])
def test_it_answers_an_unknown_object_with_404_in_the_error_shape(bura_bot, url):
    error = assert_error(APIClient().get(url), 404)
    assert error["code"] == "not_found", error


def test_it_answers_an_unknown_seat_log_with_404(alice, as_user):
    assert_error(as_user(alice).get("/api/v1/matches/999999/seats/0/log/"), 404)


def test_it_names_the_unknown_preset(db):
    error = assert_error(APIClient().get("/api/v1/presets/no-such-preset/"), 404)
    assert "no-such-preset" in error["message"], error


def test_it_answers_an_unknown_api_path_in_the_error_shape(db):
    assert_error(APIClient().get("/api/v1/no-such-endpoint/"), 404)


def test_it_answers_a_wrong_method_with_405_in_the_error_shape(alice, as_user, bura_bot):
    error = assert_error(as_user(alice).put(f"{BOTS}{MINE}/", {"name": "x"}, format="json"), 405)
    assert "PUT" in error["message"], error  # a bot is changed by PATCH (and deleted by DELETE, issue 36)
    assert Bot.objects.get(pk=bura_bot.pk).name == MINE


# ---- challenges ------------------------------------------------------------------------------------------

CHALLENGES = "/api/v1/challenges/"


def challenge(client: APIClient, **body):
    return client.post(CHALLENGES, body, format="json")


def test_it_refuses_a_challenge_between_bots_of_different_games(alice, as_user, bura_bot):
    ready_version(bura_bot)
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent="random-kozel"), 400)
    assert "opponent" in error["fields"], error
    assert "kozel" in error["message"] and "bura" in error["message"], error
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_refuses_a_bot_challenging_itself(alice, as_user, bura_bot):
    ready_version(bura_bot)
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent=MINE.upper()), 400)
    assert "itself" in error["message"], error
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_refuses_a_challenge_by_a_bot_without_a_ready_version(alice, as_user, bura_bot):
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent="random-bura"), 400)
    assert "bot" in error["fields"], error
    assert "validated" in error["message"] or "ready" in error["message"], error
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_refuses_a_challenge_by_a_bot_whose_only_version_is_pending(alice, as_user, bura_bot):
    version = ready_version(bura_bot)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PENDING)
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent="random-bura"), 400)
    assert "bot" in error["fields"], error


def test_it_refuses_a_challenge_against_a_bot_without_a_ready_version(alice, as_user, bura_bot, bobs_bot):
    ready_version(bura_bot)
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent="bob-bura"), 400)
    assert "opponent" in error["fields"], error
    assert "bob-bura" in error["message"], error
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_refuses_a_challenge_against_an_unknown_bot(alice, as_user, bura_bot):
    ready_version(bura_bot)
    assert_error(challenge(as_user(alice), bot=MINE, opponent="no-such-bot"), 404)


@pytest.mark.parametrize("preset", ["no-such-preset", "kozel", "bura-3p"])
def test_it_refuses_a_challenge_on_a_preset_the_pair_cannot_play(alice, as_user, bura_bot, preset):
    ready_version(bura_bot)
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent="random-bura", preset=preset), 400)
    assert "preset" in error["fields"], error
    assert not Match.objects.filter(kind="challenge").exists()


@pytest.mark.parametrize(("body", "field"), [
    ({"opponent": "random-bura"}, "bot"), ({"bot": MINE}, "opponent"),
    ({"bot": MINE, "opponent": "random-bura", "games": 100}, "games"),
    ({"bot": [MINE], "opponent": "random-bura"}, "bot"),
], ids=["no-bot", "no-opponent", "extra-field", "bot-as-list"])
def test_it_refuses_a_challenge_with_missing_extra_or_wrong_fields(alice, as_user, bura_bot, body, field):
    ready_version(bura_bot)
    error = assert_error(challenge(as_user(alice), **body), 400)
    assert field in error["fields"], error
    assert not Match.objects.filter(kind="challenge").exists()


# ---- hostile details: never a 500 ------------------------------------------------------------------------

def no_raise(client: APIClient) -> APIClient:
    """Let a server error come back as the 500 answer a real client would get (not as an exception)."""
    client.raise_request_exception = False
    return client


def test_it_refuses_a_deeply_nested_json_body_without_a_500(alice, as_user, house_bots):
    nested = "[" * 100_000 + "]" * 100_000  # 200 kB, far below the body limit
    body = '{"name": "deep-bot", "game": "bura", "description": ' + nested + "}"
    response = no_raise(as_user(alice)).post(BOTS, data=body, content_type="application/json")
    error = assert_error(response, 400)
    assert "json" in error["message"].lower() or "nest" in error["message"].lower(), error


@pytest.mark.parametrize(("method", "url"), [
    ("get", f"{BOTS}a%00b/"), ("get", f"{BOTS}a%00b/versions/"), ("patch", f"{BOTS}a%00b/"),
    ("delete", "/api/v1/tokens/a%00b/"),
])
def test_it_answers_a_nul_character_in_a_url_name_with_404_not_500(alice, as_user, bura_bot, method, url):
    response = getattr(no_raise(as_user(alice)), method)(url, {}, format="json")
    assert_error(response, 404)


@pytest.mark.parametrize(("url", "word"), [(f"{BOTS}no-such-bot/", "bot"), (f"{BOTS}{MINE}/versions/9/", "version"),
                                          (f"{BOTS}no-such-bot/versions/", "bot")])
def test_it_says_which_object_was_not_found(bura_bot, url, word):
    error = assert_error(APIClient().get(url), 404)
    assert word in error["message"], f"{url}: {error['message']!r} does not say what is missing"


def test_it_refuses_to_retire_the_current_version(alice, as_user, bura_bot):
    ready_version(bura_bot)
    error = assert_error(as_user(alice).post(f"{BOTS}{MINE}/versions/1/retire/"), 400)
    assert "current version" in error["message"], error
    assert not BotVersion.objects.get(bot=bura_bot, number=1).retired


@pytest.mark.parametrize(("url", "field"), [
    ("/api/v1/matches/?since=not-a-date", "since"), ("/api/v1/matches/?version=abc", "version"),
    ("/api/v1/matches/?duplicate_set=not-a-uuid", "duplicate_set"), (f"{BOTS}?game=poker", "game"),
    ("/api/v1/matches/?status=exploded", "status"),
])
def test_it_refuses_a_bad_filter_value_naming_the_filter(db, url, field):
    error = assert_error(APIClient().get(url), 400)
    assert field in error["fields"], error


@pytest.mark.parametrize("query", ["?page=999", "?page=abc", "?page=0"])
def test_it_answers_a_page_out_of_range_with_404_in_the_error_shape(bura_bot, query):
    assert_error(APIClient().get(f"{BOTS}{query}"), 404)


# ---- a rejected validation: its verdict, detail and stderr are its owner's only (issue 8, section 3) ---------

LEAKY_BOT = (b"import sys\nsys.stderr.write('STDERR-SECRET-7\\n')\n"
             b"for line in sys.stdin:\n    print('SECRET-PLAN-42', flush=True)\n")


def test_it_hides_a_rejected_validations_detail_from_others(alice, bob, as_user, bura_bot, upload):
    import gzip

    from play.tasks import play_match

    assert upload(alice, MINE, "main.py", LEAKY_BOT).status_code == 201
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    version.refresh_from_db()
    assert version.status == "rejected" and "SECRET-PLAN-42" in version.reason, version.reason
    match = version.validation_match_id
    for client in (as_user(bob), APIClient()):
        seen = [client.get(f"/api/v1/matches/{match}/").content,
                client.get("/api/v1/matches/?kind=validation").content,
                client.get(f"{BOTS}{MINE}/versions/1/").content]
        replay = client.get(f"/api/v1/matches/{match}/replay/")
        if replay.status_code == 200:
            seen.append(gzip.decompress(replay.content))
        for body in seen:
            assert b"SECRET-PLAN-42" not in body, body[:600]
            assert b"STDERR-SECRET-7" not in body


@pytest.mark.parametrize("parts", ["fields", "files"])
def test_it_refuses_a_request_with_too_many_form_parts_in_the_error_shape(alice, as_user, bura_bot, settings, parts):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 5
    body = {"file": SimpleUploadedFile("main.py", b"print(1)\n")}
    if parts == "fields":
        body |= {f"f{i}": "x" for i in range(60)}
    else:
        body |= {f"f{i}": SimpleUploadedFile(f"f{i}.py", b"x") for i in range(10)}
    response = as_user(alice).post(f"{BOTS}{MINE}/versions/", body, format="multipart")
    assert 400 <= response.status_code < 500, response.status_code
    assert_error(response, response.status_code)
    assert not bura_bot.versions.exists()


def test_it_refuses_a_session_write_without_a_csrf_token(alice, house_bots):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(BOTS, {"name": "csrf-bot", "game": "bura"}, format="json")
    error = assert_error(response, 403)
    assert "csrf" in error["message"].lower(), error
    assert not Bot.objects.filter(name="csrf-bot").exists()


def test_it_refuses_a_challenge_against_an_inactive_bot(alice, bob, as_user, bura_bot, bobs_bot):
    ready_version(bura_bot)
    ready_version(bobs_bot, 1)
    Bot.objects.filter(pk=bobs_bot.pk).update(active=False)
    error = assert_error(challenge(as_user(alice), bot=MINE, opponent="bob-bura"), 400)
    assert "inactive" in error["message"], error
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_refuses_a_token_past_the_per_user_limit(alice, as_user, token_for):
    from accounts.actions import MAX_TOKENS_PER_USER

    client = as_user(alice)
    for i in range(MAX_TOKENS_PER_USER - 1):
        token_for(alice, f"t{i}")
    error = assert_error(client.post("/api/v1/tokens/", {"name": "one-too-many"}, format="json"), 400)
    assert str(MAX_TOKENS_PER_USER) in error["message"] and "revoke" in error["message"], error
    assert ApiToken.objects.filter(user=alice).count() == MAX_TOKENS_PER_USER


def test_it_throttles_challenges_with_429_in_the_error_shape(alice, as_user, bura_bot):
    ready_version(bura_bot)
    client = as_user(alice)
    for _ in range(30):  # settings' "challenge" rate: 30 an hour
        assert challenge(client, bot=MINE, opponent="random-bura").status_code == 201
    before = Match.objects.count()
    error = assert_error(challenge(client, bot=MINE, opponent="random-bura"), 429)
    assert error["code"] == "throttled", error
    assert Match.objects.count() == before
