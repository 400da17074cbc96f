"""A user's time control passes one check whichever way it comes in (every field bounded, the error naming the
field and its range), and no match under an accepted control outlives its worker's task time limit."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from arena.games.seating import layout
from arena.referee import MAX_DECISIONS, TimeControl
from arena.runner import SANDBOX_WALL_MARGIN_S, sandbox_limits_for
from bots.actions import house_version
from bots.models import BotVersion
from matches import actions
from matches.models import Match
from matches.time_controls import (
    BOUNDS,
    WORKER_OVERHEAD_S,
    TimeControlError,
    check_time_control,
    match_ceiling_seconds,
    worst_case_seconds,
)
from play.match import job_for
from play.tasks import DATABASE_RETRY_SECONDS, play_match
from tournaments.models import Tournament

BOTS = Path(__file__).resolve().parents[2] / "data" / "bots"
LONGEST = TimeControl(**{name: high for name, (_, high) in BOUNDS.items()})
OUT_OF_RANGE = [({"move_ms": 3_600_000_000}, "move_ms", "from 50 to 60,000 ms"),
                ({"move_ms": 49}, "move_ms", "from 50 to 60,000 ms"),
                ({"startup_ms": 60_001}, "startup_ms", "from 1,000 to 60,000 ms"),
                ({"startup_ms": 0}, "startup_ms", "from 1,000 to 60,000 ms"),
                ({"bank_ms": -1}, "bank_ms", "from 0 to 600,000 ms"),
                ({"bank_ms": 10**12}, "bank_ms", "from 0 to 600,000 ms"),
                ({"move_ms": True}, "move_ms", "whole number of milliseconds"),
                ({"moves_ms": 1000}, "moves_ms", "unknown field")]


def tournament(**change) -> dict:
    start = (timezone.now() + timedelta(hours=1)).isoformat()
    return {"name": "Clocks", "preset": "bura", "format": "round_robin", "starts_at": start, **change}


@pytest.mark.parametrize(("control", "field", "words"), OUT_OF_RANGE)
def test_it_refuses_an_out_of_range_time_control_from_the_api_naming_the_field(alice, as_user, house_bots,
                                                                             control, field, words):
    answer = as_user(alice).post("/api/v1/tournaments/", tournament(time_control=control), format="json")
    assert answer.status_code == 400, answer.json()
    error = answer.json()["error"]
    assert f"time_control.{field}" in error["fields"], error
    assert field in error["message"] and words in error["message"], error
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("move_ms", [3_600_000_000, 60_001, 49])
def test_it_refuses_an_out_of_range_move_time_on_the_tournament_page_naming_the_field(client, alice, move_ms):
    client.force_login(alice)
    answer = client.post("/tournaments/new/", {"name": "Form Cup", "preset": "bura", "format": "round_robin",
                                               "deals": 1, "move_ms": move_ms, "entry": "open", "max_entries": 8,
                                               "starts_at": "2099-01-01 10:00"})
    assert answer.status_code == 200
    assert answer.context["form"].errors["move_ms"] == [f"move_ms must be from 50 to 60,000 ms (0.05–60 s), "
                                                        f"got {move_ms:,}"]
    assert not Tournament.objects.exists()


def test_it_refuses_it_in_the_action_every_way_in_shares(alice, house_bots):
    from tournaments.actions import do_create_tournament
    from tournaments.lifecycle import TournamentError

    with pytest.raises(TournamentError, match="move_ms must be from 50 to 60,000 ms") as caught:
        do_create_tournament(alice, name="Direct", preset="bura", format="round_robin", rounds=None, deals=1,
                             time_control={"move_ms": 3_600_000_000}, entry="open", max_entries=8,
                             starts_at=timezone.now() + timedelta(hours=1), entry_deadline=None)
    assert caught.value.field == "time_control"


def test_it_accepts_the_bounds_themselves_and_fills_in_left_out_fields(alice, as_user, house_bots):
    answer = as_user(alice).post("/api/v1/tournaments/", tournament(time_control=LONGEST.to_dict()), format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["time_control"] == LONGEST.to_dict()
    shortest = {name: low for name, (low, _) in BOUNDS.items()}
    assert check_time_control(shortest).to_dict() == shortest
    assert check_time_control({"move_ms": 250}) == TimeControl(move_ms=250)
    assert check_time_control(None) == TimeControl()
    with pytest.raises(TimeControlError, match="an object"):
        check_time_control([1000])  # type: ignore[arg-type]


def test_the_longest_accepted_control_fits_within_the_workers_time_limits_on_every_preset():
    from arena.games import all_presets

    soft, hard = django_settings.CELERY_TASK_SOFT_TIME_LIMIT, django_settings.CELERY_TASK_TIME_LIMIT
    visibility = django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    # The time control alone would allow far more: every decision at a full minute.
    assert LONGEST.startup_ms / 1000 + MAX_DECISIONS * LONGEST.move_ms / 1000 > 100 * soft
    # The task's own work around the ceiling: the sandboxes' margin, the result's database retries, the rest.
    assert WORKER_OVERHEAD_S >= SANDBOX_WALL_MARGIN_S + DATABASE_RETRY_SECONDS + 60
    for preset in all_presets():
        seats, _ = layout(preset, {})
        ceiling = match_ceiling_seconds(LONGEST, seats)
        assert worst_case_seconds(LONGEST, seats) <= soft < hard < visibility, preset
        # Each seat's share of the ceiling still holds a whole decision (move time and bank), so a bot that
        # stalls a long match is blamed for it (timeout match-time), not let off with an unscored match.
        assert (ceiling - LONGEST.startup_ms / 1000) / seats >= (LONGEST.move_ms + LONGEST.bank_ms) / 1000, preset


def test_a_match_under_the_longest_control_is_given_that_ceiling(house_bots):
    greedy, rand = house_version("bura", "greedy"), house_version("bura", "random")
    match = actions.create_match(kind="tournament", preset="bura", seat_versions=[greedy, rand],
                                 time_control=LONGEST)
    job = job_for(match)
    assert job.wall_seconds == match_ceiling_seconds(LONGEST, 2) <= django_settings.CELERY_TASK_SOFT_TIME_LIMIT \
        - WORKER_OVERHEAD_S
    assert sandbox_limits_for(job, 2)["wall_seconds"] == job.wall_seconds + SANDBOX_WALL_MARGIN_S
    # Stored before this check existed, a control beyond the bounds is still stopped in time.
    Match.objects.filter(pk=match.pk).update(time_control={"startup_ms": 10_000, "move_ms": 3_600_000_000,
                                                           "bank_ms": 0})
    assert job_for(Match.objects.get(pk=match.pk)).wall_seconds == job.wall_seconds


def slow_version(alice, delay: float) -> BotVersion:
    from bots.actions import do_create_bot
    from bots.upload import check_upload
    from matches.validation import do_upload_version
    from tests.platform.conftest import zip_of

    bot = do_create_bot(alice, game="bura", name="slow-clock")
    data = zip_of({"main.py": (BOTS / "first_legal.py").read_bytes(), "delay": str(delay).encode()})
    version = do_upload_version(bot, check_upload("slow.zip", data))
    BotVersion.objects.filter(pk=version.pk).update(status="ready")  # its validation is not under test here
    Match.objects.filter(pk=version.validation_match_id).update(status="cancelled")
    return BotVersion.objects.get(pk=version.pk)


def test_the_worker_stops_a_match_at_its_ceiling_before_the_task_time_limit(alice, house_bots, settings):
    ceiling = 2.0
    settings.CELERY_TASK_SOFT_TIME_LIMIT = WORKER_OVERHEAD_S + ceiling  # the ceiling follows the worker's limit
    slow = slow_version(alice, delay=0.4)  # about 6 s a deal: three deals are far past the ceiling
    match = actions.create_match(kind="challenge", preset="bura", overrides={"match": "deals:3", "goal": "points"},
                                 seat_versions=[slow, house_version("bura", "random")])
    started = time.monotonic()
    assert play_match(match.pk) == "infrastructure"  # stopped at the ceiling, nobody to blame: replayed
    elapsed = time.monotonic() - started
    match.refresh_from_db()
    assert match.status == "queued" and "wall-ceiling" in match.failure, match.failure
    assert elapsed < ceiling + 5, elapsed
