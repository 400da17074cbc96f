"""A bot author's choice about the open-data dumps: on by default, set at creation or later, stated at upload."""

from __future__ import annotations

import pytest

from bots.models import Bot


def test_it_is_on_by_default_and_the_author_can_turn_it_off_at_creation(alice, as_user, house_bots):
    client = as_user(alice)
    made = client.post("/api/v1/bots/", {"name": "shared-bot", "game": "bura"}, format="json")
    assert made.status_code == 201 and made.json()["open_data"] is True
    kept = client.post("/api/v1/bots/", {"name": "kept-bot", "game": "bura", "open_data": False}, format="json")
    assert kept.status_code == 201 and kept.json()["open_data"] is False
    assert Bot.objects.get(name="kept-bot").open_data is False
    assert Bot.objects.get(name="shared-bot").open_data is True


def test_it_changes_by_patch_for_the_owner_only(alice, bob, as_user, house_bots):
    as_user(alice).post("/api/v1/bots/", {"name": "alice-bot", "game": "bura"}, format="json")
    refused = as_user(bob).patch("/api/v1/bots/alice-bot/", {"open_data": False}, format="json")
    assert refused.status_code == 404 and Bot.objects.get(name="alice-bot").open_data is True
    changed = as_user(alice).patch("/api/v1/bots/alice-bot/", {"open_data": False}, format="json")
    assert changed.status_code == 200 and changed.json()["open_data"] is False
    assert Bot.objects.get(name="alice-bot").open_data is False
    wrong = as_user(alice).patch("/api/v1/bots/alice-bot/", {"open_data": "sometimes"}, format="json")
    assert wrong.status_code == 400 and "open_data" in wrong.json()["error"]["fields"]


def test_the_upload_page_states_the_choice_and_its_default(client, alice):
    client.force_login(alice)
    page = client.get("/bots/new/").content.decode()
    assert "open-data dumps" in page and "on by default" in page and 'href="/data/"' in page


@pytest.mark.django_db(transaction=True)
def test_arena_upload_states_the_choice_and_takes_no_open_data(live_server, alice, token_for, tmp_path, capsys,
                                                                monkeypatch, house_bots):
    from arena import cli, client
    from matches import actions
    from tests.platform.conftest import python_bot

    monkeypatch.setattr(actions, "publish", lambda *args, **kwargs: None)  # validations stay queued
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    client.save_credentials(live_server.url, token_for(alice), "alice")
    script = tmp_path / "main.py"
    script.write_bytes(python_bot("bura"))
    assert cli.main(["upload", str(script), "--game", "bura", "--bot", "open-bot"]) == 0
    assert "its public matches go into the site's open-data dumps" in capsys.readouterr().out
    assert cli.main(["upload", str(script), "--game", "bura", "--bot", "closed-bot", "--no-open-data"]) == 0
    assert "stay out of the site's open-data dumps" in capsys.readouterr().out
    assert Bot.objects.get(name="open-bot").open_data is True
    assert Bot.objects.get(name="closed-bot").open_data is False


def test_the_new_bot_form_takes_the_authors_choice(client, alice, house_bots):
    from tests.platform.conftest import python_bot

    client.force_login(alice)
    for name, ticked in (("shared-by-form", True), ("kept-by-form", False)):
        fields = {"name": name, "game": "bura", "description": "", "file": _upload(python_bot())}
        if ticked:
            fields["open_data"] = "on"
        answer = client.post("/bots/new/", fields)
        assert answer.status_code == 302, answer.content.decode()[-2000:]
        assert Bot.objects.get(name=name).open_data is ticked
    assert 'name="open_data"' in client.get("/bots/new/").content.decode()


def _upload(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("main.py", data)
