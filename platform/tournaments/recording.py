"""Recording a tournament's matches (finish-pipeline steps, inside the match's result transaction): a finished
match counts in its pairing or table, a pairing is decided when all its matches are in (a drawn knockout
pairing gets another duplicate set), and a match that could not be played is played again.

A pairing is K duplicate sets (``deals``); its result is the pairing's match score: the first entrant's
share of the sides it beat over all those matches (win above one half, draw at exactly one half). A forfeit
(crash, timeout, illegal action) loses that match as the referee ranks it; an infrastructure failure is
replayed with the same seats and seed (a fresh seed when a seat is open), never scored.
"""

from __future__ import annotations

from django.db import transaction

from arena.games.seating import layout, side_scores
from arena.referee import TimeControl
from matches.actions import create_match, seed_to_play_again
from matches.models import Match, Seat
from tournaments import lifecycle
from tournaments.models import Entry, Pairing, PairingSet, Table, TableSet, Tournament
from tournaments.pairing.knockout import MAX_TIEBREAK_SETS


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
            lifecycle.queue_set(t, pairing, [pairing.first.version, pairing.second.version], tiebreak=True)
    pairing.save()
    tournament_id = t.pk
    lifecycle.release_locked(tournament_id)  # the worker this match leaves may take the tournament's next one
    if pairing.score is not None:  # the round may be complete: pair the next one now, not at the next beat
        transaction.on_commit(lambda: lifecycle.advance_later(tournament_id))


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
    lifecycle.release_locked(tournament_id)
    if table.scores is not None:
        transaction.on_commit(lambda: lifecycle.advance_later(tournament_id))


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


def replace_failed_match(match: Match) -> None:
    """A failure hook: a tournament match that could not be played (infrastructure, every attempt) is
    played again with the same seats and the same deal (a fresh one when a seat is open: it saw the old one);
    it is never scored as a loss."""
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
                 base_seed=seed_to_play_again(match), duplicate_set=match.duplicate_set, rotation=match.rotation,
                 time_control=TimeControl(**match.time_control), held=True,
                 live_delay_seconds=match.live_delay_seconds)
    lifecycle.release_locked(tournament_id)
