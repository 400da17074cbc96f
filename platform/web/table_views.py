"""Live tables: a person sits down against a bot, plays from the table's page, and gets a rematch.

The page talks to the worker's referee only through the live relay (matches.live): it reads the protocol
lines sent to the person's seat and writes the person's answers as protocol lines. Everything it shows comes
from those lines, so it never holds more than the seat may see. An answer is checked here by the same rules
the referee applies (the match re-run from its seed and the actions played), so an illegal click gets the
rules' own reason and never costs the person the match; the referee checks it again all the same.
"""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena import protocol
from arena.games import new_match, resolve
from arena.games.base import IllegalAction
from arena.games.seating import layout
from arena.referee import MALFORMED_ACTION_ERRORS
from bots.models import Bot
from config.api import error_body
from matches import casual, live
from matches.models import Match

ANSWER_BYTES = 16 * 1024  # an action of the biggest Burraco meld is a few hundred bytes


def _person_seat(request, pk: int) -> tuple[Match, int]:
    """The match and the viewer's seat in it; 404 for anyone who is not its person."""
    match = get_object_or_404(Match, pk=pk, kind=Match.Kind.CASUAL)
    if not request.user.is_authenticated:
        raise Http404("no such table")
    for seat in match.seats.select_related("version__bot"):
        if seat.version.bot.is_person and seat.version.bot.owner_id == request.user.pk:
            return match, seat.seat
    raise Http404("no such table")


def _bot(name: str | None, field: str) -> Bot | None:
    if not name:
        return None
    bot = Bot.objects.select_related("current_version").filter(name__iexact=name, kind=Bot.Kind.BOT).first()
    if bot is None:
        raise casual.CasualError(f"no bot called {name!r}", field)
    return bot


@login_required
@require_POST
def table_start(request):
    """POST /play/ (opponent, preset, partner): sit down at a new table, or say why not."""
    try:
        opponent = _bot(request.POST.get("opponent"), "opponent")
        if opponent is None:
            raise casual.CasualError("choose a bot to play against", "opponent")
        match = casual.start_casual(request.user, opponent, request.POST.get("preset") or None,
                                    _bot(request.POST.get("partner"), "partner"))
    except casual.CasualError as err:
        messages.error(request, f"Could not sit down: {err}")
        return redirect(request.POST.get("back") if _safe_back(request.POST.get("back")) else "home")
    return redirect("table", pk=match.pk)


def _safe_back(url: str | None) -> bool:
    return bool(url) and url.startswith("/") and not url.startswith("//")


@login_required
@require_POST
def table_rematch(request, pk: int):
    match, _ = _person_seat(request, pk)
    try:
        again = casual.rematch(request.user, match)
    except casual.CasualError as err:
        messages.error(request, f"No rematch: {err}")
        return redirect("table", pk=match.pk)
    return redirect("table", pk=again.pk)


def table_page(request, pk: int):
    match, seat = _person_seat(request, pk)
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    return render(request, "web/table.html", {
        "match": match, "seat": seat, "seats": seats, "clock": casual.person_clock_words(),
        "teams": layout(match.preset, match.overrides)[1]})


def table_lines(request, pk: int):
    """GET /play/<id>/lines/?after=K — the seat's protocol lines from the K-th on, and the match's status."""
    match, seat = _person_seat(request, pk)
    try:
        after = max(0, int(request.GET.get("after", "0")))
    except ValueError:
        return JsonResponse(error_body("bad_request", "after must be a whole number"), status=400)
    try:
        lines, closed = live.seat_lines(live.live_id(match), seat, after)
    except (live.LiveUnavailable, *live.REDIS_ERRORS) as err:
        return JsonResponse(error_body("unavailable", f"the live relay is away: {err}"), status=503)
    return JsonResponse({"match": match.pk, "seat": seat, "status": match.status, "failure": match.failure,
                         "after": after, "lines": lines, "closed": closed, "now": round(time.time(), 3)})


def _refused(code: str, message: str, status: int = 400) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


@require_POST
def table_answer(request, pk: int):
    """POST /play/<id>/answer/ — one protocol line from the person: ``{"type": "ready"}`` or
    ``{"type": "action", "id": N, "action": {...}}``. Checked by the rules before the referee sees it."""
    match, seat = _person_seat(request, pk)
    if len(request.body) > ANSWER_BYTES:
        return _refused("too_large", f"an answer is at most {ANSWER_BYTES} bytes")
    try:
        message = protocol.decode(request.body)
    except protocol.ProtocolError as err:
        return _refused(err.code, err.detail)
    if match.status != Match.Status.RUNNING:
        return _refused("not_running", f"the match is {match.status}, not being played", 409)
    try:
        lines, closed = live.seat_lines(live.live_id(match), seat)
        if closed:
            return _refused("not_running", "the match is over", 409)
        if message.get("type") == "ready":
            if not any(entry["m"].get("type") == "hello" for entry in lines):
                return _refused("too_early", "the referee has not greeted this seat yet", 409)
            ready = {"type": "ready", "name": request.user.username[:protocol.MAX_NAME_CHARS]}
            if not live.answer(live.live_id(match), seat, None, protocol.encode(ready).rstrip(b"\n")):
                return _refused("not_your_turn", "this seat is ready already", 409)
            return JsonResponse({"ok": True})
        if message.get("type") != "action" or not isinstance(message.get("action"), dict):
            return _refused(protocol.UNEXPECTED_TYPE, 'send {"type": "ready"} or {"type": "action", "id": N, '
                                                      '"action": {...}}')
        request_open = live.open_request(lines)
        if request_open is None or message.get("id") != request_open["id"] or live.was_answered(
                live.live_id(match), seat, request_open["id"]):
            return _refused("not_your_turn", "that request is not open: it is not your move, or it was "
                                             "answered already", 409)
        problem = rules_refusal(match, seat, message["action"], request_open["id"])
        if problem is not None:
            return _refused(*problem)
        line = protocol.encode({"type": "action", "id": request_open["id"], "action": message["action"]})
        if not live.answer(live.live_id(match), seat, request_open["id"], line.rstrip(b"\n")):
            return _refused("not_your_turn", "that request was answered already", 409)
    except (live.LiveUnavailable, *live.REDIS_ERRORS) as err:
        return _refused("unavailable", f"the live relay is away: {err}", 503)
    return JsonResponse({"ok": True})


def rules_refusal(match: Match, seat: int, action: dict, request_id: int) -> tuple[str, str] | None:
    """The rules' reason to refuse ``action`` from ``seat`` now (the rule's code and words), or None. The
    position is the match re-run from its seed through the actions relayed so far. Request N comes after
    exactly N - 1 accepted actions; when the relay holds another number (its watcher failed), or they do not
    re-run to this seat's turn, the referee alone decides."""
    relayed = live.actions(live.live_id(match))
    if len(relayed) != request_id - 1:
        return None
    _, rules = resolve(match.preset, match.overrides)
    state = new_match(rules, match.seed)
    try:
        for entry in relayed:
            state.apply(entry["seat"], entry["action"])
    except (IllegalAction, *MALFORMED_ACTION_ERRORS):
        return None
    if state.is_over() or state.to_move() != seat:
        return None
    try:
        state.apply(seat, action)
    except IllegalAction as err:
        return err.rule, err.detail
    except MALFORMED_ACTION_ERRORS as err:
        return "malformed-action", f"malformed action: {type(err).__name__}: {err}"
    return None



def sit_down_choices(*, game: str | None = None, opponent: Bot | None = None, preset: str | None = None) -> dict:
    """What the "play against this bot" form offers: the opponent (fixed on a bot's page, else the bots of
    the game or of every game that can be played now), the presets and, for team presets, partner bots."""
    ready = (Bot.objects.filter(kind=Bot.Kind.BOT, active=True, suspended_reason="",
                                current_version__status="ready").select_related("owner").order_by("game", "name"))
    if game is not None:
        ready = ready.filter(game=game)
    bots = list(ready[:200])
    if opponent is not None:
        presets = [preset] if preset else opponent.plays()
    else:
        presets = [preset] if preset else []
        if preset is not None:
            bots = [b for b in bots if preset in b.plays()]
    teams = {p for p in presets if len(layout(p, {})[1][0]) > 1}
    partners = [b for b in bots if b != opponent] if teams else []
    return {"title": f"Play against {opponent.name}" if opponent else "Play against a bot",
            "opponent": opponent.name if opponent else None, "opponents": bots, "preset": preset,
            "presets": presets, "partners": partners, "clock": casual.person_clock_words()}
