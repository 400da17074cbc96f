"""Version tests: a candidate version against a base version in unranked duplicate pairs until a sequential
probability ratio test decides (fishtest's SPRT on game pairs; statistics in docs/tournaments.md).

Each duplicate pair is a duplicate set of a two-sided preset: the same deal twice, seats swapped. When both
of its games are in, the candidate's two game scores become one pentanomial count, the LLR is recomputed,
and the test stops at a bound (or at ``max_pairs``). Pairs are kept ``parallel`` at a time in the queue.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from arena.games.seating import layout, side_scores
from arena.referee import TimeControl
from bots.models import BotVersion
from config.errors import ActionError
from matches.actions import create_duplicate_set, create_match, seed_to_play_again
from matches.models import Match, Seat
from tournaments.models import TestSet, VersionTest
from tournaments.pairing import sprt


class VersionTestError(ActionError):
    """A version test cannot be started as asked (the message says why; ``field`` names the input)."""


def check_test(owner, candidate: BotVersion, base: BotVersion, preset: str, elo0: float, elo1: float, alpha: float,
               beta: float) -> None:
    if candidate.bot.owner_id != owner.pk:
        raise VersionTestError("the candidate must be a version of one of your bots", "candidate")
    if candidate.pk == base.pk:
        raise VersionTestError("the candidate and the base are the same version", "base")
    if candidate.bot.game != base.bot.game:
        raise VersionTestError("the base plays another game", "base")
    for version, field in ((candidate, "candidate"), (base, "base")):
        if version.status != BotVersion.Status.READY:
            raise VersionTestError(f"{version.label} has not passed validation", field)
    from arena.games import all_presets

    if preset not in all_presets() or all_presets()[preset][0] != candidate.bot.game:
        raise VersionTestError(f"{preset!r} is not a preset of {candidate.bot.game}", "preset")
    if len(layout(preset, {})[1]) != 2:
        raise VersionTestError(f"{preset} is not a two-sided game; a version test needs two sides", "preset")
    if elo0 >= elo1:
        raise VersionTestError("elo0 must be below elo1", "elo1")
    try:
        sprt.bounds(alpha, beta)
    except ValueError as err:
        raise VersionTestError(str(err), "alpha") from None


def do_start_test(owner, candidate: BotVersion, base: BotVersion, preset: str, *, elo0: float = 0.0,
                  elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05, max_pairs: int = 2000,
                  parallel: int = 4) -> VersionTest:
    check_test(owner, candidate, base, preset, elo0, elo1, alpha, beta)
    with transaction.atomic():
        test = VersionTest.objects.create(owner=owner, candidate=candidate, base=base, preset=preset, elo0=elo0,
                                          elo1=elo1, alpha=alpha, beta=beta, max_pairs=max_pairs, parallel=parallel,
                                          counts=[0, 0, 0, 0, 0])
        for _ in range(min(parallel, max_pairs)):
            _queue_pair(test)
    return test


def _queue_pair(test: VersionTest) -> None:
    matches = create_duplicate_set(kind=Match.Kind.CHALLENGE, preset=test.preset, ranked=False,
                                   requested_by=test.owner, versions=[test.candidate, test.base])
    TestSet.objects.create(test=test, duplicate_set=matches[0].duplicate_set)


def record_test_match(match: Match, seats: list[Seat]) -> None:
    """A finish hook (inside the result transaction): count a finished pair once, update the LLR, decide."""
    link = TestSet.objects.select_for_update().filter(duplicate_set=match.duplicate_set, counted=False).first()
    if link is None:
        return
    pair = list(Match.objects.filter(duplicate_set=match.duplicate_set, status=Match.Status.FINISHED)
                .order_by("rotation", "pk"))
    by_rotation = {m.rotation: m for m in pair}
    if len(by_rotation) < 2:
        return
    test = VersionTest.objects.select_for_update().get(pk=link.test_id)
    scores = []
    for m in by_rotation.values():
        rows = sorted(Seat.objects.filter(match=m), key=lambda s: s.seat)
        _, teams = layout(m.preset, m.overrides)
        side = {seat: k for k, team in enumerate(teams) for seat in team}
        mine = next(side[s.seat] for s in rows if s.version_id == test.candidate_id)
        scores.append(side_scores([s.rank for s in rows], teams)[mine])
    link.counted = True
    link.save(update_fields=["counted"])
    counts = [a + b for a, b in zip(test.counts or [0] * 5, sprt.pentanomial([tuple(scores)]), strict=True)]
    test.counts = counts
    state = sprt.sprt(counts, test.elo0, test.elo1, test.alpha, test.beta)
    test.llr = state.llr
    if test.status == VersionTest.Status.RUNNING:
        if state.decision == sprt.H1:
            _stop(test, VersionTest.Status.H1)
        elif state.decision == sprt.H0:
            _stop(test, VersionTest.Status.H0)
        elif sum(counts) + _in_flight(test) < test.max_pairs:
            _queue_pair(test)
        elif sum(counts) >= test.max_pairs:
            _stop(test, VersionTest.Status.STOPPED)
    test.save()


def _in_flight(test: VersionTest) -> int:
    return TestSet.objects.filter(test=test, counted=False).count()


def _stop(test: VersionTest, status: str) -> None:
    from matches.actions import cancel

    test.status, test.finished = status, timezone.now()
    sets = TestSet.objects.filter(test=test, counted=False).values("duplicate_set")
    for m in Match.objects.filter(duplicate_set__in=sets, status=Match.Status.QUEUED):
        cancel(m, "the version test has decided")


def do_stop_test(test: VersionTest) -> VersionTest:
    with transaction.atomic():
        test = VersionTest.objects.select_for_update().get(pk=test.pk)
        if test.status == VersionTest.Status.RUNNING:
            _stop(test, VersionTest.Status.STOPPED)
            test.save()
    return test


def replace_failed_match(match: Match) -> None:
    """A failure hook: a test game that could not be played is played again, never counted as a loss."""
    if not TestSet.objects.filter(duplicate_set=match.duplicate_set, counted=False).exists():
        return
    seats = [s.version for s in match.seats.select_related("version").order_by("seat")]
    create_match(kind=match.kind, preset=match.preset, overrides=match.overrides, seat_versions=seats,
                 base_seed=seed_to_play_again(match), duplicate_set=match.duplicate_set, rotation=match.rotation,
                 requested_by=match.requested_by, time_control=TimeControl(**match.time_control))


def progress(test: VersionTest) -> dict:
    lower, upper = sprt.bounds(test.alpha, test.beta)
    return {"llr": round(test.llr, 4), "lower": round(lower, 4), "upper": round(upper, 4),
            "pairs": sum(test.counts or []), "counts": test.counts, "in_flight": _in_flight(test),
            "status": test.status}
