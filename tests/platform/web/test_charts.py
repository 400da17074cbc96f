"""The server-drawn charts: time ticks spaced by the span shown, the bot page's one rating chart (a line, a band
and a legend entry per preset, or "no rated games yet"), read in one query, and the score progression naming
its sides and saying which way is better."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from web.charts import DOTS_UP_TO, WIDTH, nice_ticks, rating_history, score_progression, time_ticks

T0 = datetime(2026, 12, 1, 23, 5, tzinfo=UTC)


def labels(start: datetime, span: timedelta) -> list[str]:
    return [" / ".join(label) for _, label in time_ticks(start, start + span)]


@pytest.mark.parametrize(("span", "expected"), [
    (timedelta(minutes=50), ["23:10 / 1 Dec", "23:20", "23:30", "23:40", "23:50"]),
    (timedelta(hours=1), ["23:15 / 1 Dec", "23:30", "23:45", "00:00 / 2 Dec"]),
    (timedelta(hours=30), ["00:00 / 2 Dec", "06:00", "12:00", "18:00", "00:00 / 3 Dec"]),
    (timedelta(days=9), ["3 Dec / 2026", "5 Dec", "7 Dec", "9 Dec"]),
    (timedelta(days=40), ["7 Dec / 2026", "14 Dec", "21 Dec", "28 Dec", "4 Jan / 2027"]),  # Mondays
    (timedelta(days=800), ["Jan / 2027", "Jul", "Jan / 2028", "Jul", "Jan / 2029"]),
    (timedelta(days=5000), ["2030", "2035", "2040"]),
])
def test_time_ticks_are_spaced_and_labelled_by_the_span(span, expected):
    assert labels(T0, span) == expected


@pytest.mark.parametrize("span", [timedelta(minutes=m) for m in (3, 17, 61, 300, 1500, 9000, 50_000, 400_000,
                                                                   3_000_000)])
def test_time_ticks_are_evenly_spaced_inside_the_span_and_at_most_six(span):
    ticks = [moment for moment, _ in time_ticks(T0, T0 + span)]
    assert 2 <= len(ticks) <= 6, ticks
    assert ticks[0] >= T0 and ticks[-1] <= T0 + span
    gaps = {b - a for a, b in itertools.pairwise(ticks)}
    assert len(gaps) == 1 or all(timedelta(days=28) <= g <= timedelta(days=31 * 120) for g in gaps), gaps


def test_value_ticks_are_round_and_cover_the_values():
    assert nice_ticks(1432, 1611) == [1400, 1500, 1600, 1700]
    assert nice_ticks(-55, 515) == [-200, 0, 200, 400, 600]
    ticks = nice_ticks(3, 3)
    assert ticks[0] <= 3 <= ticks[-1] and len(ticks) <= 5


def history(n: int, start: datetime = T0, step: timedelta = timedelta(hours=2), rating: float = 1500.0):
    return [(start + i * step, rating + 10 * i, rating + 10 * i - 80, rating + 10 * i + 80) for i in range(n)]


def test_the_rating_history_is_one_svg_with_a_line_band_and_legend_entry_per_preset():
    svg = str(rating_history({"bura": history(5), "burkozel": [], "echki-6": history(3, rating=1400.0)},
                             "Rating history of x<y"))
    assert svg.count("<svg") == 1 and f'viewBox="0 0 {WIDTH} ' in svg
    assert re.findall(r'data-preset="([^"]*)"', svg) == ["bura", "echki-6"]  # a preset without points is left out
    assert svg.count("<polygon") == 2 and svg.count("<polyline") == 2
    assert re.findall(r'class="legend">([^<]*)<', svg) == ["bura 1540 ± 80", "echki-6 1420 ± 80"]
    assert '<title id="rating-history-title">Rating history of x&lt;y</title>' in svg
    assert 'aria-labelledby="rating-history-title rating-history-desc"' in svg and 'role="img"' in svg
    desc = re.search(r'<desc id="rating-history-desc">([^<]*)<', svg).group(1)
    assert "95% interval" in desc and "bura: 1540 ± 80 now" in desc and "UTC" in desc
    assert "style=" not in svg  # the Content-Security-Policy refuses style attributes
    ticks = re.findall(r'<text class="time-tick"', svg)
    assert 2 <= len(ticks) <= 6


def test_one_refit_is_a_dot_with_its_interval_in_an_hour_wide_chart():
    svg = str(rating_history({"bura": history(1)}, "t"))
    assert "<polygon" not in svg and '<rect class="band"' in svg and svg.count("<circle") == 1
    assert ">22:45<" in svg or ">23:00<" in svg  # about its hour, in minutes


def test_a_long_line_keeps_only_its_last_dot():
    svg = str(rating_history({"bura": history(DOTS_UP_TO + 1), "kozel": history(3)}, "t"))
    assert svg.count("<circle") == 1 + 3


def test_nothing_is_drawn_without_points():
    assert str(rating_history({}, "t")) == "" and str(rating_history({"bura": []}, "t")) == ""


def test_the_score_progression_names_its_sides_and_which_way_is_better():
    penalty = str(score_progression([[0.0, 4.0, 12.0], [2.0, 2.0, 2.0]], ["greedy-bura@v1", "random-bura@v1"],
                                    "Match 1", points_kind="penalty"))
    assert re.findall(r'class="legend">([^<]*)<', penalty) == ["greedy-bura@v1: 12", "random-bura@v1: 2"]
    assert "penalty points · lower is better" in penalty and "higher" not in penalty
    assert re.findall(r'class="deal-tick"[^>]*>([^<]*)<', penalty) == ["start", "1", "2", "3"]
    assert "12.0" not in penalty
    points = str(score_progression([[480], [515]], ["a", "b"], "Match 2", points_kind="score"))
    assert "points · higher is better" in points and "lower" not in points
    assert str(score_progression([], [], "x")) == ""


# ---------------------------------------------------------------------------------------------- the bot page

@pytest.fixture
def snapshots(house_bots):
    """greedy-bura rated on three of its presets (bura with more refits than the page draws), none on two."""
    from bots.models import Bot
    from ratings.models import RatingSnapshot, Refit

    bot = Bot.objects.get(name="greedy-bura")
    rows = []
    for preset, count in (("bura", 503), ("burkozel", 2), ("echki-6", 1)):
        refit = Refit.objects.create(preset=preset, matches=1, rated=2, seconds=0.1)
        rows += [RatingSnapshot(refit=refit, version=bot.current_version, bot=bot, preset=preset,
                                at=T0 + timedelta(minutes=10 * i), rating=1500 + i, low=1400 + i, high=1600 + i,
                                games=i + 1) for i in range(count)]
    RatingSnapshot.objects.bulk_create(rows)
    return bot


def test_the_bot_page_draws_one_chart_from_one_query(client, snapshots):
    with CaptureQueriesContext(connection) as queries:
        html = client.get("/bots/greedy-bura/").content.decode()
    read = [q["sql"] for q in queries.captured_queries if "ratings_ratingsnapshot" in q["sql"]]
    assert len(read) == 1, read  # every preset's history at once, not a query per preset
    assert html.count('<svg class="chart rating-history"') == 1 and "<h2>Rating history</h2>" in html
    assert re.findall(r'data-preset="([^"]*)"', html) == ["bura", "burkozel", "echki-6"]
    # bura: the newest 500 of its 503 refits (the last at 1500 + 502), drawn as a line without a dot each
    assert "bura: 2002 ± 100 now, 1503 at the first of 500 refits" in html
    assert re.findall(r'class="legend">([^<]*)<', html)[0] == "bura 2002 ± 100"
    assert "No rated games yet" not in html


def test_the_bot_page_says_no_rated_games_yet(client, house_bots, django_assert_max_num_queries):
    with django_assert_max_num_queries(40):
        html = client.get("/bots/greedy-bura/").content.decode()
    assert "<h2>Rating history</h2>" in html and 'id="rating-history-empty"' in html
    assert "No rated games yet" in html and "<svg" not in html
