"""Bots and versions: ``check_*`` validates, ``do_*`` writes (called by the API, the pages and commands)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.locks import lock_account
from accounts.models import SYSTEM_USERNAME
from arena.bots import bots_for
from arena.games import GAME_MODULES
from bots import blobs
from bots.limits import check_bot_cap, check_pending_cap, check_upload_storage
from bots.models import Bot, BotVersion, name_problem, presets_of
from bots.signals import current_version_changed, ladder_standing_changed
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
    if bot.deleted is not None:
        raise BotError(f"{bot.name} was deleted on {bot.deleted:%Y-%m-%d}: it takes no changes")
    if "name" in changes:
        bot.name = check_name(changes["name"], exclude=bot)
    if "description" in changes:
        bot.description = changes["description"]
    if "presets" in changes:
        bot.presets = check_presets(bot.game, changes["presets"] or [])
    standing = "active" in changes and bool(changes["active"]) != bot.active
    if "active" in changes:
        bot.active = bool(changes["active"])
    bot.save()
    if standing:
        ladder_standing_changed.send(sender=Bot, bot_ids=[bot.pk])
    return bot


def check_delete_bot(bot: Bot) -> None:
    if bot.is_house:
        raise BotError("house bots are built in and cannot be deleted")
    if bot.is_person:
        raise BotError("a person's seat at the tables is not a bot and cannot be deleted")
    if bot.deleted is not None:
        raise BotError(f"{bot.name} was deleted already, on {bot.deleted:%Y-%m-%d}")


def do_delete_bot(bot: Bot) -> Bot:
    """Delete a bot as a tombstone (docs/matches.md, "Deleting a bot"): it leaves the ladder, every form and list
    at once, its versions are retired and its queued ladder, challenge and validation matches cancelled
    (ladder.withdrawal, through ladder_standing_changed); its matches, replays and rating history stay, since other
    bots' results were played against it, and so does its name, so nobody can pass for it in those replays."""
    check_delete_bot(bot)
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        check_delete_bot(locked)  # a second request that raced this one is refused, not applied twice
        bot.deleted, bot.active = timezone.now(), False
        bot.save(update_fields=["deleted", "active", "updated"])
        for version in bot.versions.filter(retired=False):
            version.retired = True
            version.save(update_fields=["retired"])
            forget_build(version)
        ladder_standing_changed.send(sender=Bot, bot_ids=[bot.pk])
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
    check_upload_storage(bot.owner, upload.sha256, upload.size)


def store_file(upload: CheckedUpload) -> None:
    """By content: idempotent, and never deleting an older version's file. Before the transaction that adds
    the version, so no lock is held while the bytes are written."""
    blobs.put("bots", upload.data)


def add_version(bot: Bot, upload: CheckedUpload) -> BotVersion:
    """The next version of the bot, pending, inside the caller's transaction (which also queues its validation:
    matches.validation.do_upload_version). Its file is stored already (``store_file``)."""
    with transaction.atomic():
        check_pending_cap(bot.owner)  # again, with the owner's row locked: concurrent uploads count in turn
        check_upload_storage(bot.owner, upload.sha256, upload.size)
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
    """Never scheduled again, and its build no longer kept (a match already queued for it compiles it again)."""
    if version.bot.current_version_id == version.pk:
        raise BotError("the current version cannot be retired; upload a new one or deactivate the bot")
    with transaction.atomic():
        version.retired = True
        version.save(update_fields=["retired"])
        forget_build(version)
    return version


def forget_build(version: BotVersion) -> None:
    """The version keeps no build any more (rejected, retired, its validation in error): its row stops naming
    one, so its owner's storage stops counting it, and the blob is deleted once no version names it."""
    sha256 = version.build_sha256
    if not sha256:
        return
    BotVersion.objects.filter(pk=version.pk, build_sha256=sha256).update(build_sha256="", build_size=0)
    version.build_sha256, version.build_size = "", 0
    release_build(sha256)


def release_build(sha256: str) -> None:
    """Delete a build's blob if no version names it, once the caller's transaction commits (a rolled-back
    rejection keeps it). Builds are stored by content, so versions with the same sources may share one: it
    goes only with the last. A worker storing the same bytes for another version at this very moment may find
    them gone later; it then compiles the version again (play.match.build_version: a missing build is none)."""
    if not sha256:
        return

    def delete() -> None:
        if not BotVersion.objects.filter(build_sha256=sha256).exists():
            blobs.delete("builds", sha256)

    transaction.on_commit(delete)


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


def is_search_bot(builtin: str) -> bool:
    return builtin.startswith("search-")


def ensure_house_bots() -> list[Bot]:
    """Register every built-in bot of every game as a ready house bot (idempotent). The search bots are on the
    ladder as ``settings.HOUSE_SEARCH_BOTS`` says, each time this runs (``manage.py house_bots``, start-up)."""
    owner = system_user()
    wanted = [(game, builtin, house_bot_name(game, builtin)) for game in GAME_MODULES for builtin in bots_for(game)]
    names = [name for _, _, name in wanted]
    # A few queries whatever the number of bots (every start-up and every test of the site runs this): what is
    # missing is inserted in bulk, and an insert that a concurrent run made first is skipped (ON CONFLICT DO
    # NOTHING), so two processes starting at once both end with the same rows.
    with transaction.atomic():
        bots = {bot.name: bot for bot in Bot.objects.filter(name__in=names)}
        missing = [Bot(name=name, owner=owner, game=game, description=f"Kozyr's built-in {builtin} bot for {game}.")
                   for game, builtin, name in wanted if name not in bots]
        if missing:
            Bot.objects.bulk_create(missing, ignore_conflicts=True)
            bots = {bot.name: bot for bot in Bot.objects.filter(name__in=names)}
        versions = _house_versions(bots, wanted)
        absent = [BotVersion(bot=bots[name], number=1, builtin=builtin, entry=[], runtime="builtin",
                             status=BotVersion.Status.READY, validated_at=timezone.now())
                  for _, builtin, name in wanted if (bots[name].pk, builtin) not in versions]
        if absent:
            BotVersion.objects.bulk_create(absent, ignore_conflicts=True)
            versions = _house_versions(bots, wanted)
        moved = []
        for _, builtin, name in wanted:
            bot, version = bots[name], versions[bots[name].pk, builtin]
            if is_search_bot(builtin) and bot.active != settings.HOUSE_SEARCH_BOTS:
                do_update_bot(bot, active=settings.HOUSE_SEARCH_BOTS)
            if bot.current_version_id != version.pk:
                bot.current_version = version
                moved.append(bot)
        Bot.objects.bulk_update(moved, ["current_version"])
        for bot in moved:
            current_version_changed.send(sender=Bot, bot_id=bot.pk, version_id=bot.current_version_id)
    return [bots[name] for name in names]


def _house_versions(bots: dict[str, Bot], wanted: list[tuple[str, str, str]]) -> dict[tuple[int, str], BotVersion]:
    """(bot id, builtin) -> the house bot's version that runs that builtin (its newest, as ``first()`` orders)."""
    found: dict[tuple[int, str], BotVersion] = {}
    rows = BotVersion.objects.filter(bot__in=list(bots.values()), builtin__in={builtin for _, builtin, _ in wanted})
    for version in rows.order_by("bot", "-number"):
        found.setdefault((version.bot_id, version.builtin), version)
    return found


def house_version(game: str, builtin: str) -> BotVersion:
    bot = Bot.objects.filter(name=house_bot_name(game, builtin)).select_related("current_version").first()
    if bot is None or bot.current_version is None:
        ensure_house_bots()
        bot = Bot.objects.select_related("current_version").get(name=house_bot_name(game, builtin))
    if bot.current_version is None:
        raise LookupError(f"the house bot {bot.name} has no current version")
    return bot.current_version
