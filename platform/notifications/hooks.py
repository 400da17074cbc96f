"""The notifications' step of the finish pipeline (settings.MATCH_HOOKS): after the steps that decide a
version's status and a bot's suspension, before the held matches are released. It locks nothing and writes
nothing in the match's transaction: what it notices is recorded once that transaction commits."""

from __future__ import annotations

import functools

from django.db import transaction

from matches.hooks import MatchHook
from matches.models import Match, Seat
from notifications import events


class NotifyOwners(MatchHook):
    kinds = frozenset({Match.Kind.VALIDATION, Match.Kind.LADDER, Match.Kind.CHALLENGE})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        if match.kind == Match.Kind.VALIDATION:
            events.version_result(match.validates_id)
        elif match.kind == Match.Kind.LADDER:
            events.crash_streaks(match, seats)
        else:
            self._challenge(match)

    def failed(self, match: Match) -> None:
        if match.kind == Match.Kind.VALIDATION:
            events.version_result(match.validates_id)
        elif match.kind == Match.Kind.CHALLENGE:
            self._challenge(match)

    @staticmethod
    def _challenge(match: Match) -> None:
        # After the commit: two workers finishing a challenge's last two matches at once each see the other's
        # match still running inside their own transactions; after both commits, the later one sees both ended.
        transaction.on_commit(functools.partial(events.challenge_played, str(match.duplicate_set)))
