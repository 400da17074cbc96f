"""The server-drawn charts: time ticks spaced by the span shown, and the score progression naming its sides
and saying which way is better."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta

import pytest

from web.charts import nice_ticks, score_progression, time_ticks

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
