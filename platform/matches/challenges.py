"""Challenges: an unranked duplicate set between a user's bot and any public bot of its game."""

from __future__ import annotations

from arena.games.seating import layout
from bots.models import Bot, BotVersion
from bots.remote import is_connected
from config.errors import ActionError
from matches.actions import create_duplicate_set
from matches.models import Match


class ChallengeError(ActionError):
    """A challenge that cannot be played; ``field`` names the input at fault."""


def check_challenge(mine: Bot, other: Bot, preset: str | None) -> str:
    for bot, field in ((mine, "bot"), (other, "opponent")):
        if bot.is_person:
            raise ChallengeError(f"{bot.name} is a person's seat at the tables, not a bot: sit down at a table "
                                 f"to play", field)
    if mine.pk == other.pk:
        raise ChallengeError("a bot cannot challenge itself", "opponent")
    if mine.game != other.game:
        raise ChallengeError(f"{other.name} plays {other.game}, {mine.name} plays {mine.game}", "opponent")
    for bot, field in ((mine, "bot"), (other, "opponent")):
        version = bot.current_version
        if version is None or version.status != BotVersion.Status.READY:
            raise ChallengeError(f"{bot.name} has no validated version yet", field)
        if not bot.active or bot.suspended_reason:
            raise ChallengeError(f"{bot.name} is inactive or suspended", field)
        if version.is_remote and not is_connected(version):
            raise ChallengeError(f"{bot.name} is a remote bot and is not connected now: it plays only while its "
                                 f"owner's arena connect is running", field)
    chosen = preset or mine.plays()[0]
    if chosen not in mine.plays():
        raise ChallengeError(f"{mine.name} does not play {chosen}; it plays {', '.join(mine.plays())}", "preset")
    _, teams = layout(chosen, {})
    if len(teams) != 2:
        raise ChallengeError(f"{chosen} is a {len(teams)}-sided game; a challenge is between two bots", "preset")
    return chosen


def do_challenge(user, mine: Bot, other: Bot, preset: str | None) -> list[Match]:
    chosen = check_challenge(mine, other, preset)
    return create_duplicate_set(kind=Match.Kind.CHALLENGE, preset=chosen, ranked=False, requested_by=user,
                                versions=[mine.current_version, other.current_version])
