"""Who may see what of a match."""

from __future__ import annotations

from bots.access import can_see_private
from matches.models import Match, Seat


def detail_visible(user, seat: Seat) -> bool:
    """A validation match's verdict detail is its owner's business (issue: shown to its owner only)."""
    return seat.match.kind != Match.Kind.VALIDATION or can_see_private(user, seat.version.bot)
