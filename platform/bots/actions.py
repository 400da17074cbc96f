"""Bots and versions: ``check_*`` validates, ``do_*`` writes (called by the API, the pages and commands)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.locks import lock_account
from accounts.models import SYSTEM_USERNAME
from arena.bots import bots_for
from arena.games import GAME_MODULES
from bots import blobs
from bots.limits import check_bot_cap, check_pending_cap
from bots.models import Bot, BotVersion, name_problem, presets_of
from bots.signals import current_version_changed
from bots.upload import CheckedUpload
from config.errors import ActionError


class BotError(ActionError):
    """A request about a bot that cannot be done; ``field`` names the input at fault (or None)."""


RESERVED_NAMES = {"new"}  # words the site's own addresses use under /bots/


def check_name(name: str, exclude: Bot | None = None) -> str:
    problem = name_problem(name)
    if problem is not None:
        raise BotError(f"invalid bot name {str(name)[:60]!r}: {problem}", "name")
    if name.lower() in RESERVED_NAMES:
        raise BotError(f"the name {name!r} is reserved by the site; choose another", "name")
    clash = Bot.objects.filter(name__iexact=name)
    if exclude is not None:
        clash = clash.exclude(pk=exclude.pk)
    if clash.exists():
        raise BotError(f"the name {name!r} is taken", "name")
    return name


def check_game(game: str) -> str:
    if game not in GAME_MODULES:
        raise BotError(f"unknown game {game!r}; games: {', '.join(GAME_MODULES)}", "game")
    return game


def check_presets(game: str, presets: list[str]) -> list[str]:
    allowed = presets_of(game)
    wrong = [p for p in presets if p not in allowed]
    if wrong:
        raise BotError(f"{', '.join(map(repr, wrong))} not a preset of {game}; its presets: {', '.join(allowed)}",
                       "presets")
    return list(dict.fromkeys(presets))


def do_create_bot(owner, *, game: str, name: str, description: str = "", presets: list[str] | None = None) -> Bot:
    check_game(game)
    check_name(name)
    chosen = check_presets(game, presets or [])
    try:
        with transaction.atomic():
            check_bot_cap(owner)  # inside: it locks the owner's row, so concurrent creations count in turn
            return Bot.objects.create(owner=owner, game=game, name=name, description=description, presets=chosen)
    except IntegrityError:  # a concurrent request took the name between the check and the insert
        raise BotError(f"the name {name!r} is taken", "name") from None


def do_update_bot(bot: Bot, **changes) -> Bot:
    if "name" in changes:
        bot.name = check_name(changes["name"], exclude=bot)
    if "description" in changes:
        bot.description = changes["description"]
    if "presets" in changes:
        bot.presets = check_presets(bot.game, changes["presets"] or [])
    if "active" in changes:
        bot.active = bool(changes["active"])
    bot.save()
    return bot


def check_new_version(bot: Bot, upload: CheckedUpload) -> None:
    """Before storing anything: can this bot take this file as a new version?"""
    if bot.is_house:
        raise BotError("house bots are built in and take no uploads")
    if bot.is_person:
        raise BotError("a person's seat at the tables is not a bot and takes no uploads")
    current = bot.current_version
    if current is not None and current.sha256 == upload.sha256:
        raise BotError(f"this file is the current version (v{current.number}) already", "file")
    check_pending_cap(bot.owner)


def store_file(upload: CheckedUpload) -> None:
    """By content: idempotent, and never deleting an older version's file. Before the transaction that adds
    the version, so no lock is held while the bytes are written."""
    blobs.put("bots", upload.data)


def add_version(bot: Bot, upload: CheckedUpload) -> BotVersion:
    """The next version of the bot, pending, inside the caller's transaction (which also queues its validation:
    matches.validation.do_upload_version). Its file is stored already (``store_file``)."""
    with transaction.atomic():
        check_pending_cap(bot.owner)  # again, with the owner's row locked: concurrent uploads count in turn
        # The owner's row is the only lock (first in the lock order, docs/matches.md; staff skip the cap's):
        # it numbers one owner's versions in turn. No bot row lock: a validation result updates that row.
        lock_account(bot.owner_id)
        number = (bot.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
        return BotVersion.objects.create(bot=bot, number=number, sha256=upload.sha256, size=upload.size,
                                         filename=upload.filename, entry=upload.entry, runtime=upload.runtime,
                                         language=upload.language)


def make_current(version: BotVersion) -> None:
    """The version becomes its bot's current one (inside the caller's transaction); the apps above follow."""
    Bot.objects.filter(pk=version.bot_id).update(current_version=version, updated=timezone.now())
    current_version_changed.send(sender=Bot, bot_id=version.bot_id, version_id=version.pk)


def do_retire_version(version: BotVersion) -> BotVersion:
    if version.bot.current_version_id == version.pk:
        raise BotError("the current version cannot be retired; upload a new one or deactivate the bot")
    version.retired = True
    version.save(update_fields=["retired"])
    return version


# ---- house bots --------------------------------------------------------------------------------------------

def system_user():
    user, created = get_user_model().objects.get_or_create(username=SYSTEM_USERNAME,
                                                           defaults={"email": "", "is_active": True})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def house_bot_name(game: str, builtin: str) -> str:
    return f"{builtin}-{game}"


def ensure_house_bots() -> list[Bot]:
    """Register every built-in bot of every game as a ready house bot (idempotent)."""
    owner = system_user()
    made = []
    for game in GAME_MODULES:
        for builtin in bots_for(game):
            name = house_bot_name(game, builtin)
            with transaction.atomic():
                bot, _ = Bot.objects.get_or_create(
                    name=name, defaults={"owner": owner, "game": game,
                                         "description": f"Kozyr's built-in {builtin} bot for {game}."})
                version = bot.versions.filter(builtin=builtin).first()
                if version is None:
                    version = BotVersion.objects.create(bot=bot, number=1, builtin=builtin, entry=[],
                                                        runtime="builtin", status=BotVersion.Status.READY,
                                                        validated_at=timezone.now())
                if bot.current_version_id != version.pk:
                    bot.current_version = version
                    bot.save(update_fields=["current_version"])
                    current_version_changed.send(sender=Bot, bot_id=bot.pk, version_id=version.pk)
            made.append(bot)
    return made


def house_version(game: str, builtin: str) -> BotVersion:
    bot = Bot.objects.filter(name=house_bot_name(game, builtin)).select_related("current_version").first()
    if bot is None or bot.current_version is None:
        ensure_house_bots()
        bot = Bot.objects.select_related("current_version").get(name=house_bot_name(game, builtin))
    if bot.current_version is None:
        raise LookupError(f"the house bot {bot.name} has no current version")
    return bot.current_version
