"""Matches played for real by the worker's task, then moved into a month of their own."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bots.actions import house_version
from matches import actions
from matches.models import Match
from play.tasks import play_match

NOVEMBER = datetime(2026, 11, 14, 12, 0, tzinfo=UTC)


@pytest.fixture
def played(house_bots):
    """played(versions, rotations=None, when=NOVEMBER, kind="ladder") -> the duplicate set's matches, the first
    ``rotations`` of them played (all by default), every finished one dated ``when``."""

    def play(versions=None, rotations=None, when=NOVEMBER, kind="ladder", preset="bura"):
        versions = versions or [house_version("bura", "greedy"), house_version("bura", "random")]
        made = actions.create_duplicate_set(kind=kind, preset=preset, versions=versions, ranked=kind == "ladder",
                                            overrides={"match": "deals:1"})
        for match in made[:rotations]:
            assert play_match(match.pk) == "finished"
        Match.objects.filter(pk__in=[m.pk for m in made], status=Match.Status.FINISHED).update(finished=when)
        return [Match.objects.get(pk=m.pk) for m in made]

    return play
