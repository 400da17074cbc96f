"""The match page's analyses: the "Analyse" buttons and their POST, the summary table with par, and the replay
viewer's marks (GET /matches/<id>/analysis/).

Who may ask for and read which seat's analysis is ``analysis.access``'s (the replay's own rules: nothing under
embargo, a validation match's seats to their owner only); the cache, the rate limit and the queue are
``analysis.actions``'.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from analysis import queries
from analysis.access import check_analysable
from analysis.actions import TooManyAnalyses, do_request_analysis
from analysis.models import Analysis
from config.api import error_body
from config.errors import ActionError
from matches.models import Match, Seat


@login_required
@require_POST
def analyse(request, pk: int):
    """POST /matches/<id>/analyse/ with ``seat``: queue the seat's analysis (or find it made), back to the page."""
    raw = request.POST.get("seat", "")
    back = reverse("match", args=[pk]) + "#analysis"
    if not raw.isdigit():
        messages.error(request, f"seat must be a seat number, not {raw!r}")
        return redirect(back)
    try:
        row, queued = do_request_analysis(request.user, pk, int(raw))
    except TooManyAnalyses as err:
        messages.error(request, str(err))
        return redirect(back)
    except ActionError as err:  # not there for this user, or under embargo: the 404 page, saying why
        messages.error(request, str(err))
        return render(request, "404.html", status=404)
    if queued:
        messages.success(request, f"The analysis of seat {row.seat} is queued: it runs after the matches waiting "
                                  f"for a worker, and this page shows it when it is done.")
    else:
        messages.info(request, f"Seat {row.seat} was already analysed or is being analysed ({row.status}): "
                               f"nothing was counted against your analyses of the hour.")
    return redirect(back)


def analysis_json(request, pk: int):
    """GET /matches/<id>/analysis/ — the analyses of the seats the user may read, for the replay viewer."""
    match = Match.objects.filter(pk=pk).first()
    seats = list(Seat.objects.filter(match_id=pk).select_related("version__bot").order_by("seat"))
    try:
        readable = check_analysable(request.user, match, seats)
    except ActionError as err:
        return JsonResponse(error_body(err.code, str(err)), status=err.status)
    found = [a for a in Analysis.objects.filter(match_id=pk, budget=settings.ANALYSIS_BUDGET) if a.seat in readable]
    return JsonResponse(queries.viewer_payload(found))


def page_context(user, match: Match, seats: list[Seat], embargo: str | None) -> dict | None:
    """The match page's analysis table: one row per seat the user may read, with its analysis (if any), its
    result against par, and whether the user may ask for it; None when the match cannot be analysed now."""
    if embargo or match.status != Match.Status.FINISHED or not match.replay_sha256:
        return None
    try:
        readable = check_analysable(user, match, seats)
    except ActionError:
        return None
    made = queries.of_match(match, settings.ANALYSIS_BUDGET)
    rows = []
    for seat in seats:
        if seat.seat not in readable:
            continue
        row = made.get(seat.seat)
        rows.append({"seat": seat, "analysis": row, "par": par_words(seat, row),
                     "can_request": user.is_authenticated and (row is None or row.status == Analysis.Status.FAILED
                                                               or row.is_stale or row.waits_long)})
    pending = any(a.status in (Analysis.Status.QUEUED, Analysis.Status.RUNNING) for s, a in made.items()
                  if s in readable)
    return {"rows": rows, "budget": settings.ANALYSIS_BUDGET, "pending": pending,
            "limit": settings.ANALYSES_PER_HOUR}


def par_words(seat: Seat, row: Analysis | None) -> dict | None:
    """The seat's points against par: the difference, which way is better, and what par was played against."""
    if row is None or row.status != Analysis.Status.DONE or not row.par or seat.score is None:
        return None
    par = row.par
    penalty = par.get("points_kind") == "penalty"
    better = (par["points"] - seat.score) if penalty else (seat.score - par["points"])
    return {"par": par["points"], "points": seat.score, "better": better, "margin": abs(better),
            "penalty": penalty, "bot": par["bot"], "iterations": par["iterations"], "exact": par["exact"],
            "stand_ins": par.get("stand_ins", [])}
