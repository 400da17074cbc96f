"""A tournament's lifecycle: start (freeze versions, seed), pair each round and queue its matches held,
release them as workers free up, advance when a round is complete, finish with standings and trophies; and
the host's pause, resume and cancel. Every step is idempotent or one transaction; the beat job
``tournaments.tasks.drive`` calls ``start_due`` and ``advance`` for every running tournament, so a lost
message delays a tournament by one beat at most and never loses or doubles a result. What a finished match
does to its pairing or table is ``tournaments.recording``'s.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.games.seating import layout
from arena.referee import TimeControl
from bots.models import Bot, BotVersion
from config.celery import app
from config.enqueue import enqueue
from config.errors import ActionError
from matches.actions import cancel as cancel_match
from matches.actions import create_duplicate_set, publish_held
from matches.models import Match, Seat
from ratings.models import Rating
from tournaments.bracket import knockout_round
from tournaments.models import TABLE_FORMATS, Entry, Pairing, PairingSet, Round, Table, TableSet, Tournament, Trophy
from tournaments.pairing import berger, swiss, tables
from tournaments.pairing.records import BYE_POINTS
from tournaments.queries import entrants, results, table_points, tournament_matches
from tournaments.standings import standings

log = logging.getLogger(__name__)

# The task by name (tournaments.tasks imports this module): Celery resolves it to the registered task.
ADVANCE = app.signature("tournaments.tasks.advance")
# How a tournament shares the workers (docs/tournaments.md, "Matches"). Its matches are created held (in the
# database, unpublished) and released one by one, inside a result's transaction or by the beat's drive:
IN_FLIGHT = 8  # at most this many of one tournament's matches published at a time (in the broker or running)
WAITING = 1  # of which at most this many wait in the broker unclaimed: work queued later is a match behind
# While the ladder or challenges have matches waiting, tournaments release nothing unless those kinds had at
# least SITE_SHARE of the last SHARE_WINDOW finished matches; while a validation waits, nothing at all.
SITE_SHARE = 0.2
SHARE_WINDOW = 20
SITE_KINDS = (Match.Kind.LADDER, Match.Kind.CHALLENGE)
TROPHY_PLACES = 3
SIT_OUT_SCORE = 0.5  # an entrant left over when the field does not fill whole tables: as if it drew


class TournamentError(ActionError):
    """A tournament cannot be created, joined or run as asked (the message says why; ``field`` names the input)."""


def same_owner_entry(t: Tournament, bot: Bot) -> Entry | None:
    """Another entry of ``bot``'s owner, which keeps ``bot`` out: one bot per owner in a tournament, as bot
    contests take one bot per player or team (CodinGame, Battlecode), since two bots of one owner at a table
    could play for each other (one losing on purpose). House bots are the site's and exempt."""
    if bot.is_house:
        return None
    return (t.entries.filter(withdrawn="", bot__owner_id=bot.owner_id).exclude(bot=bot).select_related("bot")
            .order_by("joined", "pk").first())


def start_due() -> list[int]:
    due = Tournament.objects.filter(status=Tournament.Status.OPEN, starts_at__lte=timezone.now())
    return [t.pk for t in due if start(t)]


def start(tournament: Tournament) -> bool:
    """Freeze every entry's current version, seed by rating, pair round 1. False if it was not open."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if t.status != Tournament.Status.OPEN:
            return False
        entries = list(t.entries.select_related("bot__current_version", "bot__owner").filter(withdrawn="")
                       .order_by("joined", "pk"))
        playing_for: dict[int, str] = {}  # owner -> the bot playing for them (entries from before the rule)
        for entry in entries:
            version = entry.bot.current_version
            if not entry.bot.is_house and entry.bot.owner_id in playing_for:
                entry.withdrawn = (f"{playing_for[entry.bot.owner_id]}, another bot of the same owner, entered "
                                   f"first: one bot per owner")
            elif not entry.bot.active or entry.bot.suspended_reason:
                entry.withdrawn = "the bot was inactive or suspended at the start"
            elif version is None or version.status != BotVersion.Status.READY:
                entry.withdrawn = "the bot had no validated version at the start"
            elif version.is_remote and not t.remote_bots:
                entry.withdrawn = "the bot's current version at the start was remote, and remote bots may not enter"
            else:
                entry.version = version
                playing_for[entry.bot.owner_id] = entry.bot.name
            entry.save(update_fields=["version", "withdrawn"])
        playing = [e for e in entries if not e.withdrawn]
        if len(playing) < 2:
            t.status, t.note, t.finished = Tournament.Status.CANCELLED, (
                f"cancelled at the start: {len(playing)} entrant(s) with a validated bot; at least 2 are needed"), \
                timezone.now()
            t.save(update_fields=["status", "note", "finished"])
            return True
        ratings = dict(Rating.objects.filter(preset=t.preset, version_id__in=[e.version_id for e in playing])
                       .values_list("version_id", "official"))
        playing.sort(key=lambda e: (-(ratings.get(e.version_id) or float("-inf")), e.joined, e.pk))
        for seed, entry in enumerate(playing, start=1):
            entry.seed = seed
        Entry.objects.bulk_update(playing, ["seed"])
        t.status, t.started = Tournament.Status.RUNNING, timezone.now()
        t.save(update_fields=["status", "started"])
        _pair_next_round(t)
    return True


def plan_round(t: Tournament, number: int):
    """The pairings of round ``number``, or None when the tournament is over."""
    field = entrants(t)
    if t.format in (Tournament.Format.ROUND_ROBIN, Tournament.Format.DOUBLE_ROUND_ROBIN):
        cycles = 2 if t.format == Tournament.Format.DOUBLE_ROUND_ROBIN else 1
        schedule = berger.round_robin(field, cycles)
        return schedule[number - 1] if number <= len(schedule) else None
    if t.format == Tournament.Format.GAUNTLET:
        challenger = t.challenger_id or field[0]
        schedule = berger.gauntlet(challenger, [e for e in field if e != challenger])
        return schedule[number - 1] if number <= len(schedule) else None
    if t.format == Tournament.Format.SWISS:
        if number > (t.rounds or 0):
            return None
        return swiss.pair_round(field, results(t), total_rounds=t.rounds)
    if t.format == Tournament.Format.KNOCKOUT:
        return knockout_round(t, number)
    if t.format in TABLE_FORMATS:
        return _table_round(t, field, number)
    raise TournamentError(f"unknown format {t.format!r}")


def _table_round(t: Tournament, field: list[int], number: int) -> tables.TableRound | None:
    size = len(layout(t.preset, t.overrides)[1])
    if t.format == Tournament.Format.TABLE_ROUND_ROBIN:
        schedule = tables.table_round_robin(field, size, t.rounds or None, seed=t.pk)
        return schedule[number - 1] if number <= len(schedule) else None
    if number > (t.rounds or 0):
        return None
    previous = []
    for rnd in t.round_set.prefetch_related("tables").order_by("number"):
        rows = list(rnd.tables.all())
        previous.append(tables.TableRound(tuple(tuple(r.seating) for r in rows if not r.bye),
                                          tuple(r.seating[0] for r in rows if r.bye)))
    return tables.swiss_tables(field, size, table_points(t), previous)


def _pair_tables(t: Tournament, rnd: Round, plan: tables.TableRound, version_rows: dict, versions: dict) -> None:
    board = 0
    for seating in plan.tables:
        board += 1
        row = Table.objects.create(round=rnd, board=board, seating=list(seating),
                                   totals={str(e): 0.0 for e in seating})
        for _ in range(t.deals):
            matches = create_duplicate_set(kind=Match.Kind.TOURNAMENT, preset=t.preset, overrides=t.overrides,
                                           versions=[version_rows[versions[e]] for e in seating],
                                           time_control=TimeControl(**t.time_control) if t.time_control else None,
                                           held=True, live_delay_seconds=t.live_delay_seconds)
            TableSet.objects.create(table=row, duplicate_set=matches[0].duplicate_set)
    for entrant in plan.byes:
        board += 1
        Table.objects.create(round=rnd, board=board, seating=[entrant], bye=True, scores={str(entrant): SIT_OUT_SCORE})


def _pair_next_round(t: Tournament) -> Round | None:
    number = (t.round_set.count()) + 1
    plan = plan_round(t, number)
    if plan is None:
        finish(t)
        return None
    rnd = Round.objects.create(tournament=t, number=number)
    versions = dict(t.entries.values_list("pk", "version_id"))
    version_rows = {v.pk: v for v in BotVersion.objects.filter(pk__in=versions.values())}
    if isinstance(plan, tables.TableRound):
        _pair_tables(t, rnd, plan, version_rows, versions)
        release_held(t)
        return rnd
    # A knockout's ties keep their bracket order (byes in place): the next round pairs neighbours.
    boards = ([(tie.top, tie.bottom) for tie in plan] if isinstance(plan, list) else
              [(p.first, p.second) for p in plan.pairings] + [(e, None) for e in plan.byes])
    for board, (first, second) in enumerate(boards, start=1):
        if second is None:
            Pairing.objects.create(round=rnd, board=board, first_id=first, second=None, score=BYE_POINTS)
            continue
        row = Pairing.objects.create(round=rnd, board=board, first_id=first, second_id=second)
        for _ in range(t.deals):
            queue_set(t, row, [version_rows[versions[first]], version_rows[versions[second]]])
    release_held(t)
    if all(second is None for _, second in boards):
        rnd.finished = True
        rnd.save(update_fields=["finished"])
    return rnd


def queue_set(t: Tournament, pairing: Pairing, versions: list[BotVersion], tiebreak: bool = False) -> None:
    matches = create_duplicate_set(kind=Match.Kind.TOURNAMENT, preset=t.preset, overrides=t.overrides,
                                   versions=versions, time_control=TimeControl(**t.time_control) if t.time_control
                                   else None, held=True,  # until release_held publishes them
                                   live_delay_seconds=t.live_delay_seconds)
    PairingSet.objects.create(pairing=pairing, duplicate_set=matches[0].duplicate_set, tiebreak=tiebreak)


def release_held(t: Tournament) -> int:
    """Publish the tournament's next held match if it has room (fewer than IN_FLIGHT out, fewer than WAITING
    unclaimed) and the rest of the site is not owed the next worker. The caller holds the tournament's row,
    so two releases of one tournament never count the same room; the publish goes on commit."""
    matches = tournament_matches(t)
    out = matches.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING], published_at__isnull=False) \
        .aggregate(out=Count("pk"), waiting=Count("pk", filter=Q(status=Match.Status.QUEUED)))
    room = min(IN_FLIGHT - out["out"], WAITING - out["waiting"])
    if room <= 0 or site_is_owed_a_worker():
        return 0
    return publish_held(matches.filter(status=Match.Status.QUEUED, published_at__isnull=True).order_by("pk")[:room])


def site_is_owed_a_worker() -> bool:
    """Whether the next free worker belongs to the rest of the site rather than to a tournament: a validation
    is waiting (a new version waits about one match, never a tournament's queue), or the ladder or challenges
    are waiting and had less than SITE_SHARE of the last SHARE_WINDOW finished matches. The tournament
    queue outranks theirs in every worker, so the only way to leave them a worker is not to publish."""
    waiting = Match.objects.filter(status=Match.Status.QUEUED, published_at__isnull=False)
    if waiting.filter(kind=Match.Kind.VALIDATION).exists():
        return True
    if not waiting.filter(kind__in=SITE_KINDS).exists():
        return False
    recent = list(Match.objects.filter(status=Match.Status.FINISHED).order_by("-finished")
                  .values_list("kind", flat=True)[:SHARE_WINDOW])
    return sum(kind in SITE_KINDS for kind in recent) < SITE_SHARE * len(recent)


def release_locked(tournament_id: int, *, wait: bool = True) -> int:
    """Lock a running tournament's row (or, not ``wait``ing, skip it when another transaction has it) and
    release what it has room for."""
    rows = Tournament.objects.select_for_update(skip_locked=not wait).filter(pk=tournament_id,
                                                                             status=Tournament.Status.RUNNING)
    t = rows.first()
    return release_held(t) if t is not None else 0


def make_room(match: Match, seats: list[Seat] | None = None) -> None:
    """A finish and failure hook for every match that is not a tournament's: the worker it frees may be a
    tournament's turn (a tournament's own matches release in record_tournament_match). Tournaments another
    transaction is releasing for are skipped, so this never waits for one."""
    if match.kind == Match.Kind.TOURNAMENT:
        return
    for pk in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True):
        release_locked(pk, wait=False)


def advance_later(tournament_id: int) -> None:
    """Ask a worker to advance the tournament now rather than at the next beat."""
    enqueue(ADVANCE, (tournament_id,), queue="maintenance", what=f"ask to advance tournament {tournament_id}",
            fallback="the beat's drive advances it", logger=log)


def advance(tournament_id: int) -> str:
    """Publish held matches; when the current round is complete, pair the next (or finish)."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return t.status
        current = t.round_set.order_by("-number").first()
        if current is None:
            _pair_next_round(t)
            return "paired"
        if current.pairings.filter(score__isnull=True).exists() or current.tables.filter(scores__isnull=True).exists():
            release_held(t)
            return "playing"
        current.finished = True
        current.save(update_fields=["finished"])
        _pair_next_round(t)
        return "advanced"


def finish(t: Tournament) -> None:
    table = standings(t)
    t.status, t.finished = Tournament.Status.FINISHED, timezone.now()
    t.save(update_fields=["status", "finished"])
    entries = {e.pk: e for e in t.entries.all()}
    for row in table[:TROPHY_PLACES]:
        Trophy.objects.get_or_create(tournament=t, place=row["place"], defaults={"bot": entries[row["entry"]].bot})


def pause(t: Tournament) -> None:
    updated = Tournament.objects.filter(pk=t.pk, status=Tournament.Status.RUNNING).update(
        status=Tournament.Status.PAUSED)
    if not updated:
        raise TournamentError(f"only a running tournament can be paused; this one is {t.status}")


def resume(t: Tournament) -> None:
    updated = Tournament.objects.filter(pk=t.pk, status=Tournament.Status.PAUSED).update(
        status=Tournament.Status.RUNNING)
    if not updated:
        raise TournamentError(f"only a paused tournament can be resumed; this one is {t.status}")
    advance_later(t.pk)


def cancel(t: Tournament, reason: str = "cancelled by the host") -> None:
    with transaction.atomic():
        updated = Tournament.objects.filter(pk=t.pk, status__in=[Tournament.Status.OPEN, Tournament.Status.RUNNING,
                                                                  Tournament.Status.PAUSED]).update(
            status=Tournament.Status.CANCELLED, note=reason[:300], finished=timezone.now())
        if not updated:
            raise TournamentError(f"a {t.status} tournament cannot be cancelled")
        for match in tournament_matches(t).filter(status=Match.Status.QUEUED):
            cancel_match(match, "the tournament was cancelled")


def drive() -> dict[str, int]:
    """Beat: start what is due, advance what runs (a lost wake-up message costs one beat, never a result)."""
    started = start_due()
    running = list(Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True))
    for pk in running:
        advance(pk)
    return {"started": len(started), "running": len(running)}

