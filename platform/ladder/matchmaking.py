"""The continuous ladder: keep a few ranked duplicate sets queued per preset, fairly shared.

Matchmaking, in order: versions still in placement (fewer than PLACEMENT_GAMES ranked games) first, then
the bots with the fewest ranked games in the last day; opponents are the distinct bots closest in live
rating (random among equals, and random when no rating exists yet); never a bot against itself. Tables of
3–6 seats are filled with distinct bots, one per team in team presets. The unit is a duplicate set (every
distinct rotation of one deal), so card luck cancels.

The depth (LADDER_QUEUE_DEPTH) counts duplicate sets: a preset never has more than that many sets with a match
queued or running, however many processes fill at once (each preset is filled under a lock of its own).
"""

from __future__ import annotations

import random
import zlib
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from arena.games import all_presets
from arena.games.seating import layout
from bots.models import Bot, BotVersion
from bots.remote import capacities
from matches.actions import create_duplicate_set
from matches.models import Match, Seat
from ratings.actions import live_elo

PLACEMENT_GAMES = 10
RECENT = timedelta(days=1)



def eligible_bots(preset: str) -> list[Bot]:
    game = all_presets()[preset][0]
    bots = (Bot.objects.filter(game=game, kind=Bot.Kind.BOT, active=True, suspended_reason="", owner__is_active=True,
                               current_version__status=BotVersion.Status.READY, current_version__retired=False)
            .select_related("current_version"))
    playing = [b for b in bots if not b.presets or preset in b.presets]
    remote = {b.current_version_id for b in playing if b.current_version is not None and b.current_version.is_remote}
    if not remote:
        return playing
    # A remote version plays only while it is connected, never where the organiser keeps them out, and never
    # more matches at once than its connections take (a match nobody picks up would wait out the grace).
    room = {} if preset in settings.REMOTE_EXCLUDED_PRESETS else capacities(remote)
    if room:
        busy = dict(Seat.objects.filter(version_id__in=list(room), match__status__in=[
            Match.Status.QUEUED, Match.Status.RUNNING]).values_list("version_id").annotate(n=Count("match_id")))
        room = {v: n - busy.get(v, 0) for v, n in room.items()}
    return [b for b in playing if b.current_version_id not in remote or room.get(b.current_version_id or 0, 0) > 0]


def ranked_counts(version_ids: list[int], preset: str, since=None) -> dict[int, int]:
    seats = Seat.objects.filter(version_id__in=version_ids, match__ranked=True, match__preset=preset).exclude(
        match__status__in=[Match.Status.FAILED, Match.Status.CANCELLED])
    if since is not None:
        seats = seats.filter(match__created__gte=since)
    return dict(seats.values_list("version_id").annotate(n=Count("match_id", distinct=True)))


def pick_table(preset: str, sides: int, rng: random.Random) -> list[BotVersion] | None:
    """One version per side for the next ranked set of ``preset``, or None when too few bots play it."""
    bots = eligible_bots(preset)
    if len(bots) < sides:
        return None
    versions = [b.current_version for b in bots if b.current_version is not None]  # eligible: all have one
    ids = [v.pk for v in versions]
    total = ranked_counts(ids, preset)
    recent = ranked_counts(ids, preset, since=timezone.now() - RECENT)
    noise = {v.pk: rng.random() for v in versions}
    # Versions in placement first, then the fewest recent games; among equals the newest version.
    first = min(versions, key=lambda v: (total.get(v.pk, 0) >= PLACEMENT_GAMES, recent.get(v.pk, 0), -v.pk,
                                         noise[v.pk]))
    ratings = live_elo(ids, preset)
    anchor = ratings.get(first.pk)
    others = [v for v in versions if v.bot_id != first.bot_id]
    if anchor is None:
        others.sort(key=lambda v: (recent.get(v.pk, 0), noise[v.pk]))
    else:
        others.sort(key=lambda v: (abs(ratings.get(v.pk, anchor) - anchor), recent.get(v.pk, 0), noise[v.pk]))
    return [first, *others[: sides - 1]]


def waiting_sets(preset: str) -> int:
    """The preset's ladder duplicate sets with a match queued or running: what the depth bounds."""
    return (Match.objects.filter(kind=Match.Kind.LADDER, preset=preset,
                                 status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
            .values("duplicate_set").distinct().count())


def fill_ladder(rng: random.Random | None = None) -> int:
    """Queue ranked duplicate sets until every preset with enough bots has LADDER_QUEUE_DEPTH sets waiting;
    the number of matches queued. Run by two processes at once, it still never goes past the depth."""
    rng = rng or random.Random()
    depth = settings.LADDER_QUEUE_DEPTH
    created = 0
    for preset in all_presets():
        if waiting_sets(preset) >= depth:
            continue  # full: no lock taken, the usual case
        _, teams = layout(preset, {})
        with transaction.atomic():
            if not _fill_lock(preset):
                continue  # another process is filling this preset right now, to the same depth
            for _ in range(depth - waiting_sets(preset)):  # counted again under the lock
                table = pick_table(preset, len(teams), rng)
                if table is None:
                    break
                created += len(create_duplicate_set(kind=Match.Kind.LADDER, preset=preset, versions=table,
                                                    ranked=True))
    return created


FILL_LOCK_SPACE = zlib.crc32(b"kozyr.ladder.fill") >> 1  # PostgreSQL advisory locks: (space, key), two int4


def _fill_lock(preset: str) -> bool:
    """Take the preset's fill lock for the surrounding transaction; False when another transaction holds it.
    PostgreSQL: a transaction-level advisory lock (gone at commit or rollback, even if the process dies).
    SQLite (the embedded default) opens every transaction IMMEDIATE, holding the database's one write lock
    from its start, so fills are already one after another there."""
    if connection.vendor != "postgresql":
        return True
    key = zlib.crc32(preset.encode()) - 2**31  # into int4's range
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [FILL_LOCK_SPACE, key])
        return bool(cursor.fetchone()[0])
