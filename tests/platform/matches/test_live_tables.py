"""Live tables on the real PostgreSQL and Redis: a person sits down against a house bot, the match is played
by the worker's task (in a thread here) while the person answers through the table's endpoints, and a
casual match whose worker dies ends aborted instead of being replayed."""

from __future__ import annotations

import random
import re
import threading
import time

import orjson
import pytest
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def person(house_bots, make_user, monkeypatch):
    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # the test plays them
    user = make_user("ann")
    client = Client()
    client.force_login(user)
    return user, client


def sit_down(client, opponent: str = "greedy-bura", preset: str = "bura", **extra):
    answer = client.post("/play/", {"opponent": opponent, "preset": preset, **extra})
    assert answer.status_code == 302, answer.content
    return int(answer["Location"].strip("/").split("/")[-1])


def play_in_thread(match_id: int) -> dict:
    from play.tasks import play_match

    outcome: dict = {}

    def run():
        from django.db import connection
        try:
            outcome["result"] = play_match(match_id)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    outcome["thread"] = thread
    return outcome


def answer_like_the_page(client, match_id: int, rng: random.Random, *, illegal_first: bool = False,
                         stop_after: int | None = None, timeout: float = 120) -> list[dict]:
    """Poll the seat's lines and answer every request with a legal action, as table.js does."""
    after, seen, answered = 0, [], 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/play/{match_id}/lines/?after={after}").json()
        for entry in body["lines"]:
            message = entry["m"]
            seen.append(message)
            if message["type"] == "hello":
                assert client.post(f"/play/{match_id}/answer/", b'{"type":"ready"}',
                                   content_type="application/json").status_code == 200
            elif message["type"] == "request":
                if stop_after is not None and answered >= stop_after:
                    continue
                if illegal_first and answered == 0:
                    hand = message["observation"]["hand"]
                    wrong = {"type": "lead", "cards": [c for c in ["AS", "AH", "AD", "AC"] if c not in hand][:1]}
                    refused = client.post(f"/play/{match_id}/answer/", orjson.dumps(
                        {"type": "action", "id": message["id"], "action": wrong}), content_type="application/json")
                    assert refused.status_code == 400, refused.content
                    assert refused.json()["error"]["message"], refused.json()  # the rules' own words
                action = rng.choice(message["legal_actions"])
                sent = client.post(f"/play/{match_id}/answer/", orjson.dumps(
                    {"type": "action", "id": message["id"], "action": action}), content_type="application/json")
                assert sent.status_code == 200, sent.content
                again = client.post(f"/play/{match_id}/answer/", orjson.dumps(
                    {"type": "action", "id": message["id"], "action": action}), content_type="application/json")
                assert again.status_code == 409  # a double click answers once
                answered += 1
        after += len(body["lines"])
        if body["status"] in ("finished", "aborted"):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"the match did not end in {timeout} s; saw {[m['type'] for m in seen][-5:]}")


def test_a_person_plays_a_whole_casual_match_through_the_table(person):
    from matches.models import Match

    _, client = person
    match_id = sit_down(client)
    match = Match.objects.get(pk=match_id)
    assert (match.kind, match.ranked, match.queue) == ("casual", False, "open")  # a person waits: the open queue
    mine = [s for s in match.seats.select_related("version__bot") if s.version.bot.is_person]
    assert [s.version.bot.name for s in mine] == ["@ann"]
    assert client.get(f"/play/{match_id}/").status_code == 200
    stranger = Client()
    assert stranger.get(f"/play/{match_id}/").status_code == 404  # a table is its person's only
    assert stranger.get(f"/play/{match_id}/lines/").status_code == 404
    played = play_in_thread(match_id)
    seen = answer_like_the_page(client, match_id, random.Random(5), illegal_first=True)
    played["thread"].join(timeout=60)
    assert played["result"] == "finished"
    match.refresh_from_db()
    assert match.status == "finished" and match.result["ended_by"] == "rules"
    seat = match.seats.get(seat=mine[0].seat)
    assert seat.verdict == "ok" and seat.decisions > 0
    hello = seen[0]
    assert hello["type"] == "hello" and hello["time"]["move_ms"] == 30_000  # a person's clock
    # only this seat's view ever reached the page: no other seat's hand in any line
    for message in seen:
        if message["type"] == "request":
            assert message["observation"]["seat"] == mine[0].seat
    assert client.get(f"/matches/{match_id}/").status_code == 200
    again = client.post(f"/play/{match_id}/rematch/")
    assert again.status_code == 302 and again["Location"] != f"/play/{match_id}/"


def test_one_table_at_a_time_and_bad_requests_get_reasons(person):
    _, client = person
    match_id = sit_down(client)
    refused = client.post("/play/", {"opponent": "greedy-bura", "preset": "bura"}, follow=True)
    assert "already at a table" in refused.content.decode()
    assert refused.redirect_chain == [(f"/play/{match_id}/", 302)]  # taken back to the open table
    again = client.post(f"/play/{match_id}/rematch/", follow=True)  # a rematch is a second table too
    assert again.redirect_chain == [(f"/play/{match_id}/", 302)] and "already at a table" in again.content.decode()
    refused = client.post("/play/", {"opponent": "no-such-bot", "preset": "bura"}, follow=True)
    assert "no bot called" in refused.content.decode()
    answer = client.post(f"/play/{match_id}/answer/", b"not json", content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad-json"
    answer = client.post(f"/play/{match_id}/answer/", b'{"type":"ready"}', content_type="application/json")
    assert answer.status_code == 409 and "not being played" in answer.json()["error"]["message"]


def test_a_person_who_never_answers_forfeits_on_the_clock(person, settings):
    from matches.models import Match

    settings.PERSON_MOVE_SECONDS, settings.PERSON_BANK_SECONDS = 1, 0
    _, client = person
    match_id = sit_down(client)
    played = play_in_thread(match_id)
    answer_like_the_page(client, match_id, random.Random(1), stop_after=1, timeout=90)
    played["thread"].join(timeout=30)
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and match.result["ended_by"] == "forfeit"
    seat = next(s for s in match.seats.select_related("version__bot") if s.version.bot.is_person)
    assert (seat.verdict, seat.code) == ("timeout", "move")


def test_a_casual_match_whose_worker_died_is_aborted_not_replayed(person):
    from django.utils import timezone

    from matches import actions
    from matches.models import Match

    _, client = person
    match_id = sit_down(client)
    assert actions.claim(match_id, "dead-worker:1:x") is not None
    Match.objects.filter(pk=match_id).update(lease_expires=timezone.now() - timezone.timedelta(seconds=1))
    assert actions.recover_expired_leases() == 1
    match = Match.objects.get(pk=match_id)
    assert match.status == "aborted" and match.result is None and match.attempts == 1
    page = client.get(f"/matches/{match_id}/").content.decode()
    assert "aborted" in page and "Rematch" in page
    assert sit_down(client) != match_id  # the person may sit down again at once


def test_a_ladder_match_is_followed_live_behind_its_delay(person, settings):
    from bots.models import Bot
    from matches import actions, relay
    from matches.models import Match

    settings.LIVE_DELAY_SECONDS = 0
    versions = [Bot.objects.get(name=n).current_version for n in ("greedy-bura", "random-bura")]
    match = actions.create_match(kind="ladder", preset="bura", seat_versions=versions, ranked=True)
    viewer = Client()
    assert viewer.get(f"/matches/{match.pk}/live/").json() == {"live": {"status": "queued"}}
    Match.objects.filter(pk=match.pk).update(status="running")
    relay.start_match(relay.attempt_name(match), [0, 1])
    body = viewer.get(f"/matches/{match.pk}/live/").json()  # nothing relayed yet: the opening position
    assert body["steps"] == 0 and body["meta"]["live"] is True and len(body["frames"]) == 1
    Match.objects.filter(pk=match.pk).update(status="queued")
    played = play_in_thread(match.pk)
    played["thread"].join(timeout=60)
    assert played["result"] == "finished"
    match.refresh_from_db()
    relayed = relay.actions(relay.attempt_name(match))
    from web.replay_views import load_stored
    assert [(e["seat"], e["action"]) for e in relayed] == [(a["seat"], a["action"])
                                                           for a in load_stored(match.replay_sha256)["actions"]]
    assert viewer.get(f"/matches/{match.pk}/live/").json() == {"live": {"status": "finished"}}


def test_people_get_their_own_ratings_and_no_bot_rating_moves(person):
    from bots.models import Bot
    from matches.models import Match
    from ratings.actions import leaderboard, refit_preset
    from ratings.models import Rating
    from ratings.people import people_board, presets_needing_people_refit, refit_people
    from ratings.tasks import refit_due

    _, client = person
    greedy = Bot.objects.get(name="greedy-bura")
    before = list(Rating.objects.filter(bot=greedy).values_list("live_mu", "live_sigma", "games"))
    for seed in (3, 4):
        match_id = sit_down(client)
        played = play_in_thread(match_id)
        answer_like_the_page(client, match_id, random.Random(seed))
        played["thread"].join(timeout=60)
        assert Match.objects.get(pk=match_id).status == "finished"
    assert list(Rating.objects.filter(bot=greedy).values_list("live_mu", "live_sigma", "games")) == before
    mine = Rating.objects.get(bot__name="@ann", preset="bura")
    assert mine.games == 2 and mine.wins + mine.draws + mine.losses == 2 and not mine.is_current
    assert mine.live_mu != 25.0 or mine.live_sigma < 25 / 3  # the live value moved
    assert all(r.bot.kind == "bot" for r in leaderboard("bura"))  # the bots' list has no person
    assert presets_needing_people_refit() == ["bura"]
    assert refit_due() == ["people:bura"]
    mine.refresh_from_db()
    assert mine.official is not None and mine.official_low < mine.official < mine.official_high
    assert [r.bot.name for r in people_board("bura")] == ["@ann"]
    assert presets_needing_people_refit() == []
    official = mine.official
    refit_people("bura")  # the same matches: the same number (to the warm start's last digits)
    mine.refresh_from_db()
    assert mine.official == pytest.approx(official, abs=1e-6)
    official = mine.official
    refit_preset("bura")  # the bots' own refit leaves a person's row alone
    mine.refresh_from_db()
    assert mine.official == official
    page = client.get("/games/bura/").content.decode()
    assert 'id="people"' in page and "@ann" in page
    assert "@ann" in client.get("/bots/@ann/").content.decode()


def test_a_team_preset_seats_the_chosen_partner_beside_the_person(person):
    from arena.games.seating import layout
    from matches.models import Match

    _, client = person
    match_id = sit_down(client, "greedy-kozel", "kozel", partner="random-kozel")
    match = Match.objects.get(pk=match_id)
    seats = {s.seat: s.version.bot.name for s in match.seats.select_related("version__bot")}
    _, teams = layout("kozel", {})
    mine = next(team for team in teams if "@ann" in [seats[s] for s in team])
    assert sorted(seats[s] for s in mine) == ["@ann", "random-kozel"]
    assert all(seats[s] == "greedy-kozel" for team in teams if team != mine for s in team)
    Match.objects.filter(pk=match_id).update(status="finished")
    refused = client.post("/play/", {"opponent": "greedy-bura", "preset": "bura", "partner": "random-bura"},
                          follow=True)
    assert "has no partners" in refused.content.decode()


def test_a_persons_seat_is_followed_live_by_the_person_only(person, settings):
    from matches import relay
    from matches.models import Match

    settings.LIVE_DELAY_SECONDS = 0
    _, client = person
    match_id = sit_down(client)
    match = Match.objects.get(pk=match_id)
    mine = next(s.seat for s in match.seats.select_related("version__bot") if s.version.bot.is_person)
    Match.objects.filter(pk=match_id).update(status="running")
    relay.start_match(relay.attempt_name(match), [0, 1])
    watcher = Client()
    for view in ("all", str(mine), str(1 - mine)):
        refused = watcher.get(f"/matches/{match_id}/live/?seat={view}")
        assert refused.status_code == 403 and "seat=public" in refused.json()["error"]["message"]
    assert client.get(f"/matches/{match_id}/live/?seat={1 - mine}").status_code == 403  # the bot's hand
    seen = client.get(f"/matches/{match_id}/live/?seat={mine}").json()
    hand = seen["frames"][0]["views"][str(mine)]["hand"]
    assert seen["steps"] == 0 and hand and str(1 - mine) not in seen["frames"][0]["views"]
    public = watcher.get(f"/matches/{match_id}/live/").json()["frames"][0]["views"]
    assert list(public) == ["public"] and "hand" not in public["public"]
    assert watcher.get(f"/matches/{match_id}/live/?seat=9").status_code == 400
    page = watcher.get(f"/matches/{match_id}/").content.decode()
    assert 'data-live-url' in page and '<option value="public">' in page and '<option value="all">' not in page
    assert f'<option value="{mine}">' not in page and f'<option value="{mine}">' in client.get(
        f"/matches/{match_id}/").content.decode()


def test_a_running_casual_match_keeps_its_deal_secret_and_a_persons_seat_is_no_bot(person, as_user, make_user):
    from matches.models import Match

    user, client = person
    match_id = sit_down(client)
    api = as_user(user)
    shown = api.get(f"/api/v1/matches/{match_id}/").json()
    assert shown["seed"] == shown["base_seed"] == "" and "--seed" not in shown["reproduce"]  # it gives every hand
    listed = api.get("/api/v1/matches/?kind=casual").json()["results"]
    assert all(m["seed"] == "" for m in listed)
    Match.objects.filter(pk=match_id).update(status="finished")
    assert api.get(f"/api/v1/matches/{match_id}/").json()["seed"] == str(Match.objects.get(pk=match_id).seed)
    # the person's row is not a bot: no changes, uploads, challenges or tournament entries through it
    assert api.patch("/api/v1/bots/@ann/", {"active": True}, format="json").status_code == 404
    assert api.post("/api/v1/bots/@ann/versions/", {}, format="multipart").status_code == 404
    refused = api.post("/api/v1/challenges/", {"bot": "@ann", "opponent": "greedy-bura"}, format="json")
    assert refused.status_code in (400, 404), refused.json()


def test_a_relay_that_is_away_aborts_the_seat_without_blaming_it_or_the_machine(settings):
    from arena import protocol
    from arena.players import PlayerFailure
    from matches import actions, relay

    settings.LIVE_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    channel = relay.RelayChannel("1.2.1", 0)
    with pytest.raises(PlayerFailure) as failure:
        channel.receive(time.monotonic() + 1.0)
    assert (failure.value.verdict, failure.value.code) == (protocol.ABORTED, relay.RELAY)
    result = {"seats": [{"seat": 0, "verdict": protocol.ABORTED, "code": relay.RELAY, "detail": "away"}]}
    reason, machine_broken = actions.is_infrastructure_failure(result)
    assert "aborted (relay)" in reason and machine_broken is False  # the worker goes on taking matches


def test_live_views_reuse_one_re_run_per_position():
    from web.live_views import RunCache

    cache = RunCache(size=2)
    replay = {"game": "bura", "preset": "bura", "rules": {}, "seed": 5, "seats": [{"seat": 0}, {"seat": 1}],
              "actions": []}
    from arena.games import resolve
    from arena.games.options import rules_to_dict

    replay["rules"] = rules_to_dict(resolve("bura", {})[1])
    first = cache.get("1.5.1", replay)
    assert cache.get("1.5.1", dict(replay)) is first  # the same position: the same re-run
    assert cache.get("2.5.1", replay) is not first
    cache.get("3.5.1", replay)  # the oldest is dropped past the size
    assert cache.get("1.5.1", replay) is not first


def test_a_person_resigns_and_the_match_is_a_forfeit_recorded_as_such(person):
    from matches.models import Match

    user, client = person
    match_id = sit_down(client)
    outcome = play_in_thread(match_id)
    # one move, then the person thinks over the next request and gives up
    after, requests, deadline = 0, 0, time.monotonic() + 30
    while requests < 2 and time.monotonic() < deadline:
        body = client.get(f"/play/{match_id}/lines/?after={after}").json()
        for entry in body["lines"]:
            message = entry["m"]
            if message["type"] == "hello":
                client.post(f"/play/{match_id}/answer/", b'{"type":"ready"}', content_type="application/json")
            elif message["type"] == "request":
                requests += 1
                if requests == 1:
                    client.post(f"/play/{match_id}/answer/", orjson.dumps(
                        {"type": "action", "id": message["id"], "action": message["legal_actions"][0]}),
                        content_type="application/json")
        after += len(body["lines"])
        time.sleep(0.05)
    assert requests == 2, "the person was never asked a second time"
    resigned = client.post(f"/play/{match_id}/resign/")
    assert resigned.status_code == 302 and resigned["Location"] == f"/play/{match_id}/"
    outcome["thread"].join(60)
    assert outcome["result"] == "finished"
    match = Match.objects.get(pk=match_id)
    mine = match.seats.get(version__bot__owner=user)
    assert (mine.verdict, mine.code) == ("resigned", "resigned") and "ann resigned" in mine.detail
    assert mine.rank == 2 and match.seats.exclude(pk=mine.pk).get().rank == 1
    page = client.get(f"/matches/{match_id}/").content.decode()
    assert re.search(r"forfeit: you resigned at your decision 2", page, re.IGNORECASE), page  # in words
    again = client.post(f"/play/{match_id}/resign/", follow=True).content.decode()
    assert "nothing to resign" in again  # once over, a second resign changes nothing


def test_leaving_a_table_not_yet_dealt_cancels_it_and_records_nothing(person):
    from matches.models import Match

    _, client = person
    match_id = sit_down(client)
    assert client.post(f"/play/{match_id}/resign/", follow=True).status_code == 200
    match = Match.objects.get(pk=match_id)
    assert match.status == "cancelled" and "left the table before it was dealt" in match.failure
    assert sit_down(client) != match_id  # free to sit down again
