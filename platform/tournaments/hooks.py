"""The tournaments' steps of the finish pipeline (settings.MATCH_HOOKS)."""

from __future__ import annotations

from matches.hooks import MatchHook
from matches.models import Match, Seat
from tournaments import lifecycle, recording, versiontests


class RecordTournamentMatch(MatchHook):
    """A tournament match counts in its pairing or table; one that could not be played is played again."""

    kinds = frozenset({Match.Kind.TOURNAMENT})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        recording.record_tournament_match(match, seats)

    def failed(self, match: Match) -> None:
        recording.replace_failed_match(match)


class RecordVersionTestGame(MatchHook):
    """A version test's game (an unranked challenge of a test set) counts in its SPRT once its pair is in."""

    kinds = frozenset({Match.Kind.CHALLENGE})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        versiontests.record_test_match(match, seats)

    def failed(self, match: Match) -> None:
        versiontests.replace_failed_match(match)


class MakeRoomForTournaments(MatchHook):
    """Any other match freed a worker: it may be a running tournament's turn to release a held match. Last
    but one: tournament rows come after every other row in the lock order (docs/matches.md)."""

    kinds = frozenset({Match.Kind.VALIDATION, Match.Kind.LADDER, Match.Kind.CHALLENGE, Match.Kind.CASUAL})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        lifecycle.make_room(match, seats)

    def failed(self, match: Match) -> None:
        lifecycle.make_room(match)
