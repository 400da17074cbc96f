"""Watching live: any match being played, followed move by move a few seconds behind the play.

The worker relays every accepted action (matches.relay); this endpoint re-runs the match from its seed
through the actions older than the match's delay and answers with the replay viewer's own frames
(arena.replay_frames), so the viewer draws a live match exactly as it draws a replay. What each view may
show while the match runs (docs/matches.md, "What is hidden until when"), whoever the seats are:

- everyone: the public view (``arena.public_view``): the table as every seat sees it alike, with the played
  cards, the counts and the scores, and every hand face down;
- a seat's owner (of the seat's bot, or the person at it): that seat's own view as well;
- "everything" (every hand face up): nobody (``matches.access.every_hand_visible``), since any seat may be a
  program or a person reading this page a few seconds behind the play.

When the match is no longer running the endpoint says so, and the page reloads into the replay.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.gzip import gzip_page

from accounts.limits import Limit, RateLimited, client_key, spend
from arena import public_view, replay_frames
from arena.games import resolve
from arena.games.options import rules_to_dict
from arena.referee import MALFORMED_ACTION_ERRORS
from bots.access import can_see_private
from config.api import error_body
from matches import relay
from matches.access import every_hand_visible, own_seats
from matches.models import Match, Seat
from tournaments.models import PairingSet, TableSet
from web.outcomes import recent_matches
from web.replay_views import parse_seat, view_name

LIVE_COUNT = replay_frames.MAX_COUNT
# A live view asks every 0.7 s (viewer.js), about 86 a minute, besides its first chunks; per address, so a
# few tabs of one household fit and a scraper does not.
ANONYMOUS_LIVE_READS = Limit("live-anonymous", 300, 60, "live view requests")


RUNS_KEPT = 32  # re-runs kept per process: a match's viewers mostly ask about the same newest position


class RunCache:
    """The re-run of a match through its first N relayed actions, kept per process: every viewer of a match
    polls every 0.7 s, and re-running a long Burraco match for each of them would cost tens of milliseconds a
    request. The relayed list only grows, so (live id, N) names one re-run for good."""

    def __init__(self, size: int = RUNS_KEPT):
        self.size = size
        self.runs: OrderedDict[tuple[str, int], replay_frames.ReplayRun] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, name: str, replay: dict) -> replay_frames.ReplayRun:
        key = (name, len(replay["actions"]))
        with self.lock:
            run = self.runs.get(key)
            if run is not None:
                self.runs.move_to_end(key)
                return run
        run = replay_frames.ReplayRun(replay)
        with self.lock:
            self.runs[key] = run
            while len(self.runs) > self.size:
                self.runs.popitem(last=False)
        return run


RUNS = RunCache()


def delay_of(match: Match) -> int:
    return settings.LIVE_DELAY_SECONDS if match.live_delay_seconds is None else match.live_delay_seconds


def live_views(user, match: Match, seats: list[Seat]) -> list[str]:
    """The views ``user`` may follow this running match in: the public one, and their own seats'."""
    every = ["all"] if every_hand_visible(match) else []
    return [public_view.VIEW, *every, *(str(seat) for seat in own_seats(user, seats))]


def live_options(user, match: Match, seats: list[Seat]) -> list[dict[str, str]]:
    """The live viewer's choices for ``user``, public first: (value, label)."""
    names = {str(s.seat): s.version.bot.name for s in seats}
    labels = {public_view.VIEW: "the table (public: every hand face down)", "all": "everything"}
    return [{"value": view, "label": labels.get(view) or f"seat {view} · {names[view]} (yours)"}
            for view in live_views(user, match, seats)]


def parse_live_view(value: str | None, seats: int) -> str:
    """``public`` (or nothing), ``all``, or a seat number 0..seats-1, as text."""
    if value in (None, "", public_view.VIEW):
        return public_view.VIEW
    return view_name(parse_seat(value, seats))


def _error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


@gzip_page
def live_frames(request, pk: int):
    """GET /matches/<id>/live/?seat=public|N&start=K&count=M&viewer=TOKEN — the frames played so far (older
    than the delay) in a view the reader may follow (``live_views``; 403 naming those they may otherwise),
    with the meta of the match so far, or ``{"live": {"status": …}}`` once it is over."""
    if not request.user.is_authenticated:
        try:
            spend(ANONYMOUS_LIVE_READS, client_key(request))
        except RateLimited as err:
            answer = _error("rate_limited", f"Too many live requests from your address without logging in: "
                                            f"{err}, or log in", 429)
            answer["Retry-After"] = str(err.wait)
            return answer
    match = Match.objects.filter(pk=pk).first()
    seats = list(match.seats.select_related("version__bot").order_by("seat")) if match is not None else []
    if match is None or (match.kind == Match.Kind.VALIDATION and not any(
            can_see_private(request.user, s.version.bot) for s in seats)):
        return _error("not_found", "no such match", 404)
    if match.status != Match.Status.RUNNING:
        return JsonResponse({"live": {"status": match.status}})
    try:
        view = parse_live_view(request.GET.get("seat"), len(seats))
        allowed = live_views(request.user, match, seats)
        if view not in allowed:
            return _error("permission_denied", _refusal(view, allowed), 403)
        start = int(request.GET.get("start") or 0)
        count = int(request.GET.get("count") or replay_frames.DEFAULT_COUNT)
        replay_frames.check_count(min(count, LIVE_COUNT))
    except ValueError as err:  # FramesError is a ValueError too: its words name the field
        return _error("bad_request", str(err) if isinstance(err, replay_frames.FramesError)
                      else "start and count must be whole numbers", 400)
    try:
        name = relay.attempt_name(match)
        relay.count_viewer(name, str(request.GET.get("viewer") or client_key(request))[:64], client_key(request))
        played = relay.actions(name)
    except relay.TooManyViewers as err:
        return _error("too_many_viewers", str(err), 429)
    except (relay.RelayUnavailable, *relay.REDIS_ERRORS) as err:
        return _error("unavailable", f"the live relay is away: {err}", 503)
    delay = delay_of(match)
    cutoff = time.time() - delay
    shown = [e for e in played if e["t"] <= cutoff]
    _, rules = resolve(match.preset, match.overrides)
    so_far = {"game": match.game, "preset": match.preset, "rules": rules_to_dict(rules), "seed": match.seed,
              "seats": [{"seat": s.seat, "bot": s.version.label, "name": ""} for s in seats],
              "actions": [{"seat": e["seat"], "action": e["action"]} for e in shown]}
    try:
        run = RUNS.get(name, so_far)
    except MALFORMED_ACTION_ERRORS as err:
        return _error("server_error", f"the relayed actions cannot be re-run: {err}", 500)
    start = max(0, min(start, run.steps))
    stop = min(run.steps, start + min(count, LIVE_COUNT) - 1)
    if view == public_view.VIEW:
        meta = {**public_view.public_meta(run), "live": True}
        frames = list(public_view.public_frames(run, start, stop))
    else:
        seat = None if view == "all" else int(view)
        meta = {**run.meta(seat), "live": True}
        frames = list(run.frames(seat, start, stop))
    return JsonResponse({"seat": view if view in (public_view.VIEW, "all") else int(view), "start": start,
                         "steps": run.steps, "frames": frames, "meta": meta,
                         "live": {"status": "running", "delay": delay, "waiting": len(played) - len(shown)}})


def _refusal(view: str, allowed: list[str]) -> str:
    """Why a live view is not this reader's, and which are."""
    seats = [v for v in allowed if v.isdigit()]
    open_to_you = f"the public view (seat=public){' and your seat ' + ', '.join(seats) if seats else ''}"
    if view == "all":
        return (f"every hand of a running match is hidden from everyone until every match of its deal has ended: "
                f"any seat may be a program or a person reading this page; watch {open_to_you}")
    return f"seat {view}'s cards are its owner's to watch while the match runs; watch {open_to_you}"


def running_matches(user, tournament_id: int | None = None, limit: int = 10) -> list[Match]:
    """The matches being played now, newest first: all of them, or one tournament's."""
    running = Match.objects.filter(status=Match.Status.RUNNING)
    if tournament_id is not None:
        sets = [*PairingSet.objects.filter(pairing__round__tournament_id=tournament_id)
                .values_list("duplicate_set", flat=True),
                *TableSet.objects.filter(table__round__tournament_id=tournament_id)
                .values_list("duplicate_set", flat=True)]
        running = running.filter(kind=Match.Kind.TOURNAMENT, duplicate_set__in=sets)
    return recent_matches(running, limit, user)


def playing_now(request):
    """GET /live/playing/ — the "Playing now" table of the home page (or of one tournament: ?tournament=N),
    rendered, for the page to swap in without a reload."""
    tournament = request.GET.get("tournament") or ""
    return render(request, "web/match_table.html", {
        "matches": running_matches(request.user, int(tournament) if tournament.isdigit() else None),
        "empty": "No match is being played right now."})
