"""Hosting: creating a tournament, joining and leaving it, and the host's controls."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.games import all_presets, resolve
from arena.games.base import RuleOptionError
from arena.games.seating import layout
from bots.models import Bot
from matches.time_controls import TimeControlError, check_time_control
from tournaments.lifecycle import TournamentError, cancel, pause, resume, same_owner_entry, start
from tournaments.models import TABLE_FORMATS, Entry, Tournament

MAX_DEALS = 20


def check_tournament(*, name: str, preset: str, overrides: dict, format: str, rounds: int | None, deals: int,
                     time_control: dict | None, entry: str, max_entries: int, starts_at: datetime,
                     entry_deadline: datetime | None, live_delay_seconds: int | None = None) -> dict:
    if Tournament.objects.filter(name__iexact=name).exists():
        raise TournamentError(f"a tournament called {name!r} exists already", "name")
    if preset not in all_presets():
        raise TournamentError(f"unknown preset {preset!r}; presets: {', '.join(all_presets())}", "preset")
    try:
        resolve(preset, overrides)
    except RuleOptionError as err:
        raise TournamentError(str(err), "overrides") from None
    _, teams = layout(preset, overrides)
    if format not in Tournament.Format.values:
        raise TournamentError(f"unknown format {format!r}; formats: {', '.join(Tournament.Format.values)}", "format")
    tabled = format in TABLE_FORMATS
    if len(teams) > 2 and not tabled:
        raise TournamentError(f"{preset} is played by {len(teams)} sides: choose a table format (round robin of "
                              f"tables or Swiss tables)", "format")
    if len(teams) == 2 and tabled:
        raise TournamentError(f"{preset} is played by two sides: table formats are for 3–6 sides; choose a "
                              f"pairing format", "format")
    if format in (Tournament.Format.SWISS, Tournament.Format.SWISS_TABLES) and not rounds:
        raise TournamentError("a Swiss tournament needs its number of rounds", "rounds")
    if not 1 <= deals <= MAX_DEALS:
        raise TournamentError(f"duplicate sets per pairing (deals) must be from 1 to {MAX_DEALS}", "deals")
    try:
        control = check_time_control(time_control)
    except TimeControlError as err:
        raise TournamentError(f"time control: {err}", "time_control") from None
    if entry not in Tournament.Entry.values:
        raise TournamentError(f"entry must be one of {', '.join(Tournament.Entry.values)}", "entry")
    if max_entries < 2:
        raise TournamentError("at least 2 entries are needed", "max_entries")
    if live_delay_seconds is not None and not (isinstance(live_delay_seconds, int) and 0 <= live_delay_seconds <= 3600):
        raise TournamentError(f"the live delay is a whole number of seconds from 0 to 3600, not {live_delay_seconds!r}",
                              "live_delay_seconds")
    if starts_at <= timezone.now():
        raise TournamentError("the start time must be in the future", "starts_at")
    if entry_deadline is not None and entry_deadline > starts_at:
        raise TournamentError("the entry deadline must not be after the start", "entry_deadline")
    return control.to_dict()


def do_create_tournament(host, **fields) -> Tournament:
    fields.setdefault("overrides", {})
    control = check_tournament(**{k: fields.get(k) for k in (
        "name", "preset", "overrides", "format", "rounds", "deals", "time_control", "entry", "max_entries",
        "starts_at", "entry_deadline", "live_delay_seconds")})
    fields["time_control"] = control
    try:
        with transaction.atomic():
            return Tournament.objects.create(host=host, **fields)
    except IntegrityError:
        raise TournamentError(f"a tournament called {fields['name']!r} exists already", "name") from None


def check_join(user, t: Tournament, bot: Bot, invite_code: str = "") -> None:
    if bot.is_person:
        raise TournamentError(f"{bot.name} is a person's seat at the tables, not a bot", "bot")
    if t.status != Tournament.Status.OPEN:
        raise TournamentError(f"the tournament is {t.status}; entries are closed", "tournament")
    if t.entry_deadline and timezone.now() > t.entry_deadline:
        raise TournamentError("the entry deadline has passed", "tournament")
    if t.entry == Tournament.Entry.PRIVATE and user.pk != t.host_id:
        raise TournamentError("this tournament is private: only its host adds entrants", "tournament")
    if t.entry == Tournament.Entry.INVITE and user.pk != t.host_id and invite_code != t.invite_code:
        raise TournamentError("a valid invite code is needed to join this tournament", "invite_code")
    if bot.owner_id != user.pk and not (t.entry == Tournament.Entry.PRIVATE and user.pk == t.host_id):
        raise TournamentError(f"{bot.name} is not your bot", "bot")
    game = all_presets()[t.preset][0]
    if bot.game != game:
        raise TournamentError(f"{bot.name} plays {bot.game}; this tournament is {t.preset} ({game})", "bot")
    if t.preset not in bot.plays():
        raise TournamentError(f"{bot.name} does not play {t.preset}", "bot")
    if not bot.active or bot.suspended_reason:
        raise TournamentError(f"{bot.name} is inactive or suspended", "bot")
    if not t.remote_bots and bot.current_version is not None and bot.current_version.is_remote:
        raise TournamentError(f"{bot.name}'s current version is remote, and this tournament takes only bots that "
                              f"run in the site's sandbox", "bot")
    if t.entries.filter(bot=bot).exists():
        raise TournamentError(f"{bot.name} has joined already", "bot")
    mine = same_owner_entry(t, bot)
    if mine is not None:
        raise TournamentError(f"{mine.bot.name}, another bot of {bot.owner.username}, has joined already: a "
                              f"tournament takes one bot per owner, since two bots of one owner could play for "
                              f"each other; compare your own bots with a version test", "bot")
    if t.entries.filter(withdrawn="").count() >= t.max_entries:
        raise TournamentError(f"the tournament is full ({t.max_entries} entries)", "tournament")


def do_join(user, t: Tournament, bot: Bot, invite_code: str = "") -> Entry:
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=t.pk)  # entries are counted under the lock
        check_join(user, t, bot, invite_code)
        try:
            with transaction.atomic():
                return Entry.objects.create(tournament=t, bot=bot)
        except IntegrityError:
            raise TournamentError(f"{bot.name} has joined already", "bot") from None


def do_leave(user, t: Tournament, bot: Bot) -> None:
    if t.status != Tournament.Status.OPEN:
        raise TournamentError("entries are frozen once the tournament has started", "tournament")
    if bot.owner_id != user.pk and t.host_id != user.pk:
        raise TournamentError(f"{bot.name} is not your bot", "bot")
    deleted, _ = t.entries.filter(bot=bot).delete()
    if not deleted:
        raise TournamentError(f"{bot.name} has not joined this tournament", "bot")


def do_host_action(user, t: Tournament, action: str) -> Tournament:
    if user.pk != t.host_id:
        raise TournamentError("only the host may do that", "tournament")
    if action == "start":
        if t.status != Tournament.Status.OPEN:
            raise TournamentError(f"the tournament is {t.status}; only an open one can start", "tournament")
        start(t)
    elif action == "pause":
        pause(t)
    elif action == "resume":
        resume(t)
    elif action == "cancel":
        cancel(t)
    else:
        raise TournamentError(f"unknown action {action!r}", "action")
    t.refresh_from_db()
    return t
