"""Running a tournament: start (freeze versions, seed), pair a round, queue its matches, record results,
advance, finish with standings and trophies. Every step is idempotent or one transaction; the beat job
``tournaments.tasks.drive`` calls ``start_due`` and ``advance`` for every running tournament, so a lost
message delays a tournament by one beat at most and never loses or doubles a result.

A pairing is K duplicate sets (``deals``); its result is the pairing's match score: the first entrant's
share of the sides it beat over all those matches (win above one half, draw at exactly one half). A forfeit
(crash, timeout, illegal action) loses that match as the referee ranks it; an infrastructure failure is
replayed with the same seed and seats, never scored.
"""

from __future__ import annotations

import contextlib

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.games.seating import layout, side_scores
from arena.referee import TimeControl
from bots.models import BotVersion
from matches.actions import create_duplicate_set, create_match, publish_held
from matches.models import Match, Seat
from ratings.models import Rating
from tournaments import berger, knockout, swiss, tables
from tournaments.models import Entry, Pairing, PairingSet, Round, Table, TableSet, Tournament, Trophy
from tournaments.records import BYE_POINTS, Result

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
TABLE_FORMATS = (Tournament.Format.TABLE_ROUND_ROBIN, Tournament.Format.SWISS_TABLES)
SIT_OUT_SCORE = 0.5  # an entrant left over when the field does not fill whole tables: as if it drew


class TournamentError(ValueError):
    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def start_due() -> list[int]:
    due = Tournament.objects.filter(status=Tournament.Status.OPEN, starts_at__lte=timezone.now())
    return [t.pk for t in due if start(t)]


def start(tournament: Tournament) -> bool:
    """Freeze every entry's current version, seed by rating, pair round 1. False if it was not open."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if t.status != Tournament.Status.OPEN:
            return False
        entries = list(t.entries.select_related("bot__current_version").filter(withdrawn=""))
        for entry in entries:
            version = entry.bot.current_version
            if not entry.bot.active or entry.bot.suspended_reason:
                entry.withdrawn = "the bot was inactive or suspended at the start"
            elif version is None or version.status != BotVersion.Status.READY:
                entry.withdrawn = "the bot had no validated version at the start"
            else:
                entry.version = version
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


def entrants(t: Tournament) -> list[int]:
    return list(t.entries.filter(withdrawn="").order_by("seed").values_list("pk", flat=True))


def results(t: Tournament) -> list[Result]:
    found = []
    for p in Pairing.objects.filter(round__tournament=t, score__isnull=False).select_related("round"):
        found.append(Result(round=p.round.number, first=p.first_id, second=p.second_id, score=p.score,
                            margin=p.margin) if p.second_id else
                     Result(round=p.round.number, first=p.first_id, second=None, score=p.score))
    return found


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
        from tournaments.bracket import knockout_round

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


def table_points(t: Tournament) -> dict[int, float]:
    points: dict[int, float] = {}
    for row in Table.objects.filter(round__tournament=t, scores__isnull=False):
        for entry, score in row.scores.items():
            points[int(entry)] = points.get(int(entry), 0.0) + score
    return points


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
                                           held=True)
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
            _queue_set(t, row, [version_rows[versions[first]], version_rows[versions[second]]])
    release_held(t)
    if all(second is None for _, second in boards):
        rnd.finished = True
        rnd.save(update_fields=["finished"])
    return rnd


def _queue_set(t: Tournament, pairing: Pairing, versions: list[BotVersion], tiebreak: bool = False) -> None:
    matches = create_duplicate_set(kind=Match.Kind.TOURNAMENT, preset=t.preset, overrides=t.overrides,
                                   versions=versions, time_control=TimeControl(**t.time_control) if t.time_control
                                   else None, held=True)  # until release_held publishes them
    PairingSet.objects.create(pairing=pairing, duplicate_set=matches[0].duplicate_set, tiebreak=tiebreak)


def tournament_matches(t: Tournament):
    sets = PairingSet.objects.filter(pairing__round__tournament=t).values("duplicate_set")
    table_sets = TableSet.objects.filter(table__round__tournament=t).values("duplicate_set")
    return Match.objects.filter(kind=Match.Kind.TOURNAMENT).filter(
        Q(duplicate_set__in=sets) | Q(duplicate_set__in=table_sets))


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


def _release_locked(tournament_id: int, *, wait: bool = True) -> int:
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
        _release_locked(pk, wait=False)


def _pairing_of(match: Match) -> Pairing | None:
    link = PairingSet.objects.filter(duplicate_set=match.duplicate_set).first()
    if link is None:
        return None
    rows = Pairing.objects.select_for_update(of=("self",))  # the pairing row only: its second may be a bye
    return rows.select_related("round__tournament", "first", "second").get(pk=link.pairing_id)


def record_tournament_match(match: Match, seats: list[Seat]) -> None:
    """A finish hook (inside the match's result transaction): add the match to its pairing; decide the
    pairing when all its matches are in; release the tournament's next held match; when the pairing is
    decided, queue the tournament's next step after the commit."""
    if match.kind != Match.Kind.TOURNAMENT:
        return
    pairing = _pairing_of(match)
    if pairing is None:
        _record_table_match(match, seats)
        return
    t = pairing.round.tournament
    _, teams = layout(match.preset, match.overrides)
    ranks = [s.rank for s in sorted(seats, key=lambda s: s.seat)]
    scores = side_scores(ranks, teams)
    side_of = {seat: side for side, team in enumerate(teams) for seat in team}
    first_side = next(side_of[s.seat] for s in seats if s.version_id == pairing.first.version_id)
    second_side = next(side_of[s.seat] for s in seats if s.version_id == pairing.second.version_id)
    pairing.games += 1
    pairing.games_first += scores[first_side]
    points = match.result.get("points") or []
    if points:
        mine = points[teams[first_side][0]]
        theirs = points[teams[second_side][0]]
        lower_is_better = match.result.get("points_kind") == "penalty"
        pairing.margin += (theirs - mine) if lower_is_better else (mine - theirs)
    if _all_played(pairing):
        decided = _decide(pairing, t)
        if not decided:
            pairing.tiebreak_sets += 1
            _queue_set(t, pairing, [pairing.first.version, pairing.second.version], tiebreak=True)
    pairing.save()
    tournament_id = t.pk
    _release_locked(tournament_id)  # the worker this match leaves may take the tournament's next one
    if pairing.score is not None:  # the round may be complete: pair the next one now, not at the next beat
        transaction.on_commit(lambda: _advance_later(tournament_id))


def _record_table_match(match: Match, seats: list[Seat]) -> None:
    link = TableSet.objects.filter(duplicate_set=match.duplicate_set).first()
    if link is None:
        return
    table = Table.objects.select_for_update(of=("self",)).select_related("round__tournament").get(pk=link.table_id)
    _, teams = layout(match.preset, match.overrides)
    scores = side_scores([s.rank for s in sorted(seats, key=lambda s: s.seat)], teams)
    side_of = {seat: side for side, team in enumerate(teams) for seat in team}
    version_of = dict(Entry.objects.filter(pk__in=table.seating).values_list("pk", "version_id"))
    for entrant in table.seating:
        side = next(side_of[s.seat] for s in seats if s.version_id == version_of[entrant])
        table.totals[str(entrant)] = table.totals.get(str(entrant), 0.0) + scores[side]
    table.games += 1
    sets = TableSet.objects.filter(table=table).values("duplicate_set")
    slots = Match.objects.filter(duplicate_set__in=sets).values("duplicate_set", "rotation").distinct().count()
    done = (Match.objects.filter(duplicate_set__in=sets, status=Match.Status.FINISHED)
            .values("duplicate_set", "rotation").distinct().count())
    if slots == done:
        table.scores = {e: total / table.games for e, total in table.totals.items()}
    table.save()
    tournament_id = table.round.tournament_id
    _release_locked(tournament_id)
    if table.scores is not None:
        transaction.on_commit(lambda: _advance_later(tournament_id))


def _all_played(pairing: Pairing) -> bool:
    sets = PairingSet.objects.filter(pairing=pairing).values("duplicate_set")
    slots = Match.objects.filter(duplicate_set__in=sets).values("duplicate_set", "rotation").distinct().count()
    done = (Match.objects.filter(duplicate_set__in=sets, status=Match.Status.FINISHED)
            .values("duplicate_set", "rotation").distinct().count())
    return slots == done


def _decide(pairing: Pairing, t: Tournament) -> bool:
    half = pairing.games / 2
    if pairing.games_first > half:
        pairing.score = 1.0
    elif pairing.games_first < half:
        pairing.score = 0.0
    elif t.format == Tournament.Format.KNOCKOUT and pairing.tiebreak_sets < MAX_TIEBREAK_SETS:
        return False  # a knockout tie: another duplicate set decides it
    elif t.format == Tournament.Format.KNOCKOUT and pairing.margin:
        pairing.score = 1.0 if pairing.margin > 0 else 0.0  # still level: the duplicate point difference
    elif t.format == Tournament.Format.KNOCKOUT:
        pairing.score = 1.0 if pairing.first.seed < pairing.second.seed else 0.0  # then the higher seed
    else:
        pairing.score = 0.5
    return True


MAX_TIEBREAK_SETS = knockout.MAX_TIEBREAK_SETS


def _advance_later(tournament_id: int) -> None:
    from tournaments.tasks import advance

    with contextlib.suppress(Exception):  # the broker is away: the beat job advances it anyway
        advance.apply_async((tournament_id,), queue="maintenance")


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


def replace_failed_match(match: Match) -> None:
    """A failure hook: a tournament match that could not be played (infrastructure, every attempt) is
    played again with the same deal and seats; it is never scored as a loss."""
    if match.kind != Match.Kind.TOURNAMENT:
        return
    tournament_id = (PairingSet.objects.filter(duplicate_set=match.duplicate_set)
                     .values_list("pairing__round__tournament_id", flat=True).first()
                     or TableSet.objects.filter(duplicate_set=match.duplicate_set)
                     .values_list("table__round__tournament_id", flat=True).first())
    if tournament_id is None:
        return
    seats = [s.version for s in match.seats.select_related("version").order_by("seat")]
    create_match(kind=Match.Kind.TOURNAMENT, preset=match.preset, overrides=match.overrides, seat_versions=seats,
                 base_seed=match.base_seed, duplicate_set=match.duplicate_set, rotation=match.rotation,
                 time_control=TimeControl(**match.time_control), held=True)
    _release_locked(tournament_id)


def finish(t: Tournament) -> None:
    from tournaments.standings import standings

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
    _advance_later(t.pk)


def cancel(t: Tournament, reason: str = "cancelled by the host") -> None:
    from matches.actions import cancel as cancel_match

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

