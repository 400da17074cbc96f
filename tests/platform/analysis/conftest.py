"""A finished Bura deal between alice's bot (the built-in random bot's code, so it plays in-process) and the
house greedy bot, at the small budgets the tests analyse with."""

from __future__ import annotations

import pytest

from bots.actions import house_version
from bots.models import BotVersion
from matches import actions
from matches.models import Match

BUDGET = 3  # playouts per candidate: the marks are noise, the flow is what is tested
PAR_ITERATIONS = 3


@pytest.fixture(autouse=True)
def _small(settings, monkeypatch):
    settings.ANALYSIS_BUDGET = BUDGET
    settings.ANALYSIS_PAR_ITERATIONS = PAR_ITERATIONS
    settings.ANALYSES_PER_HOUR = 5
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # played here, in-process


@pytest.fixture
def mine(alice, bura_bot) -> BotVersion:
    version = BotVersion.objects.create(bot=bura_bot, number=1, builtin="random", status="ready")
    bura_bot.current_version = version
    bura_bot.save(update_fields=["current_version"])
    return version


def a_deal(mine: BotVersion, kind: str = "ladder") -> list[Match]:
    """Both rotations of one deal, queued: alice's bot in seat 0 of the first."""
    return actions.create_duplicate_set(kind=kind, preset="bura", versions=[mine, house_version("bura", "greedy")],
                                        ranked=kind == "ladder", overrides={"match": "deals:1"})


def play(match: Match) -> Match:
    from play.tasks import play_match

    assert play_match(match.pk) == "finished"
    match.refresh_from_db()
    return match


@pytest.fixture
def finished(mine) -> Match:
    """The first rotation of a deal both of whose rotations have ended (out of embargo)."""
    first, second = a_deal(mine)
    play(second)
    return play(first)
