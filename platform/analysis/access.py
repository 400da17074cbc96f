"""Who may analyse, and see the analyses of, which seats of a match.

An analysis shows the analysed seat's hand at every decision (the played and the suggested cards), so it is
exactly as secret as the replay: nothing while any match of the deal is still to end (``matches.access``),
a validation match's seats to their bot's owner only, and every seat of any other match to everyone once
the deal is out. The rules are those of the replay (web/replay_views.py ``frames_view``), asked in one place.
"""

from __future__ import annotations

from arena.bots.search import SAMPLERS
from bots.access import can_see_private
from config.errors import ActionError
from matches.access import WHY, deal_embargo
from matches.models import Match, Seat


class NotAnalysable(ActionError):
    """404: the match or the seat is not there for this user (the pages' 404, with what was wrong)."""

    status = 404
    code = "not_found"


class Embargoed(ActionError):
    status = 404
    code = "embargoed"


def visible_seats(user, match: Match, seats: list[Seat]) -> list[int]:
    """The seats of ``match`` whose analysis ``user`` may ask for and read, once the match is analysable
    (``check_analysable``): a validation match's are its owner's, any other match's are everyone's."""
    if match.kind == Match.Kind.VALIDATION:
        return [s.seat for s in seats if can_see_private(user, s.version.bot)]
    return [s.seat for s in seats]


def check_analysable(user, match: Match | None, seats: list[Seat]) -> list[int]:
    """The seats ``user`` may analyse in ``match``; NotAnalysable or Embargoed (naming why) when none."""
    if match is None:
        raise NotAnalysable("no such match")
    allowed = visible_seats(user, match, seats)
    if not allowed:  # a validation match of someone else's bot: as if it were not there
        raise NotAnalysable(f"match {match.pk} has no seat of yours to analyse: a validation match is its "
                            f"bot's owner's alone")
    if match.status != Match.Status.FINISHED or not match.replay_sha256:
        raise NotAnalysable(f"match {match.pk} is {match.status} and has no replay: only a finished match can "
                            f"be analysed")
    if match.game not in SAMPLERS:
        raise NotAnalysable(f"{match.game} has no search to analyse with")
    embargo = deal_embargo(match)
    if embargo is not None:
        raise Embargoed(f"the analysis of match {match.pk} is {embargo}: {WHY}")
    return allowed
