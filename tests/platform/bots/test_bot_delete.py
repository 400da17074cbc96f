"""Deleting a bot: its owner's alone, confirmed, by POST (or the API's DELETE). A tombstone: it leaves the ladder,
the boards, the lists and the forms at once, its queued matches are cancelled, its history and its name stay."""

from __future__ import annotations

import pytest

from bots.actions import do_create_bot, make_current
from bots.models import Bot, BotVersion
from matches import actions as match_actions
from ratings.actions import leaderboard
from ratings.models import Rating


@pytest.fixture
def doomed(alice, house_bots, monkeypatch):
    """alice's bot, ready and rated on bura, with a finished match, a queued ladder match and a queued challenge."""
    from play.tasks import play_match

    monkeypatch.setattr(match_actions, "publish", lambda match_id, queue, retry=False: None)
    bot = do_create_bot(alice, game="bura", name="doomed", presets=["bura"])
    version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready")
    make_current(version)
    rival = Bot.objects.get(name="random-bura").current_version
    played = match_actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True, versions=[version, rival],
                                                overrides={"match": "deals:1"})
    for match in played:
        assert play_match(match.pk) == "finished"
    queued = match_actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True, versions=[version, rival])
    challenge = match_actions.create_duplicate_set(kind="challenge", preset="bura", ranked=False,
                                                   versions=[version, rival])
    return {"bot": bot, "played": played, "queued": queued + challenge}


def test_it_asks_first_then_deletes_as_a_tombstone(client, alice, doomed, django_capture_on_commit_callbacks):
    bot = doomed["bot"]
    assert any(r.bot_id == bot.pk for r in leaderboard("bura"))
    client.force_login(alice)
    assert 'href="/bots/doomed/delete/"' in client.get("/bots/doomed/").content.decode()
    confirm = client.get("/bots/doomed/delete/").content.decode()
    assert "Its name stays taken" in confirm and "4 queued matches" in confirm
    wrong = client.post("/bots/doomed/delete/", {"confirm": "doomd"})
    assert wrong.status_code == 200 and "type doomed exactly" in wrong.content.decode()
    assert Bot.objects.get(pk=bot.pk).deleted is None
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post("/bots/doomed/delete/", {"confirm": "doomed"})
    assert done.status_code == 302 and done["Location"] == "/users/alice/"
    bot.refresh_from_db()
    assert bot.deleted is not None and not bot.active
    assert all(v.retired for v in bot.versions.all())
    for match in doomed["queued"]:
        match.refresh_from_db()
        assert match.status == "cancelled", match.failure
    assert {m.failure for m in doomed["queued"]} >= {"cancelled: doomed was deleted by its owner"}
    for match in doomed["played"]:  # its history stays
        match.refresh_from_db()
        assert match.status == "finished" and client.get(f"/matches/{match.pk}/").status_code == 200
    assert Rating.objects.filter(bot=bot).exists()
    assert not any(r.bot_id == bot.pk for r in leaderboard("bura"))
    assert "doomed" not in client.get("/games/bura/").content.decode()
    assert 'href="/bots/doomed/"' not in client.get("/bots/").content.decode()
    assert 'href="/bots/doomed/"' not in client.get("/users/alice/").content.decode()
    assert 'href="/bots/doomed/"' not in client.get("/profile/").content.decode()
    tomb = client.get("/bots/doomed/").content.decode()
    assert "deleted by its owner on" in tomb and f"/matches/{doomed['played'][0].pk}/" in tomb
    assert client.get("/bots/doomed/delete/").status_code == 404  # nothing left to delete


def test_it_keeps_the_name_taken_and_frees_the_bot_cap(alice, doomed, settings):
    from bots.actions import BotError, do_delete_bot

    do_delete_bot(doomed["bot"])
    with pytest.raises(BotError, match="taken"):
        do_create_bot(alice, game="bura", name="Doomed")
    settings.MAX_BOTS_PER_USER = 1
    do_create_bot(alice, game="bura", name="reborn")  # the tombstone does not count


def test_only_its_owner_may_delete_it(client, bob, doomed):
    client.force_login(bob)
    assert client.get("/bots/doomed/delete/").status_code == 404
    assert client.post("/bots/doomed/delete/", {"confirm": "doomed"}).status_code == 404
    assert 'href="/bots/doomed/delete/"' not in client.get("/bots/doomed/").content.decode()
    client.logout()
    assert client.post("/bots/doomed/delete/", {"confirm": "doomed"}).status_code == 302  # to the log-in
    assert Bot.objects.get(name="doomed").deleted is None


def test_the_api_deletes_with_clear_errors(as_user, alice, bob, doomed, house_bots):
    assert as_user(bob).delete("/api/v1/bots/doomed/").status_code == 404
    house = as_user(alice).delete("/api/v1/bots/greedy-bura/")
    assert house.status_code == 404
    mine = as_user(alice)
    gone = mine.delete("/api/v1/bots/doomed/")
    assert gone.status_code == 204
    again = mine.delete("/api/v1/bots/doomed/")
    assert again.status_code == 404 and "was deleted on" in again.json()["error"]["message"]
    assert mine.get("/api/v1/bots/doomed/").json()["deleted"] is not None
    assert "doomed" not in {b["name"] for b in mine.get("/api/v1/bots/?page_size=100").json()["results"]}
    changed = mine.patch("/api/v1/bots/doomed/", {"active": True}, format="json")
    assert changed.status_code == 404


def test_a_house_bot_cannot_be_deleted(house_bots):
    from bots.actions import BotError, do_delete_bot

    with pytest.raises(BotError, match="house bots are built in"):
        do_delete_bot(Bot.objects.get(name="greedy-bura"))
