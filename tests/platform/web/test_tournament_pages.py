"""Tournament pages as organisers expect them (issue 21): a tournament says when it started or finished, links
its pairings and crosstable cells to their matches, leaves out (and explains) an all-zero tie-break column, and
stays in a fixed number of queries; the host of a private tournament adds and removes entrants on its page,
with the action's refusals beside the field."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from bots.models import Bot
from tests.platform.tournaments.test_tournaments_platform import run_to_the_end
from tournaments import actions, lifecycle
from tournaments.models import Entry, Pairing, Tournament
from tournaments.queries import tournament_matches

FIELD = ["greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"]
SHORT = {"match": "deals:1"}


# ---- tournaments --------------------------------------------------------------------------------------------

def tournament(host, names, *, name="Cup", entry="private", max_entries=8, **fields) -> Tournament:
    t = actions.do_create_tournament(host, name=name, preset="bura", overrides=SHORT, format="round_robin",
                                     rounds=None, deals=1, time_control=None, entry=entry, max_entries=max_entries,
                                     entry_deadline=None, starts_at=timezone.now() + timedelta(hours=1), **fields)
    for bot in names:
        actions.do_join(host, t, Bot.objects.get(name=bot))
    return t


def finished(host, names, name="Cup") -> Tournament:
    t = tournament(host, names, name=name)
    lifecycle.start(t)
    return run_to_the_end(t.pk)


def test_a_tournament_says_when_it_starts_started_and_finished(client, alice, house_bots):
    t = tournament(alice, FIELD[:2])
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "starts " in page
    # one vocabulary: a deal is one hand, and a pairing plays duplicate sets of matches
    assert f"{t.deals} duplicate set" in page and "per pairing" in page and " deal per pairing" not in page
    lifecycle.start(t)
    t.refresh_from_db()
    running = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert f"started <span class=\"nowrap\">{t.started:%Y-%m-%d %H:%M} UTC" in running and "starts " not in running
    t = run_to_the_end(t.pk)
    for page in (f"/tournaments/{t.pk}/", "/tournaments/"):
        html = client.get(page).content.decode()
        assert f"finished <span class=\"nowrap\">{t.finished:%Y-%m-%d %H:%M} UTC" in html, page
        assert "starts " not in html and "started " not in html, page


def test_pairings_and_crosstable_cells_link_to_their_matches(client, alice, house_bots):
    t = finished(alice, FIELD)
    html = client.get(f"/tournaments/{t.pk}/").content.decode()
    played = list(tournament_matches(t).values_list("pk", flat=True))
    assert len(played) == 12
    for pk in played:
        assert f'<a href="/matches/{pk}/">#{pk}</a>' in html
    cross = html[html.index('class="grid cross"'):html.index("<h2>Rounds</h2>")]
    boards = re.findall(rf'<a href="/tournaments/{t.pk}/rounds/(\d+)/(\d+)/"', cross)
    assert len(boards) == 12 and len(set(boards)) == 6, "each pairing from both sides of the crosstable"
    assert "of 2 games)" not in html and re.search(r"\(\d+(\.\d+)? points?( each)? from 2 games\)", html)
    number, board = boards[0]
    pairing = client.get(f"/tournaments/{t.pk}/rounds/{number}/{board}/").content.decode()
    linked = re.findall(r'<td><a href="/matches/(\d+)/">', pairing)
    assert len(linked) == 2 and {int(pk) for pk in linked} <= set(played)
    assert re.search(r"won 1 – 0</strong> <span class=\"muted\">\(\d(\.5)? points from 2 games\)", pairing) or \
        "drawn 0.5 – 0.5</strong> <span class=\"muted\">(1 point each from 2 games)" in pairing
    assert client.get(f"/tournaments/{t.pk}/rounds/9/1/").status_code == 404
    assert client.get(f"/tournaments/{t.pk}/rounds/1/9/").status_code == 404


def test_an_all_zero_tiebreak_column_is_left_out_and_said_so(client, alice, api, house_bots):
    two = finished(alice, FIELD[:2], name="Two")
    # one winner by 4 deal points: nobody is level, so H2H is 0, and so is S-B (the loser beat nobody)
    Pairing.objects.filter(round__tournament=two).update(score=1.0, margin=4.0)
    html = client.get(f"/tournaments/{two.pk}/").content.decode()
    standings = html[html.index('id="standings"'):html.index("</table>", html.index('id="standings"'))]
    assert ">H2H<" not in standings and ">Buch.<" in standings
    assert ">S-B<" not in standings, "the loser scored nothing: 0 for both"
    assert "(and why S-B, H2H are not shown)" in html
    assert ("<strong>H2H</strong>, head to head: the points scored against the others level on points, Buchholz "
            "and S-B, counted only when all of them have met (0 for every bot here, so its column is not shown)"
            in html)
    four = finished(alice, FIELD, name="Four")
    html = client.get(f"/tournaments/{four.pk}/").content.decode()
    rows = api.get(f"/api/v1/tournaments/{four.pk}/standings/").json()
    standings = html[html.index('id="standings"'):html.index("</table>", html.index('id="standings"'))]
    assert (">H2H<" in standings) == any(r["head_to_head"] for r in rows)


def test_a_tournament_page_takes_the_same_queries_for_four_entrants_as_for_seven(client, alice, house_bots,
                                                                            django_assert_max_num_queries):
    small = finished(alice, FIELD, name="Small")
    client.force_login(alice)
    with django_assert_max_num_queries(40) as counted:
        assert client.get(f"/tournaments/{small.pk}/").status_code == 200
    seven = [b.name for b in Bot.objects.filter(game="bura").order_by("name")][:7]
    assert len(seven) == 7
    big = finished(alice, seven, name="Big")
    with django_assert_max_num_queries(len(counted.captured_queries)):
        html = client.get(f"/tournaments/{big.pk}/").content.decode()
    # a match's own link (the header's /matches/ list aside)
    assert len(re.findall(r'href="/matches/\d', html)) == tournament_matches(big).count() == 42
    with django_assert_max_num_queries(len(counted.captured_queries)):
        assert client.get("/tournaments/").status_code == 200


# ---- a private tournament's host adds entrants ---------------------------------------------------------------

@pytest.fixture
def cup(alice, house_bots):
    return tournament(alice, [], name="Private cup", max_entries=3)


def add(client, t, bot: str):
    return client.post(f"/tournaments/{t.pk}/entrants/", {"bot": bot})


def field_error(html: str) -> str:
    found = re.search(r'<p class="error" id="entrant-bot-error">([^<]*)</p>', html)
    return found.group(1) if found else ""


def test_only_the_host_sees_the_entrant_form_of_a_private_tournament(client, cup, alice, bob):
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert 'id="add-entrant"' not in html and "the host adds the entrants" in html
    client.force_login(bob)
    Bot.objects.filter(name="random-bura").update(owner=bob)
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert 'id="add-entrant"' not in html and 'id="join"' not in html, "a private tournament takes no joiners"
    client.force_login(alice)
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert 'id="add-entrant"' in html and 'name="csrfmiddlewaretoken"' in html
    assert '<datalist id="entrant-choices">' in html and '<option value="greedy-bura">' in html
    assert '<option value="greedy-kozel">' not in html, "only bots of the tournament's game are suggested"


def test_the_host_adds_anyones_bot_and_removes_it(client, cup, alice):
    client.force_login(alice)
    answer = add(client, cup, " Greedy-Bura ")
    assert answer.status_code == 302 and answer["Location"] == f"/tournaments/{cup.pk}/#entries"
    assert list(cup.entries.values_list("bot__name", flat=True)) == ["greedy-bura"]
    html = client.get(answer["Location"]).content.decode()
    assert "greedy-bura, kozyr&#x27;s bot, is entered in Private cup." in html
    entries = html[html.index('id="entry-list"'):]
    assert '<a href="/bots/greedy-bura/">greedy-bura</a>' in entries
    assert 'data-confirm="Remove greedy-bura from Private cup?"' in entries
    assert '<option value="greedy-bura">' not in html, "an entrant is no longer suggested"
    removed = client.post(f"/tournaments/{cup.pk}/entrants/remove/", {"bot": "greedy-bura"})
    assert removed.status_code == 302 and not cup.entries.exists()


@pytest.mark.parametrize(("bot", "said"), [
    ("no-such-bot", "no bot is called &#x27;no-such-bot&#x27;"),
    ("greedy-kozel", "greedy-kozel plays kozel; this tournament is bura (bura)"),
])
def test_a_refused_bot_is_said_beside_the_field(client, cup, alice, bot, said):
    client.force_login(alice)
    answer = add(client, cup, bot)
    html = answer.content.decode()
    assert answer.status_code == 200 and field_error(html) == said
    assert 'class="field has-error"' in html and f'value="{bot}"' in html, "the name typed stays in the field"
    assert not cup.entries.exists()


def test_a_full_or_started_tournament_refuses_in_the_actions_words(client, cup, alice):
    client.force_login(alice)
    for name in FIELD[:3]:
        assert add(client, cup, name).status_code == 302
    html = add(client, cup, FIELD[3]).content.decode()
    assert '<div class="errors" role="alert"><p>the tournament is full (3 entries)</p></div>' in html
    assert add(client, cup, FIELD[0]).content.decode().count("greedy-bura has joined already") == 1
    actions.do_host_action(alice, cup, "start")
    html = add(client, cup, FIELD[3]).content.decode()
    assert "the tournament is running; entries are closed" in html and 'id="add-entrant"' in html
    html = client.post(f"/tournaments/{cup.pk}/entrants/remove/", {"bot": FIELD[0]}, follow=True).content.decode()
    assert "entries are frozen once the tournament has started" in html
    assert cup.entries.count() == 3


def test_nobody_but_the_host_adds_or_removes_entrants(client, cup, alice, bob):
    actions.do_join(alice, cup, Bot.objects.get(name="random-bura"))
    assert add(client, cup, "greedy-bura")["Location"].startswith("/login/")
    client.force_login(bob)
    assert add(client, cup, "greedy-bura").status_code == 404
    assert client.post(f"/tournaments/{cup.pk}/entrants/remove/", {"bot": "random-bura"}).status_code == 404
    client.force_login(alice)
    assert client.get(f"/tournaments/{cup.pk}/entrants/").status_code == 405
    assert client.post(f"/tournaments/{cup.pk}/entrants/remove/", {"bot": "nobody"}).status_code == 404
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(alice)
    assert guarded.post(f"/tournaments/{cup.pk}/entrants/", {"bot": "greedy-bura"}).status_code == 403
    assert list(Entry.objects.filter(tournament=cup).values_list("bot__name", flat=True)) == ["random-bura"]
