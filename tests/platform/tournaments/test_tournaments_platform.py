"""Tournaments run themselves on ordinary matches: start, pair, play, advance, standings and trophies; and
version tests stop when the SPRT decides. Matches are played in-process by the worker's task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.actions import do_create_bot, house_version
from bots.models import Bot, BotVersion
from matches.models import Match
from play.tasks import play_match
from tournaments import lifecycle, queries
from tournaments.models import Pairing, Tournament, Trophy, VersionTest
from tournaments.versiontests import do_start_test

SHORT = {"match": "deals:1"}


def host_tournament(host, as_user, names, **fields) -> int:
    body = {"name": fields.pop("name", "Cup"), "preset": "bura", "overrides": SHORT, "format": "round_robin",
            "entry": "private", "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(), **fields}
    client = as_user(host)
    answer = client.post("/api/v1/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    pk = answer.json()["id"]
    for name in names:
        joined = client.post(f"/api/v1/tournaments/{pk}/join/", {"bot": name}, format="json")
        assert joined.status_code == 201, joined.json()
    return pk


def run_to_the_end(pk: int, limit: int = 400) -> Tournament:
    for _ in range(limit):
        t = Tournament.objects.get(pk=pk)
        if t.status != Tournament.Status.RUNNING:
            return t
        queued = list(queries.tournament_matches(t).filter(status="queued").values_list("pk", flat=True))
        for match_id in queued:
            assert play_match(match_id) == "finished"
        lifecycle.advance(pk)
    raise AssertionError("the tournament did not finish")


@pytest.fixture
def field(house_bots):
    return ["greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"]


def test_it_runs_a_round_robin_to_the_end_with_standings_and_trophies(alice, as_user, field, api):
    pk = host_tournament(alice, as_user, field)
    started = as_user(alice).post(f"/api/v1/tournaments/{pk}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"
    t = run_to_the_end(pk)
    assert t.status == "finished"
    assert Pairing.objects.filter(round__tournament=t).count() == 6  # 4 entrants: 3 rounds of 2
    assert Match.objects.filter(kind="tournament").count() == 12  # a duplicate set (2 matches) per pairing
    table = api.get(f"/api/v1/tournaments/{pk}/standings/").json()
    assert [row["place"] for row in table] == [1, 2, 3, 4]
    assert sum(row["points"] for row in table) == 6
    assert all(row["played"] == 3 for row in table)
    assert [tr.place for tr in Trophy.objects.filter(tournament=t)] == [1, 2, 3]
    assert Trophy.objects.get(tournament=t, place=1).bot.name == table[0]["bot"]
    cross = api.get(f"/api/v1/tournaments/{pk}/crosstable/").json()
    assert cross["bots"] == [row["bot"] for row in table] and cross["cells"][0][0] is None
    assert len(api.get(f"/api/v1/tournaments/{pk}/rounds/").json()) == 3


def test_it_freezes_the_version_at_the_start(alice, as_user, bura_bot, upload, field):
    from tests.platform.conftest import python_bot

    assert upload(alice, bura_bot.name, "main.py", python_bot()).status_code == 201
    v1 = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(v1.validation_match_id) == "finished"
    pk = host_tournament(alice, as_user, [bura_bot.name, "random-bura"])
    lifecycle.start(Tournament.objects.get(pk=pk))
    v2_answer = upload(alice, bura_bot.name, "main.py", python_bot() + b"\n# v2\n")
    assert play_match(BotVersion.objects.get(bot=bura_bot, number=2).validation_match_id) == "finished"
    assert v2_answer.status_code == 201
    t = run_to_the_end(pk)
    played = {s.version_id for m in queries.tournament_matches(t) for s in m.seats.all()}
    assert v1.pk in played and BotVersion.objects.get(bot=bura_bot, number=2).pk not in played


def test_it_seeds_a_knockout_gives_byes_and_finishes(alice, as_user, house_bots):
    names = [b.name for b in Bot.objects.filter(game="bura").order_by("name")][:5]
    pk = host_tournament(alice, as_user, names, format="knockout", name="KO")
    lifecycle.start(Tournament.objects.get(pk=pk))
    first = list(Pairing.objects.filter(round__tournament_id=pk, round__number=1).order_by("board"))
    assert len(first) == 4 and sum(p.is_bye for p in first) == 3  # 5 entrants in a bracket of 8
    assert first[0].first.seed == 1 and first[0].is_bye
    t = run_to_the_end(pk)
    assert t.status == "finished" and t.round_set.count() == 3
    final = Pairing.objects.filter(round__tournament=t, round__number=3).get()
    assert final.score in (0.0, 1.0)


def test_it_pairs_swiss_rounds_without_rematches(alice, as_user, house_bots):
    names = [b.name for b in Bot.objects.filter(game="bura").order_by("name")][:6]
    pk = host_tournament(alice, as_user, names, format="swiss", rounds=3, name="Swiss")
    lifecycle.start(Tournament.objects.get(pk=pk))
    t = run_to_the_end(pk)
    met = [frozenset((p.first_id, p.second_id)) for p in Pairing.objects.filter(round__tournament=t)
           if p.second_id]
    assert t.round_set.count() == 3 and len(met) == len(set(met)) == 9


@pytest.mark.parametrize(("case", "message"), [
    ("twice", "has joined already"),
    ("not mine", "is not your bot"),
    ("wrong game", "plays kozel"),
    ("late", "entries are closed"),
])
def test_it_refuses_a_bad_entry_with_a_clear_error(alice, bob, as_user, house_bots, case, message):
    mine = do_create_bot(alice, game="bura", name="alice-bot")
    BotVersion.objects.create(bot=mine, number=1, builtin="greedy", runtime="builtin", status="ready")
    kozel = do_create_bot(alice, game="kozel", name="alice-kozel")
    start = (timezone.now() + timedelta(hours=1)).isoformat()
    t = as_user(bob).post("/api/v1/tournaments/", {"name": "Open", "preset": "bura", "format": "round_robin",
                                                   "starts_at": start}, format="json").json()
    client = as_user(alice)
    url = f"/api/v1/tournaments/{t['id']}/join/"
    bot = {"twice": "alice-bot", "not mine": "greedy-bura", "wrong game": kozel.name, "late": "alice-bot"}[case]
    if case == "twice":
        assert client.post(url, {"bot": bot}, format="json").status_code == 201
    if case == "late":
        Tournament.objects.filter(pk=t["id"]).update(status="running")
    answer = client.post(url, {"bot": bot}, format="json")
    assert answer.status_code == 400 and message in answer.json()["error"]["message"]


def test_it_cancels_a_start_with_too_few_entrants(alice, as_user, house_bots):
    pk = host_tournament(alice, as_user, ["greedy-bura"], name="Lonely")
    lifecycle.start_due()  # not due yet
    assert Tournament.objects.get(pk=pk).status == "open"
    Tournament.objects.filter(pk=pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    lifecycle.start_due()
    t = Tournament.objects.get(pk=pk)
    assert t.status == "cancelled" and "at least 2 are needed" in t.note


def test_it_refuses_bad_tournament_settings(alice, as_user, house_bots):
    client = as_user(alice)
    start = (timezone.now() + timedelta(hours=1)).isoformat()
    cases = [({"preset": "kozel-3p"}, "format", "sides"), ({"format": "swiss"}, "rounds", "number of rounds"),
             ({"starts_at": "2020-01-01T00:00:00Z"}, "starts_at", "future"),
             ({"overrides": {"match": "forever"}}, "overrides", "match")]
    for change, field_name, words in cases:
        body = {"name": "Bad", "preset": "bura", "format": "round_robin", "starts_at": start, **change}
        answer = client.post("/api/v1/tournaments/", body, format="json")
        assert answer.status_code == 400, change
        assert field_name in answer.json()["error"]["fields"] and words in answer.json()["error"]["message"]


def test_only_the_host_controls_a_tournament(alice, bob, as_user, field):
    pk = host_tournament(alice, as_user, field)
    assert as_user(bob).post(f"/api/v1/tournaments/{pk}/start/").status_code == 404
    client = as_user(alice)
    assert client.post(f"/api/v1/tournaments/{pk}/start/").json()["status"] == "running"
    assert client.post(f"/api/v1/tournaments/{pk}/pause/").json()["status"] == "paused"
    assert lifecycle.advance(pk) == "paused"
    assert client.post(f"/api/v1/tournaments/{pk}/resume/").json()["status"] == "running"
    cancelled = client.post(f"/api/v1/tournaments/{pk}/cancel/").json()
    assert cancelled["status"] == "cancelled"
    assert not queries.tournament_matches(Tournament.objects.get(pk=pk)).filter(status="queued").exists()


def test_a_version_test_stops_when_the_sprt_decides(alice, house_bots):
    strong, weak = house_version("bura", "greedy"), house_version("bura", "random")
    bot = strong.bot
    bot.owner = alice  # a version test is its owner's; borrow the house bot for the test
    bot.save()
    weak_twin = BotVersion.objects.create(bot=bot, number=2, builtin="random", runtime="builtin", status="ready")
    test = do_start_test(alice, strong, weak_twin, "bura", elo0=0, elo1=200, alpha=0.1, beta=0.1, parallel=2,
                         max_pairs=200)
    for _ in range(400):
        test.refresh_from_db()
        if test.status != "running":
            break
        from tournaments.models import TestSet

        sets = TestSet.objects.filter(test=test).values("duplicate_set")
        for match_id in Match.objects.filter(duplicate_set__in=sets, status="queued").values_list("pk", flat=True):
            play_match(match_id)
    assert test.status == VersionTest.Status.H1, (test.counts, test.llr)
    assert test.llr > 0 and sum(test.counts) >= 2
    assert weak.pk != weak_twin.pk


@pytest.mark.parametrize(("fmt", "rounds"), [("table_round_robin", None), ("swiss_tables", 2)])
def test_it_runs_tables_for_a_three_seat_preset(alice, as_user, house_bots, api, fmt, rounds):
    from tournaments.models import Table

    names = [b.name for b in Bot.objects.filter(game="bura").order_by("name")][:7]  # two tables and one sits out
    extra = {"rounds": rounds} if rounds else {}
    pk = host_tournament(alice, as_user, names, preset="bura-3p", format=fmt, name=f"Tables {fmt}", **extra)
    lifecycle.start(Tournament.objects.get(pk=pk))
    t = run_to_the_end(pk)
    assert t.status == "finished"
    tables = list(Table.objects.filter(round__tournament=t))
    assert all(len(row.seating) == 3 for row in tables if not row.bye)
    assert sum(row.bye for row in tables) == t.round_set.count()  # one entrant sits out each round
    for row in tables:
        if not row.bye:
            assert sum(row.scores.values()) == pytest.approx(1.5)  # three sides: 3 pairs, each worth a point
    table = api.get(f"/api/v1/tournaments/{pk}/standings/").json()
    assert [r["place"] for r in table] == list(range(1, 8))
    assert sum(r["points"] for r in table) == pytest.approx(1.5 * (len(tables) - t.round_set.count())
                                                          + 0.5 * t.round_set.count(), abs=0.01)  # shown to 3 places
    rounds_shown = api.get(f"/api/v1/tournaments/{pk}/rounds/").json()
    assert rounds_shown[0]["tables"] and not rounds_shown[0]["pairings"]


def test_it_matches_the_format_to_the_number_of_sides(alice, as_user, house_bots):
    client = as_user(alice)
    start = (timezone.now() + timedelta(hours=1)).isoformat()
    tables_for_two = client.post("/api/v1/tournaments/", {"name": "T2", "preset": "bura", "format": "swiss_tables",
                                                          "rounds": 2, "starts_at": start}, format="json")
    assert tables_for_two.status_code == 400 and "table formats are for 3–6 sides" in tables_for_two.json()[
        "error"]["message"]
    pairs_for_three = client.post("/api/v1/tournaments/", {"name": "T3", "preset": "bura-3p", "format": "round_robin",
                                                           "starts_at": start}, format="json")
    assert pairs_for_three.status_code == 400 and "choose a table format" in pairs_for_three.json()["error"]["message"]


def test_a_tournament_sets_how_far_behind_its_matches_are_shown_live(alice, as_user, field, settings):
    from matches import relay
    from web.live_views import delay_of

    settings.LIVE_DELAY_SECONDS = 3
    refused = as_user(alice).post("/api/v1/tournaments/", {
        "name": "Late", "preset": "bura", "format": "round_robin", "live_delay_seconds": 7200,
        "starts_at": (timezone.now() + timedelta(hours=1)).isoformat()}, format="json")
    assert refused.status_code == 400 and "live_delay_seconds" in str(refused.json())
    pk = host_tournament(alice, as_user, field[:2], live_delay_seconds=30, name="Final")
    assert as_user(alice).get(f"/api/v1/tournaments/{pk}/").json()["live_delay_seconds"] == 30
    lifecycle.start(Tournament.objects.get(pk=pk))
    matches = list(queries.tournament_matches(Tournament.objects.get(pk=pk)))
    assert matches and {m.live_delay_seconds for m in matches} == {30}
    assert delay_of(matches[0]) == 30
    first = matches[0]
    Match.objects.filter(pk=first.pk).update(status="running")
    relay.start_match(relay.attempt_name(first), [0, 1])
    relay.publish_action(relay.attempt_name(first), 0, {"type": "lead", "cards": ["AS"]})  # just played: not shown yet
    body = as_user(alice).get(f"/matches/{first.pk}/live/").json()  # the public view
    assert body["live"]["delay"] == 30 and body["steps"] == 0 and body["live"]["waiting"] == 1
