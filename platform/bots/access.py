"""One permission function per resource: what a user may see or change of a bot."""

from __future__ import annotations

from django.http import Http404

from bots.models import Bot, BotVersion


def can_see_private(user, bot: Bot) -> bool:
    return bool(user and user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


def access_bot(user, name: str, *, for_change: bool = False) -> Bot:
    """The bot called ``name``; 404 when it does not exist or (for a change) is not the user's."""
    bot = Bot.objects.select_related("owner", "current_version").filter(name__iexact=name).first()
    if bot is None:
        raise Http404("no such bot")
    if for_change and not (user.is_authenticated and user.pk == bot.owner_id):
        raise Http404("no such bot")  # 404, not 403: nobody learns more than the public pages say
    if for_change and bot.is_person:
        raise Http404("no such bot: a person's seat at the tables is not a bot, and takes no changes or uploads")
    if for_change and bot.deleted is not None:
        raise Http404(f"no such bot: {bot.name} was deleted on {bot.deleted:%Y-%m-%d}")
    return bot


def access_version(user, bot: Bot, number: int) -> BotVersion:
    version = bot.versions.filter(number=number).first()
    if version is None:
        raise Http404("no such version")
    return version
