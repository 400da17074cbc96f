"""Recording ranked results into ratings, and refitting a preset's official ratings.

Invariants (docs/ratings.md): a ranked match enters the live rating and the counters once, in the very
transaction that records its result (matches.actions.finish runs this hook under the match's lease), so a
re-queued or re-delivered match can never count twice; the official fit reads only finished ranked matches,
keyed by match id, and gives the same numbers whatever order they were played in.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Case, Max, Value, When
from django.utils import timezone

from arena.games.seating import side_scores
from bots.models import Bot, BotVersion
from config.celery import app
from config.enqueue import enqueue
from matches.models import Match, Seat
from ratings import live
from ratings.models import Rating, RatingSnapshot, Refit, RefitRequest

if TYPE_CHECKING:  # imported where a fit runs: scipy costs every process that loads the site 0.2 s
    from ratings.outcomes import Outcomes

log = logging.getLogger(__name__)

REFIT_EVERY = 200  # ranked matches of a preset between refits, besides the periodic one
UNRATED_BOARD = -1e12  # Rating.board of a version without an official rating: below every rated one


def _locked_ratings(versions: list[BotVersion], preset: str) -> dict[int, Rating]:
    """The versions' rating rows, locked in one order (by version id, so two results recorded at once never
    wait for each other's rows crosswise), each created on its version's first ranked match from its bot's
    previous version (a row another result creates meanwhile is taken, not created twice)."""
    versions = sorted({v.pk: v for v in versions}.values(), key=lambda v: v.pk)
    found = set(Rating.objects.filter(version__in=versions, preset=preset).values_list("version_id", flat=True))
    fresh = []
    for version in versions:
        if version.pk in found:
            continue
        previous = (Rating.objects.filter(bot_id=version.bot_id, preset=preset).exclude(version=version)
                    .order_by("-version__number").first())
        start = live.successor(live.Skill(previous.live_mu, previous.live_sigma) if previous else None)
        # The current version stands for its bot on the board at once, unless an earlier version is rated: that
        # one stands in until the new one is rated too (sync_board, at the refit).
        current = Bot.objects.filter(pk=version.bot_id, current_version_id=version.pk).exists() and not (
            Rating.objects.filter(bot_id=version.bot_id, preset=preset, official__isnull=False).exists())
        fresh.append(Rating(version=version, bot_id=version.bot_id, preset=preset, live_mu=start.mu,
                            live_sigma=start.sigma, is_current=current))
    if fresh:
        Rating.objects.bulk_create(fresh, ignore_conflicts=True)
    rows = Rating.objects.select_for_update().filter(version__in=versions, preset=preset).order_by("version_id")
    return {r.version_id: r for r in rows}


def sync_current(bot_id: int, version_id: int | None) -> None:
    """The bot's current version changed: its ratings' is_current flags follow (same transaction), each preset's
    board keeping the bot's last rated version until the new one is rated (``sync_board``)."""
    Rating.objects.filter(bot_id=bot_id).update(
        is_current=Case(When(version_id=version_id, then=Value(True)), default=Value(False)))
    for preset in set(Rating.objects.filter(bot_id=bot_id).values_list("preset", flat=True)):
        sync_board(preset, [bot_id])


def sync_board(preset: str, bot_ids: list[int] | None = None) -> int:
    """Which row stands for each bot on the preset's leaderboard (``Rating.is_current``): its current version's,
    once that is rated; until then its newest rated earlier version's, so a new version (a comment changed)
    does not drop a bot off the board for the games it needs to be rated. The rows that changed."""
    rows = Rating.objects.filter(preset=preset, bot__kind=Bot.Kind.BOT)
    if bot_ids is not None:
        rows = rows.filter(bot_id__in=bot_ids)
    by_bot: dict[int, list[tuple[int, int, int, bool, bool]]] = {}
    for pk, bot_id, number, current_number, rated, flagged in rows.values_list(
            "pk", "bot_id", "version__number", "bot__current_version__number", "official", "is_current"):
        by_bot.setdefault(bot_id, []).append((pk, number, current_number or 0, rated is not None, flagged))
    on, off = [], []
    for versions in by_bot.values():
        current = [v for v in versions if v[1] == v[2]]
        earlier_rated = sorted((v for v in versions if v[3] and v[1] < v[2]), key=lambda v: v[1])
        if current and (current[0][3] or not earlier_rated):
            chosen = current[0][0]
        elif earlier_rated:
            chosen = earlier_rated[-1][0]
        else:
            chosen = None  # no current version rated or not: nothing of this bot on the board
        on += [v[0] for v in versions if v[0] == chosen and not v[4]]
        off += [v[0] for v in versions if v[0] != chosen and v[4]]
    if on:
        Rating.objects.filter(pk__in=on).update(is_current=True)
    if off:
        Rating.objects.filter(pk__in=off).update(is_current=False)
    return len(on) + len(off)


def record_ranked_match(match: Match, seats: list[Seat]) -> None:
    """A finish hook: live ratings and W/D/L counters of every version in a ranked match."""
    if not match.ranked:
        return
    seats = sorted(seats, key=lambda s: s.seat)
    teams = (match.result or {}).get("teams") or [[s.seat] for s in seats]
    ranks = [s.rank for s in seats if s.rank is not None]
    assert len(ranks) == len(seats), "a finished match ranks every seat"
    version_of = [s.version for s in seats]
    sides_of: dict[int, set[int]] = {}
    for side, team in enumerate(teams):
        for seat in team:
            sides_of.setdefault(version_of[seat].pk, set()).add(side)
    ratings = _locked_ratings(version_of, match.preset)
    skills = {pk: live.Skill(r.live_mu, r.live_sigma) for pk, r in ratings.items()}
    updated = live.rate_match(skills, [v.pk for v in version_of], ranks, teams)
    scores = side_scores(ranks, teams)
    now = timezone.now()
    for pk, rating in ratings.items():
        if len(sides_of[pk]) != 1:
            continue  # it met itself: no result for it in this match
        if pk in updated:
            rating.live_mu, rating.live_sigma = updated[pk].mu, updated[pk].sigma
        score = scores[next(iter(sides_of[pk]))]
        rating.games += 1
        rating.wins += score > 0.5
        rating.draws += score == 0.5
        rating.losses += score < 0.5
        rating.score += score
        rating.last_played = now
        rating.save()
    _refit_when_due(match.preset)


def _refit_when_due(preset: str) -> None:
    """Queue a refit once REFIT_EVERY ranked matches are past the last one, unless one is pending already."""
    if RefitRequest.objects.filter(preset=preset, requested__isnull=False).exists():
        return  # the refit waiting will see this match (and no row is locked for it)
    last = Refit.objects.filter(preset=preset).aggregate(last=Max("last_match"))["last"] or 0
    unseen = Match.objects.filter(preset=preset, ranked=True, status=Match.Status.FINISHED, pk__gt=last)
    if unseen.count() >= REFIT_EVERY and request_refit(preset):
        transaction.on_commit(lambda: _queue_refit(preset))


def request_refit(preset: str) -> bool:
    """Mark the preset's refit as pending; True only for the one caller whose conditional update did it (the
    caller that should publish it). Inside a result's transaction, the mark commits with the result or not at
    all; a concurrent caller waits for that transaction, then finds the mark set."""
    RefitRequest.objects.bulk_create([RefitRequest(preset=preset)], ignore_conflicts=True)
    return bool(RefitRequest.objects.filter(preset=preset, requested__isnull=True).update(requested=timezone.now()))


def _pending_request(preset: str) -> datetime | None:
    """When the preset's pending refit was queued (None: none is pending). Read before a refit reads the
    matches, so the refit clears only a request it saw; one made while it runs stays pending."""
    return RefitRequest.objects.filter(preset=preset).values_list("requested", flat=True).first()


def _clear_request(preset: str, requested: datetime | None) -> None:
    if requested is not None:
        RefitRequest.objects.filter(preset=preset, requested=requested).update(requested=None)


# The task by name (ratings.tasks imports this module): Celery resolves it to the registered task.
REFIT = app.signature("ratings.tasks.refit")


def _queue_refit(preset: str) -> None:
    enqueue(REFIT, (preset,), queue="maintenance", logger=log, what=f"queue the refit of {preset}",
            fallback="the periodic refit will do it")


def live_elo(version_ids: list[int], preset: str) -> dict[int, float]:
    """For matchmaking: each version's live rating on the Elo scale (versions never rated are absent)."""
    rows = Rating.objects.filter(version_id__in=version_ids, preset=preset).values_list("version_id", "live_mu")
    return {pk: live.to_elo(mu) for pk, mu in rows}


def ranked_outcomes(preset: str) -> tuple[Outcomes, int, int]:
    """Every finished ranked match of the preset as pairwise outcomes (built straight from the seat rows,
    keyed by match id so none counts twice), the number of matches and the highest match id."""
    from arena.games.seating import layout
    from ratings.outcomes import Outcomes

    _, teams = layout(preset, {})
    team_of_seat = {seat: k for k, team in enumerate(teams) for seat in team}
    rows = (Seat.objects.filter(match__preset=preset, match__ranked=True, match__status=Match.Status.FINISHED)
            .order_by("match_id", "seat").values_list("match_id", "seat", "version_id", "rank",
                                                      "match__duplicate_set"))
    match_ids, players, ranks, team, sets = [], [], [], [], []
    for match_id, seat, version_id, rank, duplicate_set in rows.iterator(chunk_size=50_000):
        match_ids.append(match_id)
        players.append(version_id)
        ranks.append(rank)
        team.append(team_of_seat[seat])
        sets.append(str(duplicate_set))
    outcomes = Outcomes.from_seats(match_ids, players, ranks, team, sets)
    return outcomes, len(set(match_ids)), max(match_ids, default=0)


def refit_requested(preset: str) -> Refit | None:
    """The queued refit (the task): refit if ranked results arrived since the last refit, else nothing (a
    message delivered twice, or after refit_due did the work); either way the pending request is cleared."""
    requested = _pending_request(preset)
    if preset not in presets_needing_refit([preset]):
        _clear_request(preset, requested)
        return None
    return _refit(preset, requested)


def refit_preset(preset: str) -> Refit:
    """The official ratings of a preset, from scratch over all its ranked matches (warm started); clears the
    preset's pending refit request, if one was made before it started."""
    return _refit(preset, _pending_request(preset))


def _refit(preset: str, requested: datetime | None) -> Refit:
    from ratings.fit import fit

    started = time.perf_counter()
    outcomes, matches, last_match = ranked_outcomes(preset)
    previous = {version_id: official for version_id, official in Rating.objects.filter(
        preset=preset, official__isnull=False).values_list("version_id", "official") if official is not None}
    fitted = fit(outcomes, previous)
    now = timezone.now()
    with transaction.atomic():
        refit = Refit.objects.create(preset=preset, matches=matches, last_match=last_match, rated=0,
                                     seconds=0.0)
        # in version-id order, as recording a result locks them (docs/matches.md, "Lock order")
        # people's rows have a fit of their own (ratings.people); this one never touches them
        rows = list(Rating.objects.select_for_update().filter(preset=preset).exclude(bot__kind=Bot.Kind.PERSON)
                    .order_by("version_id"))
        snapshots = []
        for rating in rows:
            value = fitted.rating(rating.version_id)
            if value is None:
                rating.official = rating.official_low = rating.official_high = None
                rating.board = UNRATED_BOARD
                rating.provisional = True
            else:
                rating.official, rating.official_low, rating.official_high = value.rating, value.low, value.high
                rating.board = value.rating
                rating.provisional = value.provisional
                snapshots.append(RatingSnapshot(refit=refit, version_id=rating.version_id, bot_id=rating.bot_id,
                                                preset=preset, at=now, rating=value.rating, low=value.low,
                                                high=value.high, games=value.games))
            rating.fitted_at = now
            rating.los_next = None
        _set_los_to_next(preset, rows, fitted)
        Rating.objects.bulk_update(rows, ["official", "official_low", "official_high", "board", "provisional",
                                          "fitted_at", "los_next"], batch_size=2000)
        RatingSnapshot.objects.bulk_create(snapshots, batch_size=2000)
        sync_board(preset)  # a new version rated now takes its bot's place on the board from the previous one
        refit.rated = len(snapshots)
        refit.seconds = time.perf_counter() - started
        refit.save(update_fields=["rated", "seconds"])
        _clear_request(preset, requested)
    return refit


def _set_los_to_next(preset: str, rows: Iterable[Rating], fitted) -> None:
    current = set(Bot.objects.filter(ratings__preset=preset).values_list("current_version_id", flat=True))
    board = sorted((r for r in rows if r.version_id in current and r.official is not None),
                   key=lambda r: -(r.official or 0.0))
    neighbours = list(itertools.pairwise(board))
    for (above, _), value in zip(neighbours, fitted.los_many([(a.version_id, b.version_id) for a, b in neighbours]),
                                 strict=True):
        above.los_next = value


def presets_needing_refit(presets: list[str] | None = None) -> list[str]:
    """The presets (of ``presets``, default all) with finished ranked matches their last refit did not see."""
    refits, matches = Refit.objects.all(), Match.objects.filter(ranked=True, status=Match.Status.FINISHED)
    if presets is not None:
        refits, matches = refits.filter(preset__in=presets), matches.filter(preset__in=presets)
    last = dict(refits.values("preset").annotate(last=Max("last_match")).values_list("preset", "last"))
    newest = matches.values("preset").annotate(newest=Max("pk")).values_list("preset", "newest")
    return [preset for preset, newest in newest if newest > last.get(preset, 0)]


def leaderboard(preset: str):
    """Every bot on the ladder on the preset's scale (its current version, or its last rated one while the
    current one is being rated: ``sync_board``): fitted first (best first), then by live rating. A bot that
    left the ladder (deactivated, suspended, its owner's account suspended) leaves the board at once."""
    return (Rating.objects.filter(preset=preset, is_current=True, bot__kind=Bot.Kind.BOT, bot__active=True,
                                  bot__suspended_reason="", bot__owner__is_active=True)
            .select_related("bot__owner", "bot__current_version", "version")
            .order_by("-board", "-live_mu", "id"))
