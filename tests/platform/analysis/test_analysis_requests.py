"""Asking for a seat's analysis from the match page: who may, the embargo, the cache, the hourly limit, the
job's idempotency, the fair share, and the pages that show the results (with their query counts)."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from analysis import jobs
from analysis.models import Analysis
from bots.actions import house_version
from ladder.matchmaking import recent_costs
from matches import actions
from matches.models import Match
from tests.platform.analysis.conftest import BUDGET, PAR_ITERATIONS, a_deal, play

PASSWORD = "a-long-password-1"


def logged_in(user) -> Client:
    client = Client()
    client.login(username=user.username, password=PASSWORD)
    return client


def analyse(client: Client, match: Match, seat: int):
    return client.post(f"/matches/{match.pk}/analyse/", {"seat": str(seat)})


def test_the_owner_analyses_their_seat_and_the_viewer_gets_marks_and_par(alice, finished):
    answer = analyse(logged_in(alice), finished, 0)
    assert answer.status_code == 302 and answer["Location"].endswith(f"/matches/{finished.pk}/#analysis")
    row = Analysis.objects.get()
    assert (row.status, row.seat, row.budget, row.version.bot.owner) == ("queued", 0, BUDGET, alice)
    assert row.replay_sha256 == finished.replay_sha256
    assert jobs.run(row.pk) == "done"
    row.refresh_from_db()
    assert row.decisions > 0 and row.expected_loss is not None and row.worker_ms > 0
    assert row.par["bot"] == "search-3" and row.par["iterations"] == PAR_ITERATIONS and row.par["exact"]
    assert row.par["opponents"] == [None, "greedy"]
    body = Client().get(f"/matches/{finished.pk}/analysis/").json()  # a public match: anyone reads it
    (seat,) = body["seats"]
    assert seat["status"] == "done" and seat["summary"]["analysed"] == row.decisions
    assert {"index", "played", "suggested", "loss", "mark"} <= set(seat["decisions"][0])
    page = html.unescape(logged_in(alice).get(f"/matches/{finished.pk}/").content.decode())
    assert 'id="analysis-table"' in page and ("than par" in page or "level with par" in page)
    assert "search-3 (3 iterations a decision) in this seat on the same deals, against the same house bots" in page


def test_a_second_request_for_the_same_key_is_the_cache_and_costs_nothing(alice, bob, finished, settings):
    settings.ANALYSES_PER_HOUR = 1
    analyse(logged_in(alice), finished, 0)
    row = Analysis.objects.get()
    assert jobs.run(row.pk) == "done"
    row.refresh_from_db()
    done_at, cost = row.finished, row.worker_ms
    again = analyse(logged_in(bob), finished, 0)  # anyone, on a public match: the same key
    assert again.status_code == 302
    assert Analysis.objects.count() == 1
    assert jobs.run(row.pk) == "not taken"  # a message delivered twice does nothing
    row.refresh_from_db()
    assert (row.finished, row.worker_ms, row.attempts) == (done_at, cost, 1)
    # bob spent nothing on the cached key: his one analysis of the hour is still there
    assert analyse(logged_in(bob), finished, 1).status_code == 302
    assert Analysis.objects.filter(seat=1, requested_by=bob).exists()


def test_the_hourly_limit_refuses_with_its_figure_and_when_it_resets(alice, finished, settings):
    settings.ANALYSES_PER_HOUR = 1
    client = logged_in(alice)
    assert analyse(client, finished, 0).status_code == 302
    refused = client.post(f"/matches/{finished.pk}/analyse/", {"seat": "1"}, follow=True)
    text = html.unescape(refused.content.decode())
    assert "Analyses are limited to 1 an hour per user" in text and "try again in" in text
    assert not Analysis.objects.filter(seat=1).exists()


def test_a_deal_still_in_play_is_refused_and_nothing_is_queued(alice, mine):
    first, _second = a_deal(mine)
    play(first)  # the other rotation is still queued: the deal's cards are secret
    client = logged_in(alice)
    refused = client.post(f"/matches/{first.pk}/analyse/", {"seat": "0"})
    assert refused.status_code == 404
    assert "embargoed until every match of this deal has ended" in refused.content.decode()
    read = client.get(f"/matches/{first.pk}/analysis/")
    assert read.status_code == 404 and read.json()["error"]["code"] == "embargoed"
    assert not Analysis.objects.exists()
    assert 'id="analysis-table"' not in client.get(f"/matches/{first.pk}/").content.decode()


def test_a_job_never_reads_a_deal_back_in_play(alice, finished, mine):
    analyse(logged_in(alice), finished, 0)
    row = Analysis.objects.get()
    Match.objects.filter(pk=finished.pk).update(status="running")  # as a re-played rotation would be
    assert jobs.run(row.pk) == "failed"
    row.refresh_from_db()
    assert "embargoed" in row.reason and row.result is None


def test_a_validation_match_is_its_owners_alone(alice, bob, mine):
    match = actions.create_match(kind="validation", preset="bura", overrides={"match": "deals:1"},
                                 seat_versions=[mine, house_version("bura", "random")], validates=mine,
                                 requested_by=alice)
    play(match)
    refused = analyse(logged_in(bob), match, 1)  # not even the house bot's seat
    assert refused.status_code == 404
    assert "a validation match is its bot's owner's alone" in html.unescape(refused.content.decode())
    assert logged_in(bob).get(f"/matches/{match.pk}/analysis/").status_code == 404
    assert Client().get(f"/matches/{match.pk}/analysis/").status_code == 404
    assert analyse(Client(), match, 0).status_code == 302 and not Analysis.objects.exists()  # to the log-in page
    assert analyse(logged_in(alice), match, 1).status_code == 404  # the owner's seats only
    assert analyse(logged_in(alice), match, 0).status_code == 302
    assert Analysis.objects.get().seat == 0


def test_a_killed_workers_job_is_run_again_once_and_counted_once(alice, finished):
    analyse(logged_in(alice), finished, 0)
    row = Analysis.objects.get()
    # a worker claimed it and died: its lease still runs, so nobody else takes it yet
    Analysis.objects.filter(pk=row.pk).update(status="running", attempts=1, lease_owner="dead:1",
                                              lease_expires=timezone.now() + timedelta(minutes=5))
    assert jobs.run(row.pk) == "not taken"
    Analysis.objects.filter(pk=row.pk).update(lease_expires=timezone.now() - timedelta(seconds=1))
    assert jobs.run(row.pk) == "done"
    row.refresh_from_db()
    assert row.attempts == 2 and row.status == "done" and row.lease_owner != "dead:1"
    # the dead worker, had it come back, could not write over it
    assert Analysis.objects.filter(pk=row.pk, status="running", lease_owner="dead:1").update(status="failed") == 0


def test_a_job_its_workers_died_on_three_times_fails_with_that_reason(alice, finished):
    analyse(logged_in(alice), finished, 0)
    row = Analysis.objects.get()
    Analysis.objects.filter(pk=row.pk).update(status="running", attempts=jobs.MAX_ATTEMPTS, lease_owner="dead:3",
                                              lease_expires=timezone.now() - timedelta(seconds=1))
    assert jobs.run(row.pk) == "not taken"
    row.refresh_from_db()
    assert row.status == "failed" and "its worker stopped 3 times" in row.reason
    # asking again runs it afresh
    assert analyse(logged_in(alice), finished, 0).status_code == 302
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("queued", 0)


def test_an_analysis_counts_in_the_analysed_versions_fair_share(alice, finished, mine):
    since = timezone.now() - timedelta(days=1)
    before = recent_costs([mine.pk], "bura", since).get(mine.pk, 0)
    analyse(logged_in(alice), finished, 0)
    row = Analysis.objects.get()
    jobs.run(row.pk)
    row.refresh_from_db()
    assert row.worker_ms > 0
    assert recent_costs([mine.pk], "bura", since)[mine.pk] == before + row.worker_ms


def test_an_analysis_asked_by_someone_else_never_spends_the_versions_share(alice, bob, finished, mine):
    since = timezone.now() - timedelta(days=1)
    before = recent_costs([mine.pk], "bura", since).get(mine.pk, 0)
    bob.set_password(PASSWORD)
    bob.save()
    assert analyse(logged_in(bob), finished, 0).status_code == 302  # a public ladder seat: anyone may look
    row = Analysis.objects.get()
    jobs.run(row.pk)
    row.refresh_from_db()
    assert row.requested_by == bob and row.worker_ms > 0
    assert recent_costs([mine.pk], "bura", since).get(mine.pk, 0) == before


def done_analysis(match: Match, seat: int, loss: float, blunders: int) -> Analysis:
    seat_row = match.seats.get(seat=seat)
    summary = {"seat": seat, "analysed": 10, "expected_loss": loss, "inaccuracy": 0, "mistake": 0,
               "blunder": blunders}
    return Analysis.objects.create(match=match, replay_sha256=match.replay_sha256, seat=seat, budget=BUDGET,
                                   version=seat_row.version, status="done", finished=timezone.now(),
                                   result={"seats": [summary], "decisions": [], "unit": "points"},
                                   par={"points": 0, "points_kind": "penalty", "bot": "search-3",
                                        "iterations": 3, "exact": True, "stand_ins": []},
                                   expected_loss=loss, decisions=10)


def test_the_bot_page_averages_its_recent_analyses_in_one_query(alice, mine, client, django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def page_queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            assert client.get("/bots/alice-bura/").status_code == 200
        return len(seen)

    first, second = a_deal(mine)
    play(second)
    play(first)
    done_analysis(first, 0, 2.0, 1)
    one = page_queries()
    for _ in range(3):  # three more analysed matches: not one query more
        more = a_deal(mine)
        for m in reversed(more):
            play(m)
        done_analysis(more[0], 0, 4.0, 0)
    assert page_queries() == one
    text = html.unescape(client.get("/bots/alice-bura/").content.decode())
    assert "Over its 4 most recently analysed match seats" in text and "<strong>3.50</strong> points a match" in text
    from analysis.queries import bot_average

    with django_assert_num_queries(1):
        average = bot_average(mine.bot)
    assert average is not None and average.matches == 4 and average.blunders_per_match == 0.25


def test_the_match_page_shows_every_seats_analysis_without_a_query_each(alice, finished, client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    done_analysis(finished, 0, 1.5, 1)
    with CaptureQueriesContext(connection) as one:
        client.get(f"/matches/{finished.pk}/")
    done_analysis(finished, 1, 0.5, 0)
    with CaptureQueriesContext(connection) as two:
        page = client.get(f"/matches/{finished.pk}/").content.decode()
    assert len(two) == len(one)
    assert page.count('data-status="done"') == 2 and "Log in" not in page.split('id="analysis-table"')[1][:200]


@pytest.mark.parametrize("seat", ["x", "", "-1"])
def test_a_seat_that_is_not_a_number_is_refused_by_name(alice, finished, seat):
    answer = logged_in(alice).post(f"/matches/{finished.pk}/analyse/", {"seat": seat}, follow=True)
    assert "seat must be a seat number" in html.unescape(answer.content.decode()) and not Analysis.objects.exists()


def test_a_job_whose_replay_is_gone_fails_with_the_reason_and_offers_to_ask_again(alice, finished):
    analyse(logged_in(alice), finished, 0)
    row = Analysis.objects.get()
    Analysis.objects.filter(pk=row.pk).update(replay_sha256="0" * 64)  # as if the stored file were lost
    assert jobs.run(row.pk) == "failed"
    row.refresh_from_db()
    assert row.status == "failed" and row.reason.startswith("BlobMissing") and row.result is None
    page = html.unescape(logged_in(alice).get(f"/matches/{finished.pk}/").content.decode())
    assert f"failed: {row.reason}" in page and "Analyse seat 0" in page


def test_an_analysis_queued_long_is_offered_again_and_sent_again_for_free(alice, finished, settings, monkeypatch):
    from analysis import actions as analysis_actions

    settings.ANALYSES_PER_HOUR = 2  # one for seat 0, one for seat 1: sending seat 0 again must be free
    sent: list[int] = []
    monkeypatch.setattr(analysis_actions, "_publish", lambda row: sent.append(row.pk))
    client = logged_in(alice)
    analyse(client, finished, 0)
    row = Analysis.objects.get()
    assert sent == [row.pk] and "Analyse seat 0" not in client.get(f"/matches/{finished.pk}/").content.decode()
    Analysis.objects.filter(pk=row.pk).update(created=timezone.now() - timedelta(minutes=11))
    page = html.unescape(client.get(f"/matches/{finished.pk}/").content.decode())
    assert "still queued since" in page and "Analyse seat 0" in page
    assert analyse(client, finished, 0).status_code == 302
    assert sent == [row.pk, row.pk] and Analysis.objects.count() == 1  # the same row, its message again
    assert analyse(client, finished, 1).status_code == 302 and Analysis.objects.filter(seat=1).exists()  # unspent
