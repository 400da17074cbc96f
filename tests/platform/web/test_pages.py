"""The server-rendered pages: they show what the API stores, in a bounded number of queries."""

from __future__ import annotations

import itertools

import pytest

from bots.actions import house_version
from matches import actions
from matches.models import Match
from play.tasks import play_match
from ratings.actions import refit_preset


@pytest.fixture
def played(house_bots, monkeypatch):
    """A few ranked duplicate sets among the bura house bots, refitted. Fixed deals: with random ones, four
    one-deal matches sometimes left greedy behind random (about 1 run in 20)."""
    seeds = itertools.count(101)
    monkeypatch.setattr(actions, "new_base_seed", lambda: next(seeds))
    rand = house_version("bura", "random")
    for name in ("greedy", "greedy-p50", "greedy-p25"):
        for _ in range(2):
            for match in actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                                      versions=[house_version("bura", name), rand],
                                                      overrides={"match": "deals:1"}):
                assert play_match(match.pk) == "finished"
    refit_preset("bura")
    refit_preset("bura")  # a second point of history


def test_it_shows_the_leaderboard_with_intervals_in_few_queries(client, played, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        page = client.get("/games/bura/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.index("greedy-bura") < html.index("random-bura")
    assert "±" in html and "W / D / L" in html
    found = client.get("/games/bura/", {"q": "p50"}).content.decode()
    assert "greedy-p50-bura" in found and "random-bura" not in found
    assert client.get("/games/chess/").status_code == 404


def test_it_shows_the_top_of_every_leaderboard_on_the_home_page(client, played, django_assert_max_num_queries):
    with django_assert_max_num_queries(25):
        page = client.get("/")
    assert page.status_code == 200 and b"greedy-bura" in page.content and b"burraco-2p" in page.content


def test_it_draws_a_bots_rating_history_and_head_to_head(client, played, django_assert_max_num_queries):
    with django_assert_max_num_queries(40):
        page = client.get("/bots/greedy-bura/")
    html = page.content.decode()
    assert html.count("<svg") == 1 and "Rating history" in html and ">bura " in html
    assert "Head to head" in html and "random-bura" in html


def test_it_shows_a_match_with_its_reproduce_command(client, played):
    match = Match.objects.filter(status="finished").order_by("pk").first()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"--seed {match.base_seed} --games 1" in page and "arena play bura" in page


def test_it_renders_the_protocol_and_the_rules_from_the_docs(client, db):
    page = client.get("/docs/protocol/")
    assert page.status_code == 200 and b"<table>" in page.content and b"hello" in page.content
    for game in ("bura", "kozel", "burraco"):
        assert client.get(f"/docs/rules-{game}/").status_code == 200
    assert client.get("/docs/nothing/").status_code == 404


def test_it_lists_bots_in_a_fixed_number_of_queries(client, house_bots, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        page = client.get("/bots/")
    assert all(f'href="/bots/{bot.name}/"' in page.content.decode() for bot in house_bots)


def test_it_shows_a_finished_tournament_with_standings_crosstable_and_trophies(client, alice, as_user, house_bots):
    from tests.platform.tournaments.test_tournaments_platform import host_tournament, run_to_the_end
    from tournaments import lifecycle
    from tournaments.models import Tournament

    field = ["greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"]
    pk = host_tournament(alice, as_user, field, name="Page Cup")
    lifecycle.start(Tournament.objects.get(pk=pk))
    run_to_the_end(pk)
    html = client.get(f"/tournaments/{pk}/").content.decode()
    assert "Standings" in html and "Crosstable" in html and "Round 3" in html
    assert client.get("/tournaments/").status_code == 200
    knockout = host_tournament(alice, as_user, field, name="Page KO", format="knockout")
    lifecycle.start(Tournament.objects.get(pk=knockout))
    run_to_the_end(knockout)
    assert 'class="chart bracket"' in client.get(f"/tournaments/{knockout}/").content.decode()


def test_it_lets_a_signed_in_user_host_a_tournament_from_the_form(client, alice):
    client.force_login(alice)
    answer = client.post("/tournaments/new/", {"name": "Form Cup", "preset": "bura", "format": "swiss",
                                               "rounds": 3, "deals": 1, "move_ms": 1000, "entry": "open",
                                               "max_entries": 8, "starts_at": "2020-01-01 10:00"})
    assert answer.status_code == 200 and "must be in the future" in answer.content.decode()
    answer = client.post("/tournaments/new/", {"name": "Form Cup", "preset": "bura", "format": "swiss",
                                               "rounds": 3, "deals": 1, "move_ms": 1000, "entry": "open",
                                               "max_entries": 8, "starts_at": "2099-01-01 10:00"})
    assert answer.status_code == 302


def test_it_reports_health_for_load_balancers(client, db):
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}


def test_it_shows_a_table_tournament(client, alice, as_user, house_bots):
    from bots.models import Bot
    from tests.platform.tournaments.test_tournaments_platform import host_tournament, run_to_the_end
    from tournaments import lifecycle
    from tournaments.models import Tournament

    names = [b.name for b in Bot.objects.filter(game="bura").order_by("name")][:4]
    pk = host_tournament(alice, as_user, names, preset="bura-3p", format="table_round_robin", name="Page Tables")
    lifecycle.start(Tournament.objects.get(pk=pk))
    run_to_the_end(pk)
    html = client.get(f"/tournaments/{pk}/").content.decode()
    assert "Tables won" in html and "sits this round out" in html and "Crosstable" not in html
