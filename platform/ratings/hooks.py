"""The ratings' step of the finish pipeline (settings.MATCH_HOOKS), and what follows a new current version."""

from __future__ import annotations

from matches.hooks import MatchHook
from matches.models import Match, Seat
from ratings import actions, people


class RecordRankedMatch(MatchHook):
    """A ranked match (of any kind) enters the live ratings and the W/D/L counters, once."""

    def finished(self, match: Match, seats: list[Seat]) -> None:
        actions.record_ranked_match(match, seats)


class RecordPeopleRatings(MatchHook):
    """A casual match moves its person's live rating (never a bot's), once."""

    kinds = frozenset({Match.Kind.CASUAL})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        people.record_casual_match(match, seats)


def follow_current_version(sender, *, bot_id: int, version_id: int | None, **_) -> None:
    """bots.signals.current_version_changed: the bot's ratings' is_current flags follow."""
    actions.sync_current(bot_id, version_id)
