"""Who won a match, in words: the sides (a team's seats together), their places and points, and a headline.

Worked out from the match's prefetched seats and its stored result (which names the teams), so a list page
adds no query per match.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from matches.access import detail_visible
from matches.models import Match, Seat


def number(value: float | None) -> int | float | None:
    """Points as the rules count them: 12, not 12.0 (a fraction stays one)."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else round(value, 2)


def _points_text(points: Any, penalty: bool) -> str:
    if points is None:
        return ""
    word = "penalty point" if penalty else "point"
    return f"{points} {word}{'' if points == 1 else 's'}"


# What a forfeited seat did, in words (arena.protocol's verdicts; "aborted" is nobody's forfeit).
FORFEIT_WORDS = {"timeout": "ran out of time", "crash": "crashed", "protocol-error": "broke the protocol",
                 "illegal-action": "made an illegal move", "sandbox-failure": "could not be started",
                 "resigned": "resigned"}


def forfeit_of(seat: Seat, mine: bool) -> str:
    """"forfeit: your bot crashed at its decision 4 (exited: the bot exited with code 1 …)": who, what, when."""
    who = "you" if mine and seat.version.bot.is_person else "your bot" if mine else seat.version.bot.name
    what = FORFEIT_WORDS.get(seat.verdict, seat.verdict)
    whose = "your" if who == "you" else "its"
    when = f"at {whose} decision {seat.decisions + 1}" if seat.decisions else f"before {whose} first move"
    why = f" ({seat.code}{': ' + seat.detail if seat.detail else ''})" if seat.code or seat.detail else ""
    return f"forfeit: {who} {what} {when}{why}"


def viewer_result(sides: list[dict[str, Any]]) -> str:
    """How the match went for the viewer's own side: won, lost, draw; "other" when no side is theirs (a list
    colours a result by this, never by whoever happened to win)."""
    mine = [side for side in sides if side["mine"]]
    if not mine:
        return "other"
    if all(side["rank"] == 1 for side in sides):
        return "draw"
    return "won" if any(side["won"] for side in mine) else "lost"


def outcome(match: Match, viewer_id: int | None = None) -> dict[str, Any] | None:
    """The sides of a finished match, best first, and a headline; None while it is not finished."""
    if match.status != Match.Status.FINISHED:
        return None
    seats = sorted(match.seats.all(), key=lambda s: s.seat)
    if not seats or any(s.rank is None for s in seats):
        return None
    result = match.result or {}
    teams = result.get("teams") or [[s.seat] for s in seats]
    by_seat = {s.seat: s for s in seats}
    penalty = result.get("points_kind") == "penalty"
    sides = []
    for team in teams:
        members = [by_seat[s] for s in team if s in by_seat]
        if not members:
            continue
        names: list[str] = []
        for seat in members:
            if seat.version.bot.name not in names:
                names.append(seat.version.bot.name)
        sides.append({"bots": names, "seats": [s.seat for s in members], "rank": members[0].rank,
                      "points": number(members[0].score),
                      "mine": viewer_id is not None and any(s.version.bot.owner_id == viewer_id for s in members)})
    sides.sort(key=lambda side: side["rank"])
    forfeits = [f"{s.version.bot.name} (seat {s.seat}) {s.verdict}" for s in seats if s.verdict not in ("", "ok")]
    forfeited = next((s for s in seats if s.verdict not in ("", "ok", "aborted")), None)
    for side in sides:
        side["name"] = " + ".join(side["bots"])
        side["won"] = side["rank"] == 1 and not all(other["rank"] == 1 for other in sides)
    forfeit = None if forfeited is None else forfeit_of(
        forfeited, viewer_id is not None and forfeited.version.bot.owner_id == viewer_id)
    return {"sides": sides, "penalty": penalty, "ended_by": result.get("ended_by", ""), "forfeits": forfeits,
            "forfeit": forfeit, "viewer_result": viewer_result(sides),
            "headline": headline(sides, penalty), "score": " – ".join(str(s["points"]) for s in sides
                                                                    if s["points"] is not None)}


def headline(sides: list[dict[str, Any]], penalty: bool) -> str:
    """"greedy-bura beat random-bura by 8 points (12 to 4)", "a draw at 6 points each", or for three sides
    and more "A won with 5 points; B second with 3, C third with 1"."""
    if len(sides) < 2:
        return ""
    winners = [s for s in sides if s["rank"] == 1]
    if len(winners) == len(sides):
        same = len({s["points"] for s in sides}) == 1 and sides[0]["points"] is not None
        if same:
            return f"A draw at {_points_text(sides[0]['points'], penalty)} each"
        known = [str(s["points"]) for s in sides if s["points"] is not None]
        return f"A draw ({' to '.join(known)})" if known else "A draw"
    if len(sides) == 2:
        first, second = sides
        said = f"{first['name']} beat {second['name']}"
        if first["points"] is None or second["points"] is None:
            return said
        margin = number(abs(first["points"] - second["points"]))
        if margin == 0:  # ranked apart on equal points: a tie-break of the rules, or a forfeit
            return f"{said} on equal points ({first['points']} each)"
        return f"{said} by {_points_text(margin, penalty)} ({first['points']} to {second['points']})"
    places = ["first", "second", "third", "fourth", "fifth", "sixth"]
    parts = []
    for side in sides:
        place = places[side["rank"] - 1] if side["rank"] <= len(places) else f"#{side['rank']}"
        points = f" with {_points_text(side['points'], penalty)}" if side["points"] is not None else ""
        parts.append(f"{side['name']} {'won' if side['rank'] == 1 else place}{points}")
    return "; ".join(parts)


def recent_matches(queryset, limit: int = 20, viewer=None) -> list[Match]:
    """The newest matches of a queryset with their seats (two queries in all), each with its ``outcome``."""
    seats = Seat.objects.select_related("version__bot").order_by("seat")
    return with_outcomes(list(queryset.prefetch_related(Prefetch("seats", queryset=seats)).order_by("-id")[:limit]),
                         viewer)


def with_outcomes(matches: list[Match], viewer=None) -> list[Match]:
    """Each match (its seats prefetched) with its ``outcome`` for ``viewer``. A validation match's verdict detail
    (a bot's own stderr line, its crash) is its owner's alone (matches.access.detail_visible): it is blanked for
    anyone else before the forfeit is put in words."""
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    for match in matches:
        for seat in match.seats.all():
            seat.match = match  # what detail_visible reads, without a query
            if seat.detail and not detail_visible(viewer, seat):
                seat.detail = ""
        match.outcome = outcome(match, viewer_id)
    return matches
