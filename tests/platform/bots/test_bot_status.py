"""A bot's page says one thing at a time: the header's state, each version's stage and the poll's JSON come from
one function (web/bot_status.py), at every stage of a validation; the reasons stay its owner's."""

from __future__ import annotations

import re

import pytest

from bots.models import BotVersion
from matches.models import Match


def header_state(html: str) -> str:
    return re.search(r'<span id="bot-state"[^>]*>(.*?)</span>', html, re.S).group(1)


def stage_cell(html: str, number: int) -> str:
    row = re.search(rf'<tr data-version="{number}">.*?</tr>', html, re.S).group(0)
    return re.search(r'class="version-status status-(\w+)">(\w+)<', row).groups()


@pytest.fixture
def validating(alice, bura_bot, upload):
    from tests.platform.conftest import python_bot

    assert upload(alice, "alice-bura", "main.py", python_bot()).status_code == 201
    return Match.objects.get(kind="validation", validates__bot=bura_bot)


def test_the_header_the_versions_and_the_poll_agree_at_every_stage(client, alice, bura_bot, validating):
    client.force_login(alice)
    version = bura_bot.versions.get()
    seen = []
    for step in ("queued", "building", "playing", "ready"):
        if step == "building":
            Match.objects.filter(pk=validating.pk).update(status="running")
            BotVersion.objects.filter(pk=version.pk).update(language="cpp", build_sha256="")
        elif step == "playing":
            BotVersion.objects.filter(pk=version.pk).update(build_sha256="b" * 64)
        elif step == "ready":
            Match.objects.filter(pk=validating.pk).update(status="finished")
            BotVersion.objects.filter(pk=version.pk).update(status="ready")
            bura_bot.current_version_id = version.pk
            bura_bot.save()
        html = client.get("/bots/alice-bura/").content.decode()
        polled = client.get("/bots/alice-bura/status/").json()
        state, (css, shown) = header_state(html), stage_cell(html, 1)
        assert state == polled["text"] and shown == css == polled["versions"][0]["stage"], (step, state, shown)
        seen.append((shown, state))
    assert seen == [
        ("pending", "validating its first version · v1 is pending: its validation match waits for a worker"),
        ("building", "validating its first version · v1 is compiling: a worker builds it from its source"),
        ("playing", "validating its first version · v1 is playing its validation match"),
        ("ready", "on the ladder with v1"),
    ]
    assert polled["waiting"] is False and polled["versions"][0]["current"] is True
    assert "waiting for a valid version" not in html and "data-poll-bot" not in html


def test_the_poll_shows_the_reason_to_its_owner_only(client, alice, bob, bura_bot, validating):
    bura_bot.versions.update(status="rejected", reason="it crashed at line 3")
    client.force_login(alice)
    mine = client.get("/bots/alice-bura/status/").json()
    assert mine["versions"][0]["reason"] == "it crashed at line 3"
    assert mine["versions"][0]["validation_match"] == validating.pk
    assert mine["text"] == "waiting for a valid version (v1 was rejected)"
    client.force_login(bob)
    theirs = client.get("/bots/alice-bura/status/").json()
    assert "reason" not in theirs["versions"][0] and "validation_match" not in theirs["versions"][0]
    assert theirs["text"] == mine["text"]
    assert client.get("/bots/nobody-such/status/").status_code == 404


def test_a_new_version_validating_beside_the_current_one(client, alice, bura_bot, validating, upload):
    from tests.platform.conftest import python_bot

    first = bura_bot.versions.get()
    BotVersion.objects.filter(pk=first.pk).update(status="ready")
    Match.objects.filter(pk=validating.pk).update(status="finished")
    bura_bot.current_version_id = first.pk
    bura_bot.save()
    assert upload(alice, "alice-bura", "main.py", python_bot() + b"\n# v2\n").status_code == 201
    state = client.get("/bots/alice-bura/status/").json()
    assert state["text"] == "on the ladder with v1 · v2 is pending: its validation match waits for a worker"
    assert [v["current"] for v in state["versions"]] == [False, True]
