"""Remote bots: a version played by a program on its owner's machine, over `arena connect` (docs/protocol.md,
"Remote bots").

A remote version is a bot version like any other (validated by a short match, then on the ladder) whose
seat is played over the live relay instead of in a sandbox. What this module keeps is the bot's side of it:

- its **token**, which lets a connection play this bot's remote version and reach nothing else; only its
  digest is stored, the token itself is shown once;
- its **connections**: a row per open `arena connect`, refreshed while it lives. The row is the truth for
  "is this version connected" (matchmaking asks it); one whose web process died goes stale by itself;
- the **allowance** a remote seat's clock gets: its connections' measured p95 round trip, capped.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q, Sum
from django.utils import timezone

from accounts.locks import lock_account
from bots.actions import BotError, check_pending_cap
from bots.models import REMOTE_RUNTIME, Bot, BotVersion, RemoteConnection, RemoteToken

TOKEN_PREFIX = "kzr_remote_"
# A connection refreshes its row every HEARTBEAT_SECONDS; one not seen for SEEN_SECONDS is gone (its web
# process died without closing it), so its version is no longer matched and no longer counts against the bounds.
HEARTBEAT_SECONDS = 10
SEEN_SECONDS = 35


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(bot: Bot) -> str:
    """A new token for the bot's remote versions (the bot's earlier tokens stay valid until revoked)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    RemoteToken.objects.create(bot=bot, digest=digest(token), prefix=token[: len(TOKEN_PREFIX) + 4])
    return token


def connect_command(site: str, bot_name: str, token: str) -> str:
    """What its owner runs to play the bot's remote version (``./my_bot``: their own program)."""
    return f"arena connect --site {site.rstrip('/')} --bot {bot_name} --token {token} -- ./my_bot"


def open_connections(bot: Bot) -> list[RemoteConnection]:
    rows = RemoteConnection.objects.filter(_live(), bot=bot).select_related("version").order_by("-opened")[:50]
    return list(rows)


def revoke_tokens(bot: Bot) -> int:
    """Every token of the bot stops working; open connections are closed by their web process at its next
    heartbeat. The number revoked."""
    return RemoteToken.objects.filter(bot=bot, revoked__isnull=True).update(revoked=timezone.now())


def token_bot(token: str) -> RemoteToken | None:
    """The live token this text is, with its bot and owner; None for anything else (unknown, revoked, a
    suspended owner)."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    found = (RemoteToken.objects.filter(digest=digest(token), revoked__isnull=True, bot__owner__is_active=True)
             .select_related("bot__owner", "bot__current_version").first())
    return found


def do_make_remote_version(bot: Bot) -> tuple[BotVersion, str]:
    """A new remote version of the bot, pending until it has connected and played its validation match, and
    a fresh token for it (shown once)."""
    if bot.is_house:
        raise BotError("house bots are built in and have no remote versions")
    if bot.is_person:
        raise BotError("a person's seat at the tables is not a bot")
    with transaction.atomic():
        lock_account(bot.owner_id)  # first in the lock order; numbers one owner's versions in turn
        check_pending_cap(bot.owner)
        number = (bot.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
        version = BotVersion.objects.create(bot=bot, number=number, runtime=REMOTE_RUNTIME, entry=[])
        token = issue_token(bot)
    return version, token


def remote_version(bot: Bot) -> BotVersion | None:
    """The version a connection of this bot plays: its newest remote version that is not retired, rejected
    or in error (pending ones connect to be validated)."""
    return (bot.versions.filter(runtime=REMOTE_RUNTIME, retired=False)
            .exclude(status__in=[BotVersion.Status.REJECTED, BotVersion.Status.ERROR])
            .order_by("-number").first())


def _live() -> Q:
    return Q(closed__isnull=True, seen__gte=timezone.now() - timedelta(seconds=SEEN_SECONDS))


class TooManyConnections(Exception):
    """A connection past the bounds per bot or per user; the message says which."""


def open_connection(token: RemoteToken, version: BotVersion, *, address: str, max_matches: int) -> RemoteConnection:
    """Record a new connection, within the bounds per bot and per user (counted under the owner's lock, so two
    connections at once cannot both take the last place)."""
    bot = token.bot
    with transaction.atomic():
        lock_account(bot.owner_id)
        live = RemoteConnection.objects.filter(_live())
        per_bot = live.filter(bot=bot).count()
        if per_bot >= settings.REMOTE_CONNECTIONS_PER_BOT:
            raise TooManyConnections(f"{bot.name} already has {per_bot} open connection(s), the most a bot may "
                                     f"({settings.REMOTE_CONNECTIONS_PER_BOT}); close one first")
        per_user = live.filter(bot__owner_id=bot.owner_id).count()
        if per_user >= settings.REMOTE_CONNECTIONS_PER_USER:
            raise TooManyConnections(f"your bots already have {per_user} open connections, the most one user "
                                     f"may ({settings.REMOTE_CONNECTIONS_PER_USER}); close one first")
        RemoteToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
        return RemoteConnection.objects.create(bot=bot, version=version, token=token, address=address[:64],
                                               seen=timezone.now(), max_matches=max_matches)


class Ended(Exception):
    """A connection that must close: ``final`` when reconnecting cannot help (a revoked token, a suspended
    owner); otherwise the version it plays changed and a new connection plays the new one."""

    def __init__(self, reason: str, final: bool):
        super().__init__(reason)
        self.final = final


def heartbeat(connection_id: int, rtt_p95_ms: int | None, samples: int) -> None:
    """The connection is alive; Ended when it must close."""
    row = (RemoteConnection.objects.filter(pk=connection_id).select_related("token", "version", "bot__owner")
           .first())
    if row is None or row.token.revoked is not None:
        raise Ended("this connection's token was revoked", final=True)
    if not row.bot.owner.is_active:
        raise Ended("the bot's owner is suspended", final=True)
    current = remote_version(row.bot)
    if current is None:
        raise Ended(f"{row.bot.name} has no remote version to play any more (retired or rejected)", final=True)
    if current.pk != row.version_id:
        raise Ended(f"{row.bot.name} has a newer remote version (v{current.number}): reconnect to play it",
                    final=False)
    RemoteConnection.objects.filter(pk=connection_id).update(seen=timezone.now(), rtt_p95_ms=rtt_p95_ms,
                                                             rtt_samples=samples)


def close_connection(connection_id: int) -> None:
    RemoteConnection.objects.filter(pk=connection_id, closed__isnull=True).update(closed=timezone.now())


def connected_version_ids(version_ids) -> set[int]:
    """Which of these versions have a live connection (matchmaking matches only those)."""
    return set(capacities(version_ids))


def capacities(version_ids) -> dict[int, int]:
    """For each of these versions with a live connection: how many matches its connections play at once."""
    rows = (RemoteConnection.objects.filter(_live(), version_id__in=list(version_ids)).values("version_id")
            .annotate(n=Sum("max_matches")))
    return {row["version_id"]: row["n"] for row in rows}


def is_connected(version: BotVersion) -> bool:
    return bool(connected_version_ids([version.pk]))


def allowance_ms(version_id: int) -> int:
    """What a remote seat's clock gets on top of the match's: the slowest live connection's p95 round trip
    (any of them may play the match), at most REMOTE_ALLOWANCE_CAP_MS; the cap when nothing is measured."""
    cap = settings.REMOTE_ALLOWANCE_CAP_MS
    slowest = RemoteConnection.objects.filter(_live(), version_id=version_id).aggregate(m=Max("rtt_p95_ms"))["m"]
    return cap if slowest is None else min(cap, int(slowest))
