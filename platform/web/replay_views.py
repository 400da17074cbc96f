"""The replay viewer's endpoints and the match page's score chart: fetch the stored replay, check access,
and answer from the frames stored once per view.

The frames themselves are ``arena.replay_frames``'s (a replay re-run through the engine, one frame per
position). A view's frames are computed once, in one pass over the replay, and kept in media storage by
``web.frames_store`` (named by the replay's SHA-256 and the view); a request is answered by slicing them, at
most MAX_COUNT frames at a time. Nothing of the frames goes to the Django cache (Redis, the broker's server,
in production): the unpacked replay and its score series are kept per process by ``functools.lru_cache``.
Anonymous readers are rate-limited per client address (``accounts.limits``). A replay whose deal another
match still plays, and its logs, are embargoed (``matches.access.deal_embargo``): 404 with the reason.
"""

from __future__ import annotations

import gzip
import logging
import re
from functools import lru_cache
from typing import Any

import orjson
from django.http import HttpResponse, JsonResponse
from django.views.decorators.gzip import gzip_page

from accounts.limits import Limit, RateLimited, client_key, spend
from arena import replay_frames
from arena.referee import MALFORMED_ACTION_ERRORS
from bots import blobs
from bots.access import can_see_private
from config.api import error_body
from matches.access import WHY, deal_embargo
from matches.models import Match, Seat
from web import frames_store
from web.charts import score_progression

ANON_READS_PER_MINUTE = 120  # per address; playing the longest Burraco replay to its end takes ~16
ANONYMOUS_READS = Limit("frames-anonymous", ANON_READS_PER_MINUTE, 60, "replay requests")
REPLAYS_KEPT = 8  # unpacked replays kept per process (the match page's chart, then its first view's frames)

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------- the replay

def load_stored(sha256: str) -> dict[str, Any]:
    return orjson.loads(gzip.decompress(blobs.get("replays", sha256)))


@lru_cache(maxsize=REPLAYS_KEPT)
def cached_replay(sha256: str) -> dict[str, Any]:
    """The stored replay, unpacked once per process for the match page's chart and its views' frames."""
    return load_stored(sha256)


@lru_cache(maxsize=256)
def _score_series(sha256: str) -> tuple[list[list[float]], list[str], str]:
    return replay_frames.score_series(cached_replay(sha256))


def score_chart(sha256: str, title: str):
    """The match page's score-progression SVG: each side's running total after every deal, from the stored
    replay's outcome (the series kept per process, keyed by the replay's hash)."""
    try:
        series, labels, kind = _score_series(sha256)
    except (blobs.BlobMissing, blobs.BlobCorrupt, *MALFORMED_ACTION_ERRORS):
        return ""
    if not series:
        return ""
    return score_progression(series, labels, f"{title}: {'penalty points' if kind == 'penalty' else 'points'} "
                             f"after each deal", points_kind=kind)


# ---------------------------------------------------------------------------------------------- frames

def view_name(seat: int | None) -> str:
    return "all" if seat is None else str(seat)


def stored_slice(sha256: str, seat: int | None, start: int, count: int) -> bytes:
    """The endpoint's JSON body (what ``arena.replay_frames.frames()`` gives, encoded), sliced from the
    view's stored frames; the view is computed and stored first if it is not there yet."""
    replay_frames.check_count(count)

    def compute():
        run = replay_frames.ReplayRun(cached_replay(sha256))
        replay_frames.check_seat(seat, run.seats)
        return run.steps, run.meta(seat), run.frames(seat, 0, run.steps)

    stored, lines = frames_store.stored_lines(sha256, view_name(seat), compute, start, start + count - 1)
    replay_frames.check_start(start, stored.steps)
    head = orjson.dumps({"seat": "all" if seat is None else seat, "start": start, "steps": stored.steps})
    body = head[:-1] + b',"frames":[' + b",".join(lines) + b"]"
    if start == 0:
        body += b',"meta":' + orjson.dumps(stored.meta)
    return body + b"}"


def parse_seat(value: str | None, seats: int) -> int | None:
    """``"all"`` (or nothing) → None; a seat number 0..seats-1 → that seat."""
    if value in (None, "", "all"):
        return None
    if not value.isdigit() or int(value) >= seats:
        raise replay_frames.FramesError(f"seat must be 'all' or a seat from 0 to {seats - 1}, not {value!r}")
    return int(value)


def _int_param(request, name: str, default: int) -> int:
    raw = request.GET.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        raise replay_frames.FramesError(f"{name} must be a whole number, not {raw!r}") from None


# ---------------------------------------------------------------------------------------------- endpoints

TAGGED_LINE = re.compile(r"^\[(\d+)\] (.*)$")


def embargoed(match: Match, what: str) -> JsonResponse | None:
    """The 404 for ``what`` ("the replay of match 12 is") of a match whose deal another match still plays, or
    None."""
    embargo = deal_embargo(match)
    if embargo is None:
        return None
    return JsonResponse(error_body("embargoed", f"{what} {embargo}: {WHY}"), status=404)


def stderr_view(request, pk: int):
    """GET /matches/<id>/stderr/ — the stderr lines of the seats whose bot is the user's, by request id
    (request N produced step N of the replay). Everyone else gets 404: logs are private to their owner, and
    embargoed with the replay (a bot may print its hand, the other rotation's opponent's hand)."""
    seats = [s for s in Seat.objects.select_related("version__bot", "match").filter(match_id=pk)
             if can_see_private(request.user, s.version.bot)]
    if not seats:
        return JsonResponse(error_body("not_found", "no log of yours in this match"), status=404)
    refused = embargoed(seats[0].match, f"the logs of match {pk} are")
    if refused is not None:
        return refused
    found: dict[str, dict[str, list[str]]] = {}
    for seat in seats:
        by_request: dict[str, list[str]] = {}
        if seat.log_sha256:
            for line in blobs.get("logs", seat.log_sha256).decode("utf-8", "replace").splitlines():
                tagged = TAGGED_LINE.match(line)
                key, text = (tagged.group(1), tagged.group(2)) if tagged else ("end", line)
                by_request.setdefault(key, []).append(text)
        found[str(seat.seat)] = by_request
    return JsonResponse({"seats": found})


@gzip_page  # a chunk of every seat's view is ~0.5 MB of JSON and compresses about tenfold
def frames_view(request, pk: int):
    """GET /matches/<id>/frames/?seat=N|all&start=K&count=M — same access as the replay download."""
    if not request.user.is_authenticated:
        try:
            spend(ANONYMOUS_READS, client_key(request))
        except RateLimited as err:
            answer = JsonResponse(error_body("rate_limited", f"Too many replay requests from your address without "
                                             f"logging in: {err}, or log in (the limit is for anonymous readers)"),
                                  status=429)
            answer["Retry-After"] = str(err.wait)
            return answer
    match = Match.objects.filter(pk=pk, status=Match.Status.FINISHED).first()
    seats = list(match.seats.select_related("version__bot")) if match is not None else []
    if match is None or not match.replay_sha256 or (match.kind == Match.Kind.VALIDATION and not any(
            can_see_private(request.user, s.version.bot) for s in seats)):
        # a validation match is its bot's owner's business, as for the replay download
        return JsonResponse(error_body("not_found", "no replay for this match"), status=404)
    refused = embargoed(match, f"the replay of match {pk} is")
    if refused is not None:
        return refused
    try:
        seat = parse_seat(request.GET.get("seat", "all"), len(seats))
        start = _int_param(request, "start", 0)
        count = _int_param(request, "count", replay_frames.DEFAULT_COUNT)
        body = stored_slice(match.replay_sha256, seat, start, count)
    except replay_frames.FramesError as err:
        return JsonResponse(error_body("bad_request", str(err)), status=400)
    except blobs.BlobMissing:
        return JsonResponse(error_body("not_found", "the replay file is missing from storage"), status=404)
    except (blobs.BlobCorrupt, *MALFORMED_ACTION_ERRORS) as err:  # what the engine raises on a refused action
        logger.warning("match %s: its stored replay cannot be re-run: %s", pk, err)
        return JsonResponse(error_body("server_error", f"the stored replay cannot be re-run: {err}"), status=500)
    return HttpResponse(body, content_type="application/json")
