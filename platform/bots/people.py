"""A person's seat: the bot row that stands for a user at a live table (one per user and game).

Every seat of a match is a bot version, so a person is one too: results, replays and seats need nothing
new. It is never on the ladder (``Bot.on_ladder``), never listed with the bots, and its page is its
owner's profile.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from bots.models import PERSON_RUNTIME, Bot, BotVersion


def person_name(user) -> str:
    return f"@{user.username}"[:40]


def person_version(user, game: str) -> BotVersion:
    """The user's seat for ``game``, made on first use (idempotent under concurrent calls)."""
    bot = Bot.objects.filter(owner=user, game=game, kind=Bot.Kind.PERSON).select_related("current_version").first()
    if bot is not None and bot.current_version is not None and bot.current_version.runtime != PERSON_RUNTIME:
        raise ValueError(f"{bot.name}'s current version is not a person's seat")  # uploads are refused to it
    if bot is None:
        try:
            with transaction.atomic():
                bot = Bot.objects.create(owner=user, game=game, kind=Bot.Kind.PERSON, name=person_name(user),
                                         active=False, description=f"{user.username} at the table")
        except IntegrityError:  # a concurrent request made it first
            bot = Bot.objects.get(owner=user, game=game, kind=Bot.Kind.PERSON)
    if bot.current_version is None:
        version, _ = BotVersion.objects.get_or_create(
            bot=bot, number=1, defaults={"runtime": PERSON_RUNTIME, "entry": [], "status": BotVersion.Status.READY,
                                         "validated_at": timezone.now()})
        Bot.objects.filter(pk=bot.pk).update(current_version=version)
        bot.current_version = version
    return bot.current_version
