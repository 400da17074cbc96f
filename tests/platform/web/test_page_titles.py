"""Every page's tab title is text: a block left open in a template (the home page's once swallowed a <script>,
a tournament's its "Playing now" table) puts markup into <title>, where the browser shows it as letters."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def title_of(html: str) -> str:
    found = TITLE.search(html)
    assert found, "the page has no <title>"
    return found.group(1)


@pytest.fixture
def running_cup(alice, house_bots):
    from bots.models import Bot
    from tournaments import actions

    cup = actions.do_create_tournament(alice, name="Title cup", preset="bura", overrides={"match": "deals:1"},
                                       format="round_robin", rounds=None, deals=1, time_control=None,
                                       entry="private", max_entries=8, entry_deadline=None,
                                       starts_at=timezone.now() + timedelta(hours=1))
    for name in ("greedy-bura", "random-bura"):
        actions.do_join(alice, cup, Bot.objects.get(name=name))
    actions.do_host_action(alice, cup, "start")
    return cup


def test_it_keeps_markup_out_of_every_pages_title(client, alice, running_cup):
    pages = ["/", "/bots/", "/bots/greedy-bura/", "/games/bura/", "/tournaments/", f"/tournaments/{running_cup.pk}/",
             "/login/", "/signup/", "/docs/", "/docs/protocol/", "/matches/999999/"]
    client.force_login(alice)
    pages += ["/profile/", "/bots/new/", "/tournaments/new/", "/password/"]
    for path in pages:
        title = title_of(client.get(path).content.decode())
        assert "<" not in title and ">" not in title and "\n" not in title.strip(), f"{path}: {title!r}"
        assert title.strip().endswith("· Kozyr"), f"{path}: {title!r}"
    assert title_of(client.get("/").content.decode()) == "Home · Kozyr"
    assert title_of(client.get(f"/tournaments/{running_cup.pk}/").content.decode()) == "Title cup · Kozyr"
