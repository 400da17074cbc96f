"""Casual matches: a person at the table against a bot (docs/matches.md, "Live tables").

A casual match is a match like any other: queued, claimed by a worker under a lease, played by the referee,
recorded in one transaction. Its person's seat is a bot version of kind "person" (bots.people) played over
the live relay (matches.relay) with a person's clock; nothing in the referee or the rules knows. What differs
is the end of a failed attempt: a person's moves cannot be replayed from the seed, so a casual match whose
worker died or broke is *aborted* (never rated) instead of queued again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from accounts.limits import Limit, RateLimited, spend
from accounts.models import User
from arena.games.seating import layout
from arena.referee import TimeControl
from bots.models import Bot, BotVersion
from bots.people import person_version
from bots.remote import is_connected
from config.errors import ActionError
from matches.actions import create_match
from matches.models import Match, Seat


class CasualError(ActionError):
    """A casual match that cannot be started; ``field`` names the input at fault."""


class AlreadySeated(CasualError):
    """The person is at a table already (one live match per person): ``match`` is that table's match, so
    whoever refuses the second one can take the person back to the first."""

    def __init__(self, match: Match):
        super().__init__(f"You are already at a table (match {match.pk}): finish it or let it time out first, "
                         f"one live match per person.", None)
        self.match = match


def person_clock() -> TimeControl:
    return TimeControl(startup_ms=settings.PERSON_STARTUP_SECONDS * 1000, move_ms=settings.PERSON_MOVE_SECONDS * 1000,
                       bank_ms=settings.PERSON_BANK_SECONDS * 1000)


def person_clock_words() -> str:
    clock = person_clock()
    bank = clock.bank_ms // 1000
    return (f"{clock.move_ms // 1000} s a move, plus a bank of {bank // 60} min {bank % 60:02d} s for the whole "
            f"match; {clock.startup_ms // 1000} s to sit down")


def casual_limit() -> Limit:
    return Limit("casual", settings.CASUAL_PER_HOUR, 3600, "casual matches")


def live_match_of(user) -> Match | None:
    """The person's match that is waiting or being played, if any (one at a time)."""
    return (Match.objects.filter(kind=Match.Kind.CASUAL, status__in=(Match.Status.QUEUED, Match.Status.RUNNING),
                                 seats__version__bot__owner=user, seats__version__bot__kind=Bot.Kind.PERSON)
            .order_by("-created").first())


def ready_bot(bot: Bot | None, field: str, game: str) -> BotVersion:
    if bot is None or bot.is_person:
        raise CasualError("no such bot", field)
    if bot.game != game:
        raise CasualError(f"{bot.name} plays {bot.game}, not {game}", field)
    version = bot.current_version
    if version is None or version.status != BotVersion.Status.READY or not bot.active or bot.suspended_reason:
        raise CasualError(f"{bot.name} has no validated version to play, or is inactive or suspended", field)
    if version.is_remote and not is_connected(version):
        raise CasualError(f"{bot.name} is a remote bot and is not connected now: it plays only while its owner's "
                          f"arena connect is running", field)
    return version


@dataclass(frozen=True)
class Seating:
    versions: list[BotVersion]
    person_seats: list[int]


def seating(preset: str, person: BotVersion, opponent: BotVersion, partner: BotVersion | None,
            side: int) -> Seating:
    """The person takes one seat of side ``side``; a partner bot fills the rest of the person's side, the
    opponent bot every other seat."""
    seats, teams = layout(preset, {})
    mine = teams[side]
    versions: list[BotVersion] = []
    for s in range(seats):
        if s == mine[0]:
            versions.append(person)
        elif s in mine:
            versions.append(partner or opponent)
        else:
            versions.append(opponent)
    return Seating(versions, [mine[0]])


def start_casual(user, opponent: Bot, preset: str | None, partner: Bot | None = None) -> Match:
    """Queue a casual match of ``user`` against ``opponent`` (and with ``partner`` in a team preset)."""
    if not user.is_authenticated:
        raise CasualError("log in to sit at a table", None)
    game = opponent.game
    chosen = preset or opponent.plays()[0]
    if chosen not in opponent.plays():
        raise CasualError(f"{opponent.name} does not play {chosen}; it plays {', '.join(opponent.plays())}", "preset")
    versus = ready_bot(opponent, "opponent", game)
    _, teams = layout(chosen, {})
    with_partner = len(teams[0]) > 1
    if partner is not None and not with_partner:
        raise CasualError(f"{chosen} has no partners: every seat plays for itself", "partner")
    beside = ready_bot(partner, "partner", game) if partner is not None else None
    if beside is not None and chosen not in partner.plays():
        raise CasualError(f"{partner.name} does not play {chosen}", "partner")
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one start at a time per person
        current = live_match_of(user)
        if current is not None:
            raise AlreadySeated(current)
        active = Match.objects.filter(kind=Match.Kind.CASUAL,
                                      status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).count()
        if active >= settings.CASUAL_MAX_ACTIVE:
            raise CasualError(f"all {settings.CASUAL_MAX_ACTIVE} tables of this site are taken; try again in a few "
                              f"minutes", None)
        try:
            spend(casual_limit(), user.pk)
        except RateLimited as err:
            raise CasualError(f"too many casual matches: {err}", None) from None
        # The side is drawn on its own: taken from the deal's seed, the seat would show a bit of it.
        side = secrets.randbelow(len(teams))
        plan = seating(chosen, person_version(user, game), versus, beside, side)
        return create_match(kind=Match.Kind.CASUAL, preset=chosen, seat_versions=plan.versions, ranked=False,
                            requested_by=user)


def person_seats(match: Match) -> list[Seat]:
    return [s for s in match.seats.all() if s.version.bot.kind == Bot.Kind.PERSON]


def rematch(user, match: Match) -> Match:
    """The same table again: the same bots in the same roles, a new deal."""
    seats = list(match.seats.select_related("version__bot"))
    people = [s for s in seats if s.version.bot.kind == Bot.Kind.PERSON]
    if not people or people[0].version.bot.owner_id != user.pk:
        raise CasualError("no such match of yours", None)
    mine = people[0].seat
    _, teams = layout(match.preset, match.overrides)
    my_team = next(team for team in teams if mine in team)
    opponent = next(s.version.bot for s in seats if s.seat not in my_team)
    partner = next((s.version.bot for s in seats if s.seat in my_team and s.seat != mine), None)
    return start_casual(user, opponent, match.preset, partner if partner != opponent else None)
