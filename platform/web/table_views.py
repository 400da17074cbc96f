"""Live tables: a person sits down against a bot, plays from the table's page, and gets a rematch.

The page talks to the worker's referee only through the live relay (matches.relay): it reads the protocol
lines sent to the person's seat and writes the person's answers as protocol lines. Everything it shows comes
from those lines, so it never holds more than the seat may see. An answer is checked here by the same rules
the referee applies (the match re-run from its seed and the actions played), so an illegal click gets the
rules' own reason and never costs the person the match; the referee checks it again all the same.
"""

from __future__ import annotations

import pickle
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
from matches import actions, casual, relay
from matches.models import Match

ANSWER_BYTES = 16 * 1024  # an action of the biggest Burraco meld is a few hundred bytes
CHECK_ACTIONS = 32  # the plays a page asks about at once: the chosen cards as a meld, onto each meld, a discard


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
    except casual.AlreadySeated as err:
        return _back_to_table(request, err)
    except casual.CasualError as err:
        messages.error(request, f"Could not sit down: {err}")
        return redirect(request.POST.get("back") if _safe_back(request.POST.get("back")) else "home")
    return redirect("table", pk=match.pk)


def _back_to_table(request, err: casual.AlreadySeated):
    """Refused a second table: the person is taken to the one they are at, told why."""
    messages.info(request, f"{err} This is that table.")
    return redirect("table", pk=err.match.pk)


def _safe_back(url: str | None) -> bool:
    return bool(url) and url.startswith("/") and not url.startswith("//")


@login_required
@require_POST
def table_rematch(request, pk: int):
    match, _ = _person_seat(request, pk)
    try:
        again = casual.rematch(request.user, match)
    except casual.AlreadySeated as err:
        return _back_to_table(request, err)
    except casual.CasualError as err:
        messages.error(request, f"No rematch: {err}")
        return redirect("table", pk=match.pk)
    return redirect("table", pk=again.pk)


@require_POST
def table_resign(request, pk: int):
    """POST /play/<id>/resign/ — the person gives the match up: a forfeit, recorded as their seat's verdict
    (``resigned``) and ranked as any forfeit; a match not dealt yet is cancelled instead. Back to the table,
    which shows the end."""
    match, seat = _person_seat(request, pk)
    if match.status == Match.Status.QUEUED:
        if actions.cancel(match, f"{request.user.username} left the table before it was dealt"):
            messages.info(request, "You left the table before the match was dealt: nothing is recorded.")
        return redirect("table", pk=match.pk)
    if match.status != Match.Status.RUNNING:
        messages.error(request, f"The match is {match.status} already: there is nothing to resign.")
        return redirect("table", pk=match.pk)
    try:
        done = relay.resign(relay.attempt_name(match), seat, f"{request.user.username} resigned at the table")
    except (relay.RelayUnavailable, *relay.REDIS_ERRORS) as err:
        messages.error(request, f"Could not resign: the live relay is away ({err}); try again.")
        return redirect("table", pk=match.pk)
    if done == relay.ENDED:
        messages.error(request, "The match is over: there is nothing to resign.")
    else:
        messages.info(request, "You resigned. The match ends at your seat's next turn and counts as a loss.")
    return redirect("table", pk=match.pk)


def table_page(request, pk: int):
    match, seat = _person_seat(request, pk)
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    return render(request, "web/table.html", {
        "match": match, "seat": seat, "seats": seats, "clock": casual.person_clock_words(),
        "teams": layout(match.preset, match.overrides)[1],
        # what the page calls each seat: "you", the bot's name (its score rows, its log, who is to move)
        "names": [{"seat": s.seat, "name": s.version.bot.name, "person": s.seat == seat} for s in seats]})


def table_lines(request, pk: int):
    """GET /play/<id>/lines/?after=K&open=N — the seat's protocol lines from the K-th on, the match's status,
    whether the seat said ready (to a page reading from the start), and which of the requests the page holds
    open (N, and the last one among these lines) were answered already (by this page, another tab, or
    before a reload)."""
    match, seat = _person_seat(request, pk)
    try:
        after = max(0, int(request.GET.get("after", "0")))
        held = int(request.GET["open"]) if request.GET.get("open") else None
    except ValueError:
        return JsonResponse(error_body("bad_request", "after and open must be whole numbers"), status=400)
    name = relay.attempt_name(match)
    try:
        lines, closed = relay.seat_lines(name, seat, after)
        newest = relay.open_request(lines)
        asked = {r for r in (held, newest["id"] if newest else None) if r is not None}
        # Said to the page so that it neither says ready again nor offers a request that was answered: the
        # site would refuse either with a 409.
        answered = sorted(r for r in asked if relay.was_answered(name, seat, r))
        ready = after == 0 and relay.was_answered(name, seat, None)  # a page reading from the start only
    except (relay.RelayUnavailable, *relay.REDIS_ERRORS) as err:
        return JsonResponse(error_body("unavailable", f"the live relay is away: {err}"), status=503)
    return JsonResponse({"match": match.pk, "seat": seat, "status": match.status, "failure": match.failure,
                         "after": after, "lines": lines, "closed": closed, "now": round(time.time(), 3),
                         "ready": ready, "answered": answered})


def _refused(code: str, message: str, status: int = 400) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


def _not_delivered(code: int, taken: str) -> JsonResponse:
    if code == relay.ENDED:
        return _refused("not_running", "this attempt of the match is no longer being played", 409)
    if code == relay.FULL:
        return _refused("not_your_turn", "the referee has not read this seat's last answers yet", 409)
    return _refused("not_your_turn", taken, 409)


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
        lines, closed = relay.seat_lines(relay.attempt_name(match), seat)
        if closed:
            return _refused("not_running", "the match is over", 409)
        if message.get("type") == "ready":
            if not any(entry["m"].get("type") == "hello" for entry in lines):
                return _refused("too_early", "the referee has not greeted this seat yet", 409)
            ready = {"type": "ready", "name": request.user.username[:protocol.MAX_NAME_CHARS]}
            delivered = relay.answer(relay.attempt_name(match), seat, None, protocol.encode(ready).rstrip(b"\n"))
            if delivered != relay.PUSHED:
                return _not_delivered(delivered, "this seat is ready already")
            return JsonResponse({"ok": True})
        if message.get("type") != "action" or not isinstance(message.get("action"), dict):
            return _refused(protocol.UNEXPECTED_TYPE, 'send {"type": "ready"} or {"type": "action", "id": N, '
                                                      '"action": {...}}')
        request_open = relay.open_request(lines)
        if request_open is None or message.get("id") != request_open["id"] or relay.was_answered(
                relay.attempt_name(match), seat, request_open["id"]):
            return _refused("not_your_turn", "that request is not open: it is not your move, or it was "
                                             "answered already", 409)
        problem = rules_refusal(match, seat, message["action"], request_open["id"])
        if problem is not None:
            return _refused(*problem)
        line = protocol.encode({"type": "action", "id": request_open["id"], "action": message["action"]})
        delivered = relay.answer(relay.attempt_name(match), seat, request_open["id"], line.rstrip(b"\n"))
        if delivered != relay.PUSHED:
            return _not_delivered(delivered, "that request was answered already")
    except (relay.RelayUnavailable, *relay.REDIS_ERRORS) as err:
        return _refused("unavailable", f"the live relay is away: {err}", 503)
    return JsonResponse({"ok": True})


def seat_position(match: Match, seat: int, request_id: int):
    """The match as it stands for ``seat``'s request ``request_id``, re-run from its seed through the actions
    relayed so far; None when that cannot be known here. Request N comes after exactly N - 1 accepted actions;
    when the relay holds another number (its watcher failed), or they do not re-run to this seat's turn, the
    referee alone decides."""
    relayed = relay.actions(relay.attempt_name(match))
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
    return state


def refusal(state, seat: int, action: dict) -> tuple[str, str] | None:
    """The rules' reason to refuse ``action`` from ``seat`` in ``state`` (the rule's code and words), or None.
    ``state`` itself is left as it was."""
    try:
        pickle.loads(pickle.dumps(state)).apply(seat, action)
    except IllegalAction as err:
        return err.rule, err.detail
    except MALFORMED_ACTION_ERRORS as err:
        return "malformed-action", f"malformed action: {type(err).__name__}: {err}"
    return None


def rules_refusal(match: Match, seat: int, action: dict, request_id: int) -> tuple[str, str] | None:
    """The rules' reason to refuse ``action`` from ``seat`` now, or None (allowed, or not known here)."""
    state = seat_position(match, seat, request_id)
    return None if state is None else refusal(state, seat, action)


@require_POST
def table_check(request, pk: int):
    """POST /play/<id>/check/ — ``{"id": N, "actions": [...]}``: which of these plays the rules would refuse
    now, and why, without playing any (``{"refusals": [null | {"code", "message"}, …]}``, in order; all null
    when the position cannot be known here). The page offers only the plays the rules allow for the chosen
    cards, and says the rule that refuses the others."""
    match, seat = _person_seat(request, pk)
    if len(request.body) > ANSWER_BYTES * 4:
        return _refused("too_large", f"a check is at most {ANSWER_BYTES * 4} bytes")
    try:
        message = protocol.decode(request.body)
    except protocol.ProtocolError as err:
        return _refused(err.code, err.detail)
    plays, request_id = message.get("actions"), message.get("id")
    if not isinstance(plays, list) or not 1 <= len(plays) <= CHECK_ACTIONS or \
            not all(isinstance(a, dict) for a in plays) or not isinstance(request_id, int):
        return _refused(protocol.BAD_FIELD, f'send {{"id": N, "actions": [...]}} with 1 to {CHECK_ACTIONS} actions')
    if match.status != Match.Status.RUNNING:
        return _refused("not_running", f"the match is {match.status}, not being played", 409)
    try:
        state = seat_position(match, seat, request_id)
    except (relay.RelayUnavailable, *relay.REDIS_ERRORS) as err:
        return _refused("unavailable", f"the live relay is away: {err}", 503)
    found = [None if state is None else refusal(state, seat, action) for action in plays]
    return JsonResponse({"refusals": [None if r is None else {"code": r[0], "message": r[1]} for r in found]})


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
