"""Read-only questions about ratings and ranked results, shared by the API and the pages."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db.models import OuterRef, Subquery

from arena.games.seating import layout, side_scores
from bots.models import Bot
from matches.models import Match, Seat
from ratings.models import RatingSnapshot


def head_to_head(a: int, b: int, preset: str) -> dict[str, int | float | None]:
    _, teams = layout(preset, {})
    side_of_seat = {seat: side for side, team in enumerate(teams) for seat in team}
    both = Seat.objects.filter(version__bot_id=b, match__preset=preset, match__ranked=True,
                               match__status=Match.Status.FINISHED).values("match_id")
    rows = (Seat.objects.filter(match_id__in=both, version__bot_id__in=[a, b])
            .values_list("match_id", "seat", "version__bot_id", "rank").order_by("match_id", "seat"))
    by_match: dict[int, dict[int, tuple[int, int]]] = {}
    for match_id, seat, bot_id, rank in rows:
        if rank is not None:  # a finished match ranks every seat
            by_match.setdefault(match_id, {})[bot_id] = (side_of_seat[seat], rank)
    tally = {"matches": 0, "a_wins": 0, "draws": 0, "b_wins": 0}
    points = 0.0
    for seats in by_match.values():
        if a not in seats or b not in seats or seats[a][0] == seats[b][0]:
            continue  # only one of them played, or they were partners
        tally["matches"] += 1
        (_, rank_a), (_, rank_b) = seats[a], seats[b]
        score = side_scores([rank_a, rank_b], [[0], [1]])[0]
        points += score
        tally["a_wins" if score == 1 else "draws" if score == 0.5 else "b_wins"] += 1
    percent = round(100 * points / tally["matches"], 1) if tally["matches"] else None
    return {**tally, "a_score_percent": percent}


def ratings_at(preset: str, bot_ids: Iterable[int], at: datetime) -> dict[int, float]:
    """Each bot's official rating on the preset as it stood at ``at``: the newest snapshot taken at or before
    then (any of its versions, as its rating history plots them); bots not yet rated then are absent. One
    query, a probe of ``snapshot_bot_idx`` per bot."""
    then = (RatingSnapshot.objects.filter(bot=OuterRef("pk"), preset=preset, at__lte=at)
            .order_by("-at", "-id").values("rating")[:1])
    rows = Bot.objects.filter(pk__in=list(bot_ids)).annotate(then=Subquery(then)).values_list("pk", "then")
    return {pk: rating for pk, rating in rows if rating is not None}
