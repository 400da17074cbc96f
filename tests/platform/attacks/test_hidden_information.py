"""What is hidden until when (docs/matches.md): nothing that determines or shows a deal's hidden cards — its
seed, the reproduce command's --seed, a replay, its frames, a bot's log, a hand in the live view — reaches
anyone, the seats' owners included, until every match that plays that deal has ended."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots import blobs
from bots.actions import house_version
from bots.models import BotVersion
from matches import actions, relay
from matches.models import Match
from play.tasks import play_match

pytestmark = pytest.mark.django_db(transaction=True)

LOG = b"[1] my hand is AS KS QS\n"


@pytest.fixture
def quiet(monkeypatch):
    """The test plays the matches itself: nothing is sent to a broker."""
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)


@pytest.fixture
def mine(alice, bura_bot, quiet):
    """alice's ready bot (the built-in random bot's code, so a match plays in-process)."""
    version = BotVersion.objects.create(bot=bura_bot, number=1, builtin="random", status="ready")
    bura_bot.current_version = version
    bura_bot.save(update_fields=["current_version"])
    return version


def a_deal(kind: str, mine: BotVersion) -> list[Match]:
    return actions.create_duplicate_set(kind=kind, preset="bura", versions=[mine, house_version("bura", "greedy")],
                                        ranked=kind == "ladder", overrides={"match": "deals:1"})


def shows_no_seed(answer: dict) -> None:
    assert answer["seed"] == answer["base_seed"] == "", answer
    assert "--seed" not in answer["reproduce"] and answer["reproduce"].startswith("arena play bura")
    assert "seed" not in str(answer["result"] or {})


@pytest.mark.parametrize("kind", ["ladder", "tournament", "challenge", "validation"])
def test_no_reader_gets_the_seed_of_a_queued_or_running_match(kind, mine, alice, as_user):
    if kind == "validation":
        made = [actions.create_match(kind=kind, preset="bura", seat_versions=[mine, house_version("bura", "random")],
                                     validates=mine, requested_by=alice)]
    else:
        made = a_deal(kind, mine)
    for status in ("queued", "running"):
        Match.objects.filter(pk__in=[m.pk for m in made]).update(status=status)
        for reader in (Client(), as_user(alice)):  # anonymous, and the owner of a seat
            for match in made:
                answer = reader.get(f"/api/v1/matches/{match.pk}/")
                assert answer.status_code == 200, answer.content
                shows_no_seed(answer.json())
            for listed in reader.get(f"/api/v1/matches/?kind={kind}").json()["results"]:
                shows_no_seed(listed)


def test_the_reply_to_a_challenge_carries_no_seed(mine, alice, as_user):
    answer = as_user(alice).post("/api/v1/challenges/", {"bot": "alice-bura", "opponent": "greedy-bura"},
                                 format="json")
    assert answer.status_code == 201, answer.content
    assert len(answer.json()) == 2
    for match in answer.json():
        shows_no_seed(match)


def test_a_played_rotation_stays_hidden_until_its_partner_has_ended(mine, alice, client, as_user):
    first, partner = a_deal("ladder", mine)
    assert play_match(first.pk) == "finished"
    first.refresh_from_db()
    seat = first.seats.get(version=mine)
    seat.log_sha256, seat.log_size = blobs.put("logs", LOG), len(LOG)
    seat.save(update_fields=["log_sha256", "log_size"])
    owner, anonymous = as_user(alice), Client()
    client.force_login(alice)
    assert first.deal_in_play() and Match.objects.with_deal_in_play().get(pk=first.pk).deal_still_in_play

    for reader in (anonymous, owner):
        shows_no_seed(reader.get(f"/api/v1/matches/{first.pk}/").json())
        refused = reader.get(f"/api/v1/matches/{first.pk}/replay/")
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "embargoed"
        assert f"match {partner.pk} is still queued" in refused.json()["error"]["message"]
    log = owner.get(f"/api/v1/matches/{first.pk}/seats/{seat.seat}/log/")
    assert log.status_code == 404 and log.json()["error"]["code"] == "embargoed"  # a bot may print its hand
    for url in (f"/matches/{first.pk}/frames/", f"/matches/{first.pk}/frames/?seat={seat.seat}",
                f"/matches/{first.pk}/stderr/"):
        answer = client.get(url)
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "embargoed", url
    page = client.get(f"/matches/{first.pk}/").content.decode()
    assert 'id="embargo-note"' in page and f"match {partner.pk} is still queued" in page
    assert 'id="replay-viewer"' not in page and "/replay/" not in page and 'class="seat-log"' not in page
    assert "--seed" not in page.split('id="reproduce"')[1].split("</pre>")[0] and 'id="seed-hidden"' in page
    assert str(first.base_seed) not in page and str(first.seed) not in page

    Match.objects.filter(pk=partner.pk).update(status="running")  # still in play
    assert owner.get(f"/api/v1/matches/{first.pk}/replay/").status_code == 404
    Match.objects.filter(pk=partner.pk).update(status="queued")
    assert play_match(partner.pk) == "finished"  # the whole deal has been played: everything opens
    first.refresh_from_db()
    shown = anonymous.get(f"/api/v1/matches/{first.pk}/").json()
    assert shown["base_seed"] == str(first.base_seed) and shown["seed"] == str(first.seed)
    assert f"--seed {first.base_seed}" in shown["reproduce"] and shown["result"]["seed"] == str(first.seed)
    assert anonymous.get(f"/api/v1/matches/{first.pk}/replay/").status_code == 200
    assert owner.get(f"/api/v1/matches/{first.pk}/seats/{seat.seat}/log/").content == LOG
    assert client.get(f"/matches/{first.pk}/frames/").status_code == 200
    assert client.get(f"/matches/{first.pk}/stderr/").status_code == 200
    page = client.get(f"/matches/{first.pk}/").content.decode()
    assert 'id="embargo-note"' not in page and f"--seed {first.base_seed}" in page and 'id="replay-viewer"' in page


def test_a_replacement_for_a_failed_rotation_keeps_the_deal_in_play(mine):
    first, partner = a_deal("tournament", mine)
    Match.objects.filter(pk=first.pk).update(status="finished")
    Match.objects.filter(pk=partner.pk).update(status="failed")
    assert not Match.objects.get(pk=first.pk).deal_in_play()
    again = actions.create_match(kind="tournament", preset="bura", seat_versions=[s.version for s in
                                                                                  partner.seats.order_by("seat")],
                                 base_seed=partner.base_seed, duplicate_set=partner.duplicate_set, rotation=1)
    assert Match.objects.get(pk=first.pk).deal_in_play()
    Match.objects.filter(pk=again.pk).update(status="cancelled")
    assert not Match.objects.get(pk=first.pk).deal_in_play()


def test_a_running_match_is_watched_live_with_every_hand_hidden(mine, alice, bob, settings):
    settings.LIVE_DELAY_SECONDS = 0
    match = a_deal("ladder", mine)[0]
    Match.objects.filter(pk=match.pk).update(status="running")
    relay.start_match(relay.attempt_name(match), [0, 1])
    mine_seat = match.seats.get(version=mine).seat
    theirs = 1 - mine_seat
    owner, stranger, staff = Client(), Client(), Client()
    owner.force_login(alice)
    stranger.force_login(bob)
    bob.is_staff = True
    bob.save(update_fields=["is_staff"])
    staff.force_login(bob)
    url = f"/matches/{match.pk}/live/"
    for reader in (Client(), stranger, staff, owner):
        for view in ("all", str(theirs)):
            refused = reader.get(f"{url}?seat={view}")
            assert refused.status_code == 403 and "seat=public" in refused.json()["error"]["message"], view
        public = reader.get(url).json()
        (frame,) = public["frames"]
        assert public["seat"] == "public" and list(frame["views"]) == ["public"]
        assert "hand" not in frame["views"]["public"] and frame["views"]["public"]["hand_sizes"]
    for reader in (Client(), stranger, staff):
        assert reader.get(f"{url}?seat={mine_seat}").status_code == 403
    own = owner.get(f"{url}?seat={mine_seat}").json()["frames"][0]["views"]
    assert list(own) == [str(mine_seat)] and own[str(mine_seat)]["hand"]
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert '<option value="public">' in page and '<option value="all">' not in page
    assert 'id="live-hidden-note"' in page and f'<option value="{mine_seat}">' not in page
    assert f'<option value="{mine_seat}">' in owner.get(f"/matches/{match.pk}/").content.decode()


def test_listing_matches_asks_the_same_queries_however_many_deals_it_shows(mine, api):
    for _ in range(12):
        first, _partner = a_deal("ladder", mine)
        Match.objects.filter(pk=first.pk).update(status="finished")

    def queries(size: int) -> int:
        with CaptureQueriesContext(connection) as seen:
            assert len(api.get("/api/v1/matches/", {"page_size": size}).json()["results"]) == size
        return len(seen.captured_queries)

    assert queries(2) == queries(24)
