"""People's ratings: the person at a live table gets a rating per preset, on the bots' own scale, in a list
of its own (docs/ratings.md, "People").

Casual matches are unranked: they never move a bot's rating. They rate the person, in the same two layers
as bots:

- **live**: after every finished casual match, the person's OpenSkill value moves against the bots' current
  live values, which are read and left alone (the person's row is the only one locked and written);
- **official**: a people's refit fits every ranked match of the preset *and* every finished casual match
  together, and keeps only the people's values. The ladder pins the bots' scale (thousands of matches), so
  a person's number is directly comparable with a bot's: "the best Bura player here" against "the best
  Bura bot". The bots' official values stay the bots' own fit's.

A person's match with a bot of their own at the table (as opponent or partner, sandboxed or remote) is
never rated: the owner controls both sides, and a bot that loses on purpose (or tells its owner its hand)
would farm the person's rating. Neither layer reads such a match.

A people's refit is recorded as a ``Refit`` of the preset named ``people:<preset>``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone

from arena.games.seating import layout, side_scores
from bots.models import Bot
from matches.models import Match, Seat
from ratings import live
from ratings.models import Rating, Refit

if TYPE_CHECKING:  # imported where a fit runs: scipy costs every process that loads the site 0.2 s
    from ratings.outcomes import Outcomes

PEOPLE = "people:"
UNRATED_BOARD = -1e12


def is_person(seat: Seat) -> bool:
    return seat.version.bot.kind == Bot.Kind.PERSON


def plays_own_bot(seats: list[Seat]) -> bool:
    """Whether a person at this table sits with a bot of their own (the match is never rated)."""
    people = {s.version.bot.owner_id for s in seats if is_person(s)}
    return any(s.version.bot.owner_id in people for s in seats if not is_person(s))


def own_bot_matches():
    """The casual matches with a person and a bot of that person's at one table, as a queryset of ids."""
    own_bot = Seat.objects.filter(match_id=OuterRef("match_id"), version__bot__kind=Bot.Kind.BOT,
                                  version__bot__owner_id=OuterRef("version__bot__owner_id"))
    return (Seat.objects.filter(match__kind=Match.Kind.CASUAL, version__bot__kind=Bot.Kind.PERSON)
            .filter(Exists(own_bot)).values("match_id"))


def record_casual_match(match: Match, seats: list[Seat]) -> None:
    """A finish hook for casual matches: the people's live ratings and counters, once per match (in the
    transaction that records its result); nothing for a person playing a bot of their own."""
    seats = sorted(seats, key=lambda s: s.seat)
    people = {s.version_id for s in seats if is_person(s)}
    if not people or not match.result or match.result.get("ended_by") not in ("rules", "forfeit", "decision-limit"):
        return
    if plays_own_bot(seats):
        return
    teams = match.result.get("teams") or [[s.seat] for s in seats]
    ranks = [s.rank for s in seats]
    if any(rank is None for rank in ranks):
        return
    versions = [s.version_id for s in seats]
    bots = {v for v in versions if v not in people}
    skills = {r.version_id: live.Skill(r.live_mu, r.live_sigma)
              for r in Rating.objects.filter(preset=match.preset, version_id__in=bots)}
    for version_id in bots - set(skills):
        skills[version_id] = live.initial()  # a bot not rated yet on this preset stands at the start value
    rows = _locked_people_rows(match.preset, sorted(people), {s.version_id: s.version.bot_id for s in seats})
    skills.update({pk: live.Skill(r.live_mu, r.live_sigma) for pk, r in rows.items()})
    updated = live.rate_match(skills, versions, ranks, teams)
    scores = side_scores(ranks, teams)
    side_of = {seat: k for k, team in enumerate(teams) for seat in team}
    now = timezone.now()
    for s in seats:
        row = rows.get(s.version_id)
        if row is None:
            continue
        if s.version_id in updated:
            row.live_mu, row.live_sigma = updated[s.version_id].mu, updated[s.version_id].sigma
        score = scores[side_of[s.seat]]
        row.games += 1
        row.wins += score > 0.5
        row.draws += score == 0.5
        row.losses += score < 0.5
        row.score += score
        row.last_played = now
        row.save()
        rows.pop(s.version_id)  # a person counts once per match


def _locked_people_rows(preset: str, versions: list[int], bot_of: dict[int, int]) -> dict[int, Rating]:
    start = live.initial()
    Rating.objects.bulk_create([Rating(version_id=v, bot_id=bot_of[v], preset=preset, live_mu=start.mu,
                                       live_sigma=start.sigma, is_current=False) for v in versions],
                               ignore_conflicts=True)
    rows = Rating.objects.select_for_update().filter(version_id__in=versions, preset=preset).order_by("version_id")
    return {r.version_id: r for r in rows}


def rated_outcomes(preset: str) -> tuple[Outcomes, int, int]:
    """Every finished ranked match of the preset and every finished casual one but a person's against their
    own bot, as the fit reads them."""
    from ratings.outcomes import Outcomes

    _, teams = layout(preset, {})
    team_of_seat = {seat: k for k, team in enumerate(teams) for seat in team}
    casual = Match.objects.filter(kind=Match.Kind.CASUAL, preset=preset, status=Match.Status.FINISHED)
    # Read before the rows, for the marker only: one finishing in between is left out of the rows (by the
    # rows' own subquery) but not marked as seen, so it brings one more refit, which leaves it out again.
    unrated = set(casual.filter(pk__in=own_bot_matches()).values_list("pk", flat=True))
    rows = (Seat.objects.filter(Q(match__ranked=True) | Q(match__kind=Match.Kind.CASUAL), match__preset=preset,
                                match__status=Match.Status.FINISHED, rank__isnull=False)
            .exclude(match_id__in=own_bot_matches())
            .order_by("match_id", "seat").values_list("match_id", "seat", "version_id", "rank",
                                                      "match__duplicate_set"))
    match_ids, players, ranks, team, sets = [], [], [], [], []
    for match_id, seat, version_id, rank, duplicate_set in rows.iterator(chunk_size=50_000):
        match_ids.append(match_id)
        players.append(version_id)
        ranks.append(rank)
        team.append(team_of_seat[seat])
        sets.append(str(duplicate_set))
    newest_casual = max(casual.filter(pk__in=set(match_ids)).aggregate(n=Max("pk"))["n"] or 0, *unrated, 0)
    # The marker is the newest casual match seen (an unrated one too, or it would call for a refit forever):
    # a casual match ends minutes after it was made, when ladder matches with higher ids have finished, and
    # it must still bring the next people's refit.
    return Outcomes.from_seats(match_ids, players, ranks, team, sets), len(set(match_ids)), newest_casual


def refit_people(preset: str) -> Refit:
    """The people's official ratings on the preset (bots and people fitted together; the people's kept)."""
    from ratings.fit import fit

    started = time.perf_counter()
    outcomes, matches, last_match = rated_outcomes(preset)
    previous = dict(Rating.objects.filter(preset=preset, official__isnull=False).values_list("version_id", "official"))
    fitted = fit(outcomes, previous)
    now = timezone.now()
    with transaction.atomic():
        refit = Refit.objects.create(preset=PEOPLE + preset, matches=matches, last_match=last_match, rated=0,
                                     seconds=0.0)
        rows = list(Rating.objects.select_for_update().filter(preset=preset, bot__kind=Bot.Kind.PERSON)
                    .order_by("version_id"))
        for row in rows:
            value = fitted.rating(row.version_id)
            if value is None:
                row.official = row.official_low = row.official_high = None
                row.board, row.provisional = UNRATED_BOARD, True
            else:
                row.official, row.official_low, row.official_high = value.rating, value.low, value.high
                row.board, row.provisional = value.rating, value.provisional
                refit.rated += 1
            row.fitted_at = now
        Rating.objects.bulk_update(rows, ["official", "official_low", "official_high", "board", "provisional",
                                          "fitted_at"], batch_size=2000)
        refit.seconds = time.perf_counter() - started
        refit.save(update_fields=["rated", "seconds"])
    return refit


def presets_needing_people_refit() -> list[str]:
    """The presets with finished casual matches their last people's refit did not see."""
    last = {preset.removeprefix(PEOPLE): n for preset, n in Refit.objects.filter(preset__startswith=PEOPLE)
            .values("preset").annotate(n=Max("last_match")).values_list("preset", "n")}
    newest = (Match.objects.filter(kind=Match.Kind.CASUAL, status=Match.Status.FINISHED).values("preset")
              .annotate(newest=Max("pk")).values_list("preset", "newest"))
    return [preset for preset, n in newest if n > last.get(preset, 0)]


def people_board(preset: str, limit: int = 10) -> list[Rating]:
    """The preset's people, best first: fitted (official) first, then by live rating."""
    return list(Rating.objects.filter(preset=preset, bot__kind=Bot.Kind.PERSON).select_related("bot__owner")
                .order_by("-board", "-live_mu", "id")[:limit])
