"""Ranked results feed the live rating and counters once, the refit gives the official leaderboard, and the
API serves leaderboards, head-to-head results and rating histories."""

from __future__ import annotations

import pytest

from bots.actions import house_version
from matches import actions
from matches.models import Match
from play.tasks import play_match
from ratings.actions import refit_preset
from ratings.models import Rating, RatingSnapshot


def play_ranked(preset: str, versions, overrides=None, sets: int = 1) -> list[Match]:
    played = []
    for _ in range(sets):
        for match in actions.create_duplicate_set(kind="ladder", preset=preset, versions=versions, ranked=True,
                                                  overrides=overrides or {}):
            assert play_match(match.pk) == "finished"
            played.append(match)
    return played


@pytest.fixture
def greedy_and_random(house_bots):
    return house_version("bura", "greedy"), house_version("bura", "random")


def test_it_counts_a_ranked_match_once_even_when_it_is_delivered_again(greedy_and_random):
    greedy, rand = greedy_and_random
    [first, _] = play_ranked("bura", [greedy, rand], {"match": "deals:1"})
    assert play_match(first.pk) == "not-queued"
    rows = {r.version_id: r for r in Rating.objects.filter(preset="bura")}
    assert rows[greedy.pk].games == rows[rand.pk].games == 2
    assert rows[greedy.pk].wins == rows[rand.pk].losses
    assert rows[greedy.pk].wins + rows[greedy.pk].draws + rows[greedy.pk].losses == 2


def test_it_credits_both_seats_bot_in_a_team_preset(house_bots):
    greedy, rand = house_version("kozel", "greedy"), house_version("kozel", "random")
    matches = play_ranked("kozel", [greedy, rand], {"target": "1"})
    assert all(sorted(s.version_id for s in m.seats.all()) == sorted([greedy.pk] * 2 + [rand.pk] * 2)
               for m in matches)
    rows = {r.version_id: r for r in Rating.objects.filter(preset="kozel")}
    assert rows[greedy.pk].games == rows[rand.pk].games == len(matches)  # once per match, not per seat


def test_it_gives_a_version_that_only_met_itself_no_rating(greedy_and_random, api):
    greedy, _ = greedy_and_random
    match = actions.create_match(kind="ladder", preset="bura", ranked=True, seat_versions=[greedy, greedy],
                                 overrides={"match": "deals:1"})
    assert play_match(match.pk) == "finished"
    refit_preset("bura")
    row = Rating.objects.get(version=greedy, preset="bura")
    assert (row.games, row.official) == (0, None)
    board = api.get("/api/v1/leaderboards/bura/").json()["results"]
    assert [(r["bot"], r["rating"]) for r in board] == [("greedy-bura", None)]


def test_it_ranks_the_stronger_bot_first_after_a_refit_and_serves_the_tables(greedy_and_random, api):
    greedy, rand = greedy_and_random
    play_ranked("bura", [greedy, rand], {"match": "deals:1"}, sets=8)
    refit = refit_preset("bura")
    assert refit.matches == 16 and refit.rated == 2
    board = api.get("/api/v1/leaderboards/bura/").json()["results"]
    assert [r["bot"] for r in board] == ["greedy-bura", "random-bura"]
    top, bottom = board
    assert top["rank"] == 1 and top["rating"] > 1500 > bottom["rating"]
    assert top["interval"] > 0 and top["games"] == 16 and 0.5 < top["los_next"] <= 1
    h2h = api.get("/api/v1/head-to-head/", {"a": "greedy-bura", "b": "random-bura", "preset": "bura"}).json()
    assert h2h["matches"] == 16 and h2h["a_wins"] + h2h["draws"] + h2h["b_wins"] == 16
    assert h2h["a_wins"] == top["wins"]
    history = api.get("/api/v1/bots/greedy-bura/ratings/bura/").json()
    assert [round(h["rating"], 6) for h in history] == [round(top["rating"], 6)]
    assert RatingSnapshot.objects.count() == 2


def test_it_refuses_an_unknown_preset_and_missing_parameters(api, house_bots):
    assert api.get("/api/v1/leaderboards/chess/").status_code == 404
    answer = api.get("/api/v1/head-to-head/", {"a": "greedy-bura"})
    assert answer.status_code == 400 and set(answer.json()["error"]["fields"]) == {"b", "preset"}


def test_it_answers_the_leaderboard_in_a_fixed_number_of_queries(greedy_and_random, api, django_assert_max_num_queries,
                                                                  house_bots):
    greedy, rand = greedy_and_random
    play_ranked("bura", [greedy, rand], {"match": "deals:1"})
    for version in (house_version("bura", n) for n in ("greedy-p25", "greedy-p50", "greedy-p75")):
        play_ranked("bura", [version, rand], {"match": "deals:1"})
    refit_preset("bura")
    with django_assert_max_num_queries(3):
        rows = api.get("/api/v1/leaderboards/bura/").json()["results"]
    assert len(rows) == 5
