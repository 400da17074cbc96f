"""The continuous ladder: keep a few ranked duplicate sets queued per preset, fairly shared.

Shares by cost. The workers' time is what the ladder shares out, not its matches: a bot that thinks 0.5 s a move
costs a worker a hundred times what a quick one does. Each match's seats are charged what they cost the worker
that played it (``Seat.worker_ms``: the seat's own clock, plus an equal share of the match's time nobody thought
in), and the policy is equal worker time per version of a preset over a sliding day:

- versions still in placement (fewer than PLACEMENT_GAMES ranked games) first, as new bots get more games on
  Kaggle and Halite; then the version with the least worker time in the window (then the fewest games);
- opponents are the distinct bots closest in live rating (random among equals, and random when no rating
  exists yet), those still under their share of the window's worker time before those over it;
- no version sits in more than its share of the preset's waiting sets (the depth times the seats, divided
  among the eligible versions, rounded up), however long its matches take, so a slow bot never fills the
  queue the workers take their matches from.

Never a bot against itself, and never two
bots of one owner at one table (house bots excepted: the site owns them all and gains nothing). Tables
of 3–6 seats are filled with distinct bots, one per team in team presets. The unit is a duplicate set (every
distinct rotation of one deal), so card luck cancels; an owner compares their own versions with a version
test (tournaments.versiontests), never on the ladder.

The depth (LADDER_QUEUE_DEPTH) counts duplicate sets: a preset never has more than that many sets with a match
queued or running, however many processes fill at once (each preset is filled under a lock of its own).
"""

from __future__ import annotations

import math
import random
import zlib
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Sum
from django.utils import timezone

from analysis.models import Analysis
from arena.games import all_presets
from arena.games.seating import layout
from bots.models import Bot, BotVersion
from bots.remote import capacities
from ladder.withdrawal import withdraw_ineligible
from matches.actions import create_duplicate_set
from matches.models import Match, Seat
from ratings.actions import live_elo

PLACEMENT_GAMES = 10
RECENT = timedelta(days=1)



def eligible_bots(preset: str) -> list[Bot]:
    game = all_presets()[preset][0]
    bots = (Bot.objects.filter(game=game, kind=Bot.Kind.BOT, active=True, suspended_reason="", owner__is_active=True,
                               current_version__status=BotVersion.Status.READY, current_version__retired=False)
            .select_related("current_version", "owner"))
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


def recent_costs(version_ids: list[int], preset: str, since) -> dict[int, int]:
    """Worker milliseconds each version's ranked ``preset`` matches cost since ``since``, and the analyses of
    its seats in ``preset`` matches finished since then that its owner asked for (an analysis is worker time
    spent for that version: analysis/jobs.py records its CPU time on the row). Anyone may analyse a public
    match's seats: what others ask for is bounded by their own hourly limit, never charged to a bot they do not
    own, or a rival could spend a version's share by analysing its matches."""
    costs = dict(Seat.objects.filter(version_id__in=version_ids, match__ranked=True, match__preset=preset,
                                     match__finished__gte=since).values_list("version_id")
                 .annotate(ms=Sum("worker_ms")))
    for version_id, ms in (Analysis.objects.filter(version_id__in=version_ids, match__preset=preset,
                                                   finished__gte=since,
                                                   requested_by_id=F("version__bot__owner_id"))
                           .values_list("version_id")
                           .annotate(ms=Sum("worker_ms"))):
        costs[version_id] = costs.get(version_id, 0) + ms
    return costs


def waiting_slots(version_ids: list[int], preset: str) -> dict[int, int]:
    """The preset's ladder duplicate sets with a match queued or running that seat each version."""
    return dict(Seat.objects.filter(version_id__in=version_ids, match__kind=Match.Kind.LADDER, match__preset=preset,
                                    match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
                .values_list("version_id").annotate(n=Count("match__duplicate_set", distinct=True)))


def slot_share(versions: int, sides: int) -> int:
    """How many of a preset's waiting sets one version may sit in: its even share of the seats, rounded up."""
    return max(1, math.ceil(settings.LADDER_QUEUE_DEPTH * sides / max(1, versions)))


def ranked_counts(version_ids: list[int], preset: str, since=None) -> dict[int, int]:
    seats = Seat.objects.filter(version_id__in=version_ids, match__ranked=True, match__preset=preset).exclude(
        match__status__in=[Match.Status.FAILED, Match.Status.CANCELLED])
    if since is not None:
        seats = seats.filter(match__created__gte=since)
    return dict(seats.values_list("version_id").annotate(n=Count("match_id", distinct=True)))


def seat_owner(bot: Bot) -> int | None:
    """Whose seat this is for the one-owner-per-table rule: the owner, or None for a house bot (any number of
    house bots may meet: the site owns them all and gains nothing)."""
    return None if bot.is_house else bot.owner_id


def pick_table(preset: str, sides: int, rng: random.Random) -> list[BotVersion] | None:
    """One version per side for the next ranked set of ``preset``, or None when too few bots play it. No two
    sides are bots of one owner: a second bot that loses on purpose would farm the first's rating, the
    collusion tournaments forbid by one entry per owner."""
    bots = eligible_bots(preset)
    if len(bots) < sides:
        return None
    owner = {b.current_version_id: seat_owner(b) for b in bots}
    versions = [b.current_version for b in bots if b.current_version is not None]  # eligible: all have one
    ids = [v.pk for v in versions]
    since = timezone.now() - RECENT
    total = ranked_counts(ids, preset)
    recent = ranked_counts(ids, preset, since=since)
    cost = recent_costs(ids, preset, since)
    share = sum(cost.values()) / len(versions)
    busy = waiting_slots(ids, preset)
    room = slot_share(len(versions), sides)
    versions = [v for v in versions if busy.get(v.pk, 0) < room]
    noise = {v.pk: rng.random() for v in versions}
    ratings = live_elo(ids, preset)

    def over_share(version: BotVersion) -> bool:
        return cost.get(version.pk, 0) > share

    # Versions in placement first, then the least worker time; among equals the fewest games, then the newest
    # version. A version whose owner's other bots fill the field cannot be seated: the next one takes the first.
    for first in sorted(versions, key=lambda v: (total.get(v.pk, 0) >= PLACEMENT_GAMES, cost.get(v.pk, 0),
                                                 recent.get(v.pk, 0), -v.pk, noise[v.pk])):
        anchor = ratings.get(first.pk)
        others = [v for v in versions if v.bot_id != first.bot_id]
        if anchor is None:
            others.sort(key=lambda v: (over_share(v), recent.get(v.pk, 0), noise[v.pk]))
        else:
            others.sort(key=lambda v: (over_share(v), abs(ratings.get(v.pk, anchor) - anchor), recent.get(v.pk, 0),
                                       noise[v.pk]))
        table, seated = [first], {owner[first.pk]}
        for version in others:
            if len(table) == sides:
                break
            if owner[version.pk] is None or owner[version.pk] not in seated:
                table.append(version)
                seated.add(owner[version.pk])
        if len(table) == sides:
            return table
    return None


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
    withdraw_ineligible()  # anything that left the ladder by a path that sent no signal
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
