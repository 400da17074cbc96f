"""The replay viewer's frames: a stored replay re-run through the engine, one frame per position.

Frame k is the position after k recorded actions. For one seat it holds exactly what that seat was shown:
its ``observation(seat)`` and the events ``events(seat, …)`` gave it during that step, never more. For
"all" (every seat's view, since a finished match is public) it holds every seat's observation and the
full-information events. Each frame also carries its deal, a readable line, the running match totals per
side and the notable events of the step; the match's marks (deals, claims, combinations, burracos,
pozzetti, the end and any forfeit) come with the first chunk so the slider can show them.

A view's frames are computed once, in one pass over the replay, and kept in media storage by
``web.frames_store`` (named by the replay's SHA-256 and the view); a request is answered by slicing them, at
most MAX_COUNT frames at a time. Nothing of the frames goes to the Django cache (Redis, the broker's server,
in production). Anonymous readers are rate-limited per client address (``accounts.limits``).

``frames()`` computes any chunk directly from the replay (from the nearest snapshot, a pickled state taken
every SNAPSHOT_EVERY steps), for the tests and the benchmark.
"""

from __future__ import annotations

import gzip
import logging
import pickle
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson
from django.http import HttpResponse, JsonResponse
from django.views.decorators.gzip import gzip_page

from accounts.limits import Limit, RateLimited, client_key, spend
from arena import protocol
from arena.games import load_game, new_match
from arena.games.base import HIDDEN
from arena.referee import MALFORMED_ACTION_ERRORS
from arena.replay import describe_event
from web import frames_store

DEFAULT_COUNT = 100
MAX_COUNT = 200  # twice the viewer's chunk: a request reads at most three stored chunks
SNAPSHOT_EVERY = 200
ANON_READS_PER_MINUTE = 120  # per address; playing the longest Burraco replay to its end takes ~16
ANONYMOUS_READS = Limit("frames-anonymous", ANON_READS_PER_MINUTE, 60, "replay requests")
REPLAYS_KEPT = 8  # unpacked replays kept per process (the match page's chart, then its first view's frames)

logger = logging.getLogger(__name__)

NOTABLE = {"deal": "deal", "claim": "claim", "combination": "combination", "pozzetto": "pozzetto",
           "deal_end": "deal-end", "match_end": "end"}


class FramesError(ValueError):
    """A request for frames the replay does not have (bad seat, start or count)."""


# ---------------------------------------------------------------------------------------------- lines

def _cards(cards: Any) -> str:
    if isinstance(cards, list):
        if cards and all(c == HIDDEN for c in cards):
            return f"{len(cards)} hidden card{'s' if len(cards) > 1 else ''}"
        return " ".join(str(c) for c in cards)
    return "a hidden card" if cards == HIDDEN else str(cards)


def _who(event: dict[str, Any]) -> str:
    return f"seat {event.get('seat')}"


def summarize(event: dict[str, Any]) -> str:
    """A short readable line for an event (from any seat's view; hidden cards stay ``??``)."""
    kind = event.get("type")
    if kind == "deal":
        return f"deal {event.get('deal')} dealt by seat {event.get('dealer')}"
    if kind == "play":
        if "card" in event:
            return f"{_who(event)} plays {_cards(event['card'])}"
        verb = "leads" if event.get("lead") else "plays"
        down = " face down" if event.get("face_down") else ""
        return f"{_who(event)} {verb} {_cards(event.get('cards'))}{down}"
    if kind == "trick":
        taker = event.get("taker", event.get("winner"))
        points = f", {event['points']} points" if "points" in event else ""
        return f"seat {taker} takes the trick{points}"
    if kind == "draw":
        if "draws" in event:
            return f"cards drawn, {event.get('stock')} left in the stock"
        return f"{_who(event)} draws {_cards(event.get('card'))} from the stock"
    if kind == "pass":
        return f"{_who(event)} does not claim"
    if kind == "claim":
        verdict = "right" if event.get("correct") else "wrong"
        return f"{_who(event)} claims {event.get('target')}: {event.get('points')} points, {verdict}"
    if kind == "combination":
        return f"{_who(event)} shows {event.get('name')} ({_cards(event.get('cards'))})"
    if kind == "discard":
        closing = " and closes" if event.get("closing") else ""
        return f"{_who(event)} discards {event.get('card')}{closing}"
    if kind == "meld":
        return f"{_who(event)} melds {_cards(event.get('cards'))}"
    if kind == "add":
        meld = event.get("meld") or {}
        return f"{_who(event)} adds {_cards(event.get('cards'))} to meld {meld.get('id')}"
    if kind == "take_pile":
        return f"{_who(event)} takes the discard pile ({len(event.get('cards') or [])} cards)"
    if kind == "pozzetto":
        return f"{_who(event)} takes a pozzetto"
    if kind == "deal_end":
        reason = event.get("reason") or event.get("ended_by") or ""
        return f"deal {event.get('deal')} ends" + (f" ({reason})" if reason else "")
    if kind == "match_end":
        return f"the match ends, ranks {event.get('ranks')}"
    return " ".join(describe_event(event).split())


def _burraco_made(event: dict[str, Any]) -> bool:
    """A meld that became a burraco (seven cards or more) in this event."""
    meld = event.get("meld")
    if event.get("type") not in ("meld", "add") or not isinstance(meld, dict) or not meld.get("burraco"):
        return False
    return len(meld.get("cards") or []) - len(event.get("cards") or []) < 7


def mark_of(event: dict[str, Any]) -> dict[str, str] | None:
    """The slider mark of a notable event: its kind and a label naming only public facts."""
    if _burraco_made(event):
        clean = "clean" if event["meld"].get("clean") else "dirty"
        return {"kind": "burraco", "label": f"seat {event.get('seat')}: {clean} burraco"}
    kind = NOTABLE.get(event.get("type"))
    if kind is None:
        return None
    if kind == "deal":
        return {"kind": kind, "label": f"deal {event.get('deal')}"}
    if kind == "claim":
        verdict = "right" if event.get("correct") else "wrong"
        return {"kind": kind, "label": f"seat {event.get('seat')} claims ({verdict})"}
    if kind == "combination":
        return {"kind": kind, "label": f"seat {event.get('seat')}: {event.get('name')}"}
    if kind == "pozzetto":
        return {"kind": kind, "label": f"seat {event.get('seat')} takes a pozzetto"}
    if kind == "deal-end":
        return {"kind": kind, "label": f"deal {event.get('deal')} ends"}
    return {"kind": kind, "label": "end of the match"}


# ---------------------------------------------------------------------------------------------- totals

def side_totals(entry: dict[str, Any], teams: list[list[int]], seats: int) -> list[float] | None:
    """The running match totals per side in a deal's summary (a ``deal_end`` event or an outcome deal):
    ``totals`` (Bura, Burraco) or ``scores`` (Kozel), per seat or per team."""
    for key in ("totals", "scores"):
        values = entry.get(key)
        if isinstance(values, list) and values and all(isinstance(v, int | float) for v in values):
            if len(values) == len(teams):
                return list(values)
            if len(values) == seats:
                return [values[team[0]] for team in teams]
    return None


def side_labels(replay: dict[str, Any]) -> list[str]:
    names = {s["seat"]: s.get("name") or s.get("bot") or f"seat {s['seat']}" for s in replay.get("seats", [])}
    return [" + ".join(f"{names.get(s, s)} ({s})" for s in team) for team in _teams(replay)]


def _teams(replay: dict[str, Any]) -> list[list[int]]:
    teams = (replay.get("outcome") or {}).get("teams")
    if teams:
        return teams
    return [[s["seat"]] for s in replay.get("seats", [])]


def score_series(replay: dict[str, Any]) -> tuple[list[list[float]], list[str], str]:
    """(series per side of the running totals after each deal, side labels, points kind) from the outcome."""
    outcome = replay.get("outcome") or {}
    teams = _teams(replay)
    rows = [side_totals(deal, teams, len(replay.get("seats", []))) for deal in outcome.get("deals", [])]
    rows = [r for r in rows if r is not None]
    series = [[row[k] for row in rows] for k in range(len(teams))] if rows else []
    return series, side_labels(replay), outcome.get("points_kind", "score")


# ---------------------------------------------------------------------------------------------- the pass

class _Pass:
    """One full re-run of a replay: event cursors, deals, totals and marks per step, and snapshots."""

    def __init__(self, replay: dict[str, Any]):
        self.replay = replay
        rules = load_game(replay["game"]).Rules(**replay["rules"])
        self.rules = rules
        state = new_match(rules, replay["seed"])
        self.seats = state.num_seats
        self.teams = _teams(replay)
        actions = replay["actions"]
        self.steps = len(actions)
        self.cursor: list[int] = []  # events logged after k actions
        self.deal: list[Any] = []
        self.to_move: list[int | None] = []
        self.snapshots: dict[int, bytes] = {}
        logged = 0
        deal = None
        for k in range(self.steps + 1):
            if k:
                entry = actions[k - 1]
                state.apply(entry["seat"], entry["action"])
            if k % SNAPSHOT_EVERY == 0:
                self.snapshots[k] = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            for event in state.events(None, logged):
                logged += 1
                if event.get("type") == "deal":
                    deal = event.get("deal")
            self.cursor.append(logged)
            self.deal.append(deal)
            self.to_move.append(state.to_move())
        self.full_events = state.events(None)
        self.totals = self._totals()

    def step_of_event(self, index: int) -> int:
        """The step whose action logged event ``index`` (0 for the initial deal)."""
        low, high = 0, self.steps
        while low < high:
            mid = (low + high) // 2
            if self.cursor[mid] > index:
                high = mid
            else:
                low = mid + 1
        return low

    def _totals(self) -> list[list[float]]:
        """Match totals per side at every step (zeros before the first deal ends)."""
        current: list[float] = [0] * len(self.teams)
        totals = []
        index = 0
        for k in range(self.steps + 1):
            while index < self.cursor[k]:
                event = self.full_events[index]
                if event.get("type") == "deal_end":
                    current = side_totals(event, self.teams, self.seats) or current
                index += 1
            totals.append(current)
        return totals

    def marks(self, viewer: int | None, final_state) -> list[dict[str, Any]]:
        found = []
        for index, event in enumerate(final_state.events(viewer)):
            mark = mark_of(event)
            if mark is not None:
                found.append({"step": self.step_of_event(index), **mark})
        forfeits = [v for v in self.replay.get("verdicts", []) if v.get("verdict") != protocol.OK]
        for v in forfeits:
            found.append({"step": self.steps, "kind": "forfeit", "label": f"seat {v['seat']}: {v['verdict']}"})
        return found

    def state_at(self, step: int):
        base = max(k for k in self.snapshots if k <= step)
        state = pickle.loads(self.snapshots[base])
        for entry in self.replay["actions"][base:step]:
            state.apply(entry["seat"], entry["action"])
        return state


# ---------------------------------------------------------------------------------------------- frames

def parse_seat(value: str | None, seats: int) -> int | None:
    """``"all"`` (or nothing) → None; a seat number 0..seats-1 → that seat."""
    if value in (None, "", "all"):
        return None
    if not value.isdigit() or int(value) >= seats:
        raise FramesError(f"seat must be 'all' or a seat from 0 to {seats - 1}, not {value!r}")
    return int(value)


def _meta(run: _Pass, viewer: int | None) -> dict[str, Any]:
    replay = run.replay
    result = replay.get("result") or {}
    rejected = replay.get("rejected")
    verdicts = [{"seat": v["seat"], "verdict": v.get("verdict"), "code": v.get("code"), "detail": v.get("detail")}
                for v in replay.get("verdicts", []) if v.get("verdict") != protocol.OK]
    return {
        "game": replay["game"], "preset": replay["preset"], "rules": replay["rules"], "seats": run.seats,
        "names": [s.get("name") or s.get("bot") for s in replay.get("seats", [])],
        "teams": run.teams, "sides": side_labels(replay), "points_kind": result.get("points_kind"),
        "steps": run.steps, "result": {k: result.get(k) for k in ("ranks", "points", "ended_by", "finished")},
        "verdicts": verdicts,
        "rejected": None if rejected is None else {"seat": rejected.get("seat"), "rule": rejected.get("rule"),
                                                   "error": rejected.get("error")},
        "deals": [{"step": k, "deal": run.deal[k]} for k in range(run.steps + 1)
                  if k == 0 or run.deal[k] != run.deal[k - 1]],
        "marks": run.marks(viewer, run.state_at(run.steps)),
        "deal_totals": [{"step": run.step_of_event(i), "deal": e.get("deal"),
                         "totals": side_totals(e, run.teams, run.seats)}
                        for i, e in enumerate(run.full_events) if e.get("type") == "deal_end"],
    }


def _frames(run: _Pass, seat: int | None, start: int, stop: int) -> Iterator[dict[str, Any]]:
    """Frames ``start`` .. ``stop`` (both included) as ``seat`` saw them (None: all), one at a time."""
    replay = run.replay
    state = run.state_at(start)
    actions = replay["actions"]
    viewers = range(run.seats) if seat is None else (seat,)
    for k in range(start, stop + 1):
        if k > start:
            entry = actions[k - 1]
            state.apply(entry["seat"], entry["action"])
        first = run.cursor[k - 1] if k else 0
        seen = state.events(seat, first)
        marks = [m for m in (mark_of(e) for e in seen) if m]
        if k == run.steps:
            marks += [{"kind": "forfeit", "label": f"seat {v['seat']}: {v['verdict']}"}
                      for v in replay.get("verdicts", []) if v.get("verdict") != protocol.OK]
        lines = [summarize(e) for e in seen]
        actor = actions[k - 1]["seat"] if k else None
        if actor is not None and actor == seat and not seen:
            lines = [f"seat {actor}: {_cards(actions[k - 1]['action'].get('type'))}"]
        yield {
            "step": k, "deal": run.deal[k], "actor": actor, "to_move": run.to_move[k],
            "text": "; ".join(lines) or (f"seat {actor} moves" if actor is not None else "the match begins"),
            "events": seen, "views": {str(s): state.observation(s) for s in viewers},
            "totals": run.totals[k], "marks": marks,
        }


def check_count(count: int) -> None:
    if not 1 <= count <= MAX_COUNT:
        raise FramesError(f"count must be from 1 to {MAX_COUNT}, not {count}")


def check_start(start: int, steps: int) -> None:
    if not 0 <= start <= steps:
        raise FramesError(f"start must be a step from 0 to {steps}, not {start}")


def frames(replay: dict[str, Any], seat: int | None, start: int = 0, count: int = DEFAULT_COUNT) -> dict[str, Any]:
    """Frames ``start`` .. ``start + count - 1`` (clipped to the match) as ``seat`` saw them (None: all),
    computed from the replay: the body the endpoint answers with."""
    run = _Pass(replay)
    if seat is not None and not 0 <= seat < run.seats:
        raise FramesError(f"seat must be 'all' or a seat from 0 to {run.seats - 1}, not {seat}")
    check_start(start, run.steps)
    check_count(count)
    body: dict[str, Any] = {"seat": "all" if seat is None else seat, "start": start, "steps": run.steps,
                            "frames": list(_frames(run, seat, start, min(run.steps, start + count - 1)))}
    if start == 0:
        body["meta"] = _meta(run, seat)
    return body


def view_name(seat: int | None) -> str:
    return "all" if seat is None else str(seat)


def stored_slice(sha256: str, seat: int | None, start: int, count: int) -> bytes:
    """The endpoint's JSON body (what ``frames()`` gives, encoded), sliced from the view's stored frames;
    the view is computed and stored first if it is not there yet."""
    check_count(count)

    def compute():
        run = _Pass(cached_replay(sha256))
        if seat is not None and not 0 <= seat < run.seats:
            raise FramesError(f"seat must be 'all' or a seat from 0 to {run.seats - 1}, not {seat}")
        return run.steps, _meta(run, seat), _frames(run, seat, 0, run.steps)

    stored, lines = frames_store.stored_lines(sha256, view_name(seat), compute, start, start + count - 1)
    check_start(start, stored.steps)
    head = orjson.dumps({"seat": "all" if seat is None else seat, "start": start, "steps": stored.steps})
    body = head[:-1] + b',"frames":[' + b",".join(lines) + b"]"
    if start == 0:
        body += b',"meta":' + orjson.dumps(stored.meta)
    return body + b"}"


# ---------------------------------------------------------------------------------------------- endpoint

def load_stored(sha256: str) -> dict[str, Any]:
    from bots import blobs

    return orjson.loads(gzip.decompress(blobs.get("replays", sha256)))


def _int_param(request, name: str, default: int) -> int:
    raw = request.GET.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        raise FramesError(f"{name} must be a whole number, not {raw!r}") from None


TAGGED_LINE = re.compile(r"^\[(\d+)\] (.*)$")


def stderr_view(request, pk: int):
    """GET /matches/<id>/stderr/ — the stderr lines of the seats whose bot is the user's, by request id
    (request N produced step N of the replay). Everyone else gets 404: logs are private to their owner."""
    from bots import blobs
    from bots.access import can_see_private
    from config.api import error_body
    from matches.models import Seat

    seats = [s for s in Seat.objects.select_related("version__bot").filter(match_id=pk)
             if can_see_private(request.user, s.version.bot)]
    if not seats:
        return JsonResponse(error_body("not_found", "no log of yours in this match"), status=404)
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
    from bots import blobs
    from bots.access import can_see_private
    from config.api import error_body
    from matches.models import Match

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
    try:
        seat = parse_seat(request.GET.get("seat", "all"), len(seats))
        start = _int_param(request, "start", 0)
        count = _int_param(request, "count", DEFAULT_COUNT)
        body = stored_slice(match.replay_sha256, seat, start, count)
    except FramesError as err:
        return JsonResponse(error_body("bad_request", str(err)), status=400)
    except blobs.BlobMissing:
        return JsonResponse(error_body("not_found", "the replay file is missing from storage"), status=404)
    except (blobs.BlobCorrupt, *MALFORMED_ACTION_ERRORS) as err:  # what the engine raises on a refused action
        logger.warning("match %s: its stored replay cannot be re-run: %s", pk, err)
        return JsonResponse(error_body("server_error", f"the stored replay cannot be re-run: {err}"), status=500)
    return HttpResponse(body, content_type="application/json")


@lru_cache(maxsize=REPLAYS_KEPT)
def cached_replay(sha256: str) -> dict[str, Any]:
    """The stored replay, unpacked once per process for the match page's chart and its views' frames."""
    return load_stored(sha256)


@lru_cache(maxsize=256)
def _score_series(sha256: str) -> tuple[list[list[float]], list[str], str]:
    return score_series(cached_replay(sha256))


def score_chart(sha256: str, title: str):
    """The match page's score-progression SVG: each side's running total after every deal, from the stored
    replay's outcome (the series kept per process, keyed by the replay's hash)."""
    from bots import blobs
    from web.charts import score_progression

    try:
        series, labels, kind = _score_series(sha256)
    except (blobs.BlobMissing, blobs.BlobCorrupt, *MALFORMED_ACTION_ERRORS):
        return ""
    if not series:
        return ""
    return score_progression(series, labels, f"{title} ({'penalty points' if kind == 'penalty' else 'points'})")
