"""Forms that pick one of your bots to play offer only bots that can play now: a ready current version, active,
not suspended. A bot still validating, rejected or without a version was offered, then refused on submit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.actions import do_create_bot, make_current
from bots.models import BotVersion


@pytest.fixture
def alices_bots(alice, house_bots):
    ready = do_create_bot(alice, game="bura", name="alice-ready")
    make_current(BotVersion.objects.create(bot=ready, number=1, builtin="greedy", runtime="builtin", status="ready"))
    pending = do_create_bot(alice, game="bura", name="alice-pending")
    BotVersion.objects.create(bot=pending, number=1, builtin="greedy", runtime="builtin", status="pending")
    do_create_bot(alice, game="bura", name="alice-empty")
    suspended = do_create_bot(alice, game="bura", name="alice-suspended")
    make_current(BotVersion.objects.create(bot=suspended, number=1, builtin="greedy", runtime="builtin",
                                           status="ready"))
    suspended.suspended_reason = "crashed in 10 matches in a row"
    suspended.save()
    return ready


def options_of(html: str, select_id: str) -> list[str]:
    import re

    found = re.search(rf'<select[^>]*id="{select_id}".*?</select>', html, re.S)
    assert found, f"no select #{select_id}"
    return re.findall(r'<option value="([^"]*)"', found.group(0))


def test_it_offers_only_ready_bots_to_challenge_with(client, alice, alices_bots):
    client.force_login(alice)
    html = client.get("/bots/greedy-bura/").content.decode()
    assert options_of(html, "challenge-bot") == ["alice-ready"]


def test_it_offers_no_challenge_of_a_bot_that_cannot_play(client, alice, bob, alices_bots):
    pending = do_create_bot(bob, game="bura", name="bob-pending")
    BotVersion.objects.create(bot=pending, number=1, builtin="greedy", runtime="builtin", status="pending")
    client.force_login(alice)
    html = client.get("/bots/bob-pending/").content.decode()
    assert 'id="challenge"' not in html


def test_it_offers_only_ready_bots_to_join_a_tournament_with(client, alice, bob, alices_bots):
    from tournaments import actions

    cup = actions.do_create_tournament(bob, name="Open cup", preset="bura", format="swiss", rounds=3, deals=1,
                                       time_control=None, entry="open", max_entries=8, entry_deadline=None,
                                       starts_at=timezone.now() + timedelta(days=1))
    client.force_login(alice)
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert options_of(html, "join-bot") == ["alice-ready"]
