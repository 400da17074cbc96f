"""Match lists and the match page say who won and by how much, mark the viewer's own bot, and stay in a
bounded number of queries (issue 21, "Say what happened")."""

from __future__ import annotations

import itertools
import re

import pytest

from bots.actions import house_version
from matches import actions
from matches.models import Match
from play.tasks import play_match
from web.outcomes import headline, number


@pytest.fixture
def finished(house_bots, monkeypatch):
    """Two ranked duplicate sets of one bura deal: greedy against random, then greedy-p50 against random."""
    seeds = itertools.count(101)
    monkeypatch.setattr(actions, "new_base_seed", lambda: next(seeds))
    rand = house_version("bura", "random")
    played = []
    for name in ("greedy", "greedy-p50"):
        for match in actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                                  versions=[house_version("bura", name), rand],
                                                  overrides={"match": "deals:1"}):
            assert play_match(match.pk) == "finished"
            played.append(match.pk)
    return list(Match.objects.filter(pk__in=played).prefetch_related("seats__version__bot").order_by("pk"))


def _winner_and_loser(match):
    seats = sorted(match.seats.all(), key=lambda s: s.rank)
    return seats[0], seats[-1]


def test_it_says_who_won_in_the_home_pages_just_finished_list(client, finished, django_assert_max_num_queries):
    with django_assert_max_num_queries(25):
        html = client.get("/").content.decode()
    just_finished = html[html.index("Just finished"):]
    assert "#1" not in just_finished and ">finished<" not in just_finished
    for match in finished:
        winner, loser = _winner_and_loser(match)
        if winner.rank != loser.rank:
            assert f"{winner.version.bot.name} won" in just_finished
        assert f'<strong class="points">{number(winner.score)}</strong>' in just_finished
    assert not re.search(r'class="points">\d+\.0<', just_finished)  # integers as integers


def test_it_lists_a_bots_recent_results_in_a_bounded_number_of_queries(client, finished,
                                                                       django_assert_max_num_queries):
    more = []
    for match in finished:  # twice as many matches must not mean more queries
        more += actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                             versions=[match.seats.all()[0].version, match.seats.all()[1].version])
    with django_assert_max_num_queries(40) as counted:
        client.get("/bots/random-bura/")
    for match in more:
        if match.status == "queued":
            assert play_match(match.pk) == "finished"
    with django_assert_max_num_queries(len(counted.captured_queries)):
        page = client.get("/bots/random-bura/").content.decode()
    recent = page[page.index("Recent matches"):]
    cells = re.findall(r'class="status-finished">([^<]*)<', recent)
    assert len(cells) == len(finished) + len(more), cells
    assert all(c.strip().endswith(" won") or c == "draw" for c in cells), cells


def test_it_marks_the_viewers_own_bot(client, finished):
    owner = house_version("bura", "greedy").bot.owner
    assert 'class="tag">yours<' not in client.get("/").content.decode()
    client.force_login(owner)
    html = client.get("/").content.decode()
    assert 'class="tag">yours<' in html and " mine" in html


def test_the_match_page_says_who_won_and_by_how_much(client, finished):
    match = next(m for m in finished if len({s.rank for s in m.seats.all()}) == 2)
    winner, loser = _winner_and_loser(match)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    margin = number(abs(winner.score - loser.score))
    said = (f"{winner.version.bot.name} beat {loser.version.bot.name} by {margin} penalty point"
            if match.result["points_kind"] == "penalty" else
            f"{winner.version.bot.name} beat {loser.version.bot.name} by {margin} point")
    assert said in html, html[:3000]
    assert f"({number(winner.score)} to {number(loser.score)})" in html
    assert "ranks [" not in html and f"<td>{number(winner.score)}</td>" in html


def test_it_words_draws_three_sides_and_teams():
    def side(name, rank, points, bots=None):
        return {"name": name, "bots": bots or [name], "rank": rank, "points": points}

    assert headline([side("a", 1, 6), side("b", 1, 6)], False) == "A draw at 6 points each"
    assert headline([side("a", 1, 12), side("b", 2, 4)], False) == "a beat b by 8 points (12 to 4)"
    assert headline([side("a", 1, 1), side("b", 2, 3)], True) == "a beat b by 2 penalty points (1 to 3)"
    assert headline([side("a", 1, 5), side("b", 2, 3), side("c", 3, 1)], False) == \
        "a won with 5 points; b second with 3 points; c third with 1 point"
    assert number(12.0) == 12 and isinstance(number(12.0), int) and number(0.5) == 0.5
