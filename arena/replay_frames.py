"""The replay viewer's frames: a replay re-run through the engine, one frame per position.

Frame k is the position after k recorded actions. For one seat it holds exactly what that seat was shown:
its ``observation(seat)`` and the events ``events(seat, …)`` gave it during that step, never more. For
"all" (every seat's view, since a finished match is public) it holds every seat's observation and the
full-information events. Each frame also carries its deal, a readable line, the running match totals per
side and the notable events of the step; the match's marks (deals, claims, combinations, burracos,
pozzetti, the end and any forfeit) come with the first chunk (its ``meta``) so the slider can show them.

The end of a deal is a position of its own: the action that ends a deal also deals the next one, so the
frame of that step would show the new hands at once. Its frame carries an ``ending`` besides: the table as
the deal ended (the position before the action, with the last plays of the step laid on it: the winning
trick, the final table), the step's events up to the deal's end and its line, which the viewer shows before
the next deal's hands.

Deals are numbered from 1 in the order they were dealt, in every game: the frames' ``deal``, the meta's
deals and totals, the lines and the marks say "deal 1" for the first deal whatever the engine's own count
(Bura's starts at 1, Kozel's and Burraco's at 0). The events stay exactly as the engine gave them.

``ReplayRun(replay)`` re-runs a replay (the parsed ``kozyr-replay`` dict, docs/replay.md) once, keeping a
pickled state every SNAPSHOT_EVERY steps, and then yields any range of frames from the nearest snapshot;
``frames()`` is one chunk of them, as the site's endpoint answers. Pure: nothing here caches, stores or
speaks HTTP (the site does, in ``web.replay_views`` and ``web.frames_store``).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

from arena import protocol
from arena.games import load_game, new_match
from arena.games.base import HIDDEN, MatchState
from arena.replay import describe_event

DEFAULT_COUNT = 100
MAX_COUNT = 200  # twice the viewer's chunk: a request reads at most three stored chunks
SNAPSHOT_EVERY = 200

NOTABLE = {"deal": "deal", "claim": "claim", "combination": "combination", "pozzetto": "pozzetto",
           "deal_end": "deal-end", "match_end": "end"}
BURRACO_LENGTH = 7  # Burraco: a meld of seven cards or more is a burraco


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


def number(value: Any) -> str:
    """A number as people write it: 12 for 12.0, 2.5 for 2.5, 0.33 for 1/3 (anything else as it is)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def summarize(event: dict[str, Any], deal: Any = None) -> str:
    """A short readable line for an event (from any seat's view; hidden cards stay ``??``); ``deal`` is the
    number to call the event's deal by (its 1-based place in the match), the event's own when None.

    Every game deals, ends deals and ends the match. Kozel plays one card a turn and its trick has a
    winner. Bura leads a set, answers with a set of as many cards (face up or face down), its trick has a
    taker and points, the referee draws for everybody after it, the taker may claim or pass, and a seat may
    show a combination. Burraco draws from the stock or takes the discard pile, melds, adds to a meld,
    discards (closing when it is the last card) and takes a pozzetto. Any other event (Kozel's widow) is
    told field by field."""
    kind = event.get("type")
    deal = event.get("deal") if deal is None else deal
    if kind == "deal":
        return f"deal {deal} dealt by seat {event.get('dealer')}"
    if kind == "play":
        if "card" in event:
            return f"{_who(event)} plays {_cards(event['card'])}"
        verb = "leads" if event.get("lead") else "plays"
        down = " face down" if event.get("face_down") else ""
        return f"{_who(event)} {verb} {_cards(event.get('cards'))}{down}"
    if kind == "trick":
        taker = event.get("taker", event.get("winner"))
        points = f", {number(event['points'])} points" if "points" in event else ""
        return f"seat {taker} takes the trick{points}"
    if kind == "draw":
        if "draws" in event:
            return f"cards drawn, {event.get('stock')} left in the stock"
        return f"{_who(event)} draws {_cards(event.get('card'))} from the stock"
    if kind == "pass":
        return f"{_who(event)} does not claim"
    if kind == "claim":
        verdict = "right" if event.get("correct") else "wrong"
        return f"{_who(event)} claims {number(event.get('target'))}: {number(event.get('points'))} points, {verdict}"
    if kind == "combination":
        return f"{_who(event)} shows {event.get('name')} ({_cards(event.get('cards'))})"
    if kind == "discard":
        closing = " and closes" if event.get("closing") else ""
        # Burraco discards one card; a Kozel soloist puts two (event "cards") under the widow.
        discarded = _cards(event["cards"]) if "cards" in event else event.get("card")
        return f"{_who(event)} discards {discarded}{closing}"
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
        return f"deal {deal} ends" + (f" ({reason})" if reason else "")
    if kind == "match_end":
        return "the match ends"  # who won, in words, is the viewer's end banner
    return " ".join(describe_event(event).split())


# ---------------------------------------------------------------------------------------------- marks

def made_a_burraco(event: dict[str, Any]) -> bool:
    """Burraco: a meld (or an addition to one) that became a burraco in this event."""
    meld = event.get("meld")
    if event.get("type") not in ("meld", "add") or not isinstance(meld, dict) or not meld.get("burraco"):
        return False
    return len(meld.get("cards") or []) - len(event.get("cards") or []) < BURRACO_LENGTH


def mark_of(event: dict[str, Any], deal: Any = None) -> dict[str, str] | None:
    """The slider mark of a notable event: its kind and a label naming only public facts; ``deal`` is the
    number to call its deal by (the event's own when None)."""
    if made_a_burraco(event):
        clean = "clean" if event["meld"].get("clean") else "dirty"
        return {"kind": "burraco", "label": f"seat {event.get('seat')}: {clean} burraco"}
    kind = NOTABLE.get(event.get("type", ""))
    if kind is None:
        return None
    deal = event.get("deal") if deal is None else deal
    if kind == "deal":
        return {"kind": kind, "label": f"deal {deal}"}
    if kind == "claim":
        verdict = "right" if event.get("correct") else "wrong"
        return {"kind": kind, "label": f"seat {event.get('seat')} claims ({verdict})"}
    if kind == "combination":
        return {"kind": kind, "label": f"seat {event.get('seat')}: {event.get('name')}"}
    if kind == "pozzetto":
        return {"kind": kind, "label": f"seat {event.get('seat')} takes a pozzetto"}
    if kind == "deal-end":
        return {"kind": kind, "label": f"deal {deal} ends"}
    return {"kind": kind, "label": "end of the match"}


def forfeit_marks(replay: dict[str, Any]) -> list[dict[str, str]]:
    """A mark for each seat that did not finish the match (timeout, crash, illegal action, …)."""
    return [{"kind": "forfeit", "label": f"seat {v['seat']}: {v['verdict']}"}
            for v in replay.get("verdicts", []) if v.get("verdict") != protocol.OK]


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


def teams_of(replay: dict[str, Any]) -> list[list[int]]:
    """The sides of the match: its outcome's teams, or each seat on its own."""
    teams = (replay.get("outcome") or {}).get("teams")
    if teams:
        return teams
    return [[s["seat"]] for s in replay.get("seats", [])]


BUILTIN = "builtin:"


def seat_bots(replay: dict[str, Any]) -> list[str]:
    """What to call each seat's bot: its label as the replay has it (on the site "name@vN"; a built-in bot
    without its "builtin:" prefix), else the name it gave, else "seat N"."""
    found = []
    for entry in sorted(replay.get("seats", []), key=lambda e: e["seat"]):
        label = str(entry.get("bot") or entry.get("name") or f"seat {entry['seat']}")
        found.append(label.removeprefix(BUILTIN) or label)
    return found


def side_labels(replay: dict[str, Any]) -> list[str]:
    """Each side named by its bots (a team's bot once, however many of its seats it fills). Two sides of the
    same name (a bot against itself) are told apart by their seats."""
    bots = seat_bots(replay)
    teams = teams_of(replay)
    labels = []
    for team in teams:
        names: list[str] = []
        for seat in team:
            name = bots[seat] if seat < len(bots) else f"seat {seat}"
            if name not in names:
                names.append(name)
        labels.append(" + ".join(names))
    if len(set(labels)) < len(labels):
        labels = [f"{label} ({'seats' if len(team) > 1 else 'seat'} {'+'.join(map(str, team))})"
                  for label, team in zip(labels, teams, strict=True)]
    return labels


def score_series(replay: dict[str, Any]) -> tuple[list[list[float]], list[str], str]:
    """(series per side of the running totals after each deal, side labels, points kind) from the outcome."""
    outcome = replay.get("outcome") or {}
    teams = teams_of(replay)
    found = [side_totals(deal, teams, len(replay.get("seats", []))) for deal in outcome.get("deals", [])]
    rows = [r for r in found if r is not None]
    series = [[row[k] for row in rows] for k in range(len(teams))] if rows else []
    return series, side_labels(replay), outcome.get("points_kind", "score")


# ---------------------------------------------------------------------------------------------- deal ends

def ends_a_deal(events: list[dict[str, Any]]) -> int | None:
    """The index just past the ``deal_end`` of a step's events when a new deal follows it in the same step
    (so the step's position already shows the next deal), else None."""
    for index, event in enumerate(events):
        if event.get("type") == "deal_end" and any(e.get("type") == "deal" for e in events[index + 1:]):
            return index + 1
    return None


def _take_out(hand: list[Any], cards: list[Any]) -> None:
    for card in cards:
        if card in hand:
            hand.remove(card)


def table_at_deal_end(game: str, observation: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """A seat's view as its deal ended: its ``observation`` before the step's action, with the plays the
    step's ``events`` (as that seat saw them, up to the deal's end) laid on it. Only what those events show
    is added, so the view holds nothing the seat did not see."""
    view = pickle.loads(pickle.dumps(observation))
    sizes = view.get("hand_sizes")
    for event in events:
        kind, seat = event.get("type"), event.get("seat")
        if kind in ("play", "discard") and isinstance(seat, int):
            cards = list(event["cards"]) if isinstance(event.get("cards"), list) else [event.get("card")]
            if seat == view.get("seat") and isinstance(view.get("hand"), list):
                _take_out(view["hand"], cards)
            if isinstance(sizes, list) and 0 <= seat < len(sizes):
                sizes[seat] = max(0, sizes[seat] - len(cards))
            if game == "burraco" and kind == "discard":
                view["discard_pile"] = [*(view.get("discard_pile") or []), *cards]
        elif kind == "trick" and game == "kozel":
            view["trick"], view["leader"] = list(event.get("cards") or []), event.get("leader")
            winner = event.get("winner")
            side = next((i for i, s in enumerate(view.get("sides") or []) if winner in s), None)
            if side is not None and isinstance(view.get("tricks_won"), list) and \
                    isinstance(view.get("points_taken"), list):
                view["tricks_won"][side] += 1
                view["points_taken"][side] += event.get("points") or 0
                view["tricks"] = [*(view.get("tricks") or []), {k: event.get(k) for k in
                                                              ("leader", "cards", "winner", "points")}]
        elif kind == "trick" and game == "bura":
            view["trick"] = None  # taken: the viewer draws the step's trick from its event, as the step's own
    return view


# ---------------------------------------------------------------------------------------------- the run

class ReplayRun:
    """One full re-run of a replay: event cursors, deals, totals and marks per step, and snapshots."""

    def __init__(self, replay: dict[str, Any]):
        self.replay = replay
        state = new_match(load_game(replay["game"]).Rules(**replay["rules"]), replay["seed"])
        self.seats: int = state.num_seats
        self.teams = teams_of(replay)
        actions = replay["actions"]
        self.steps: int = len(actions)
        self.cursor: list[int] = []  # events logged after k actions
        self.deal: list[Any] = []
        self.to_move: list[int | None] = []
        self.snapshots: dict[int, bytes] = {}
        self.deal_numbers: dict[Any, int] = {}  # the engine's number of each deal -> its place, from 1
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
                    deal = self.deal_numbers[event.get("deal")] = len(self.deal_numbers) + 1
            self.cursor.append(logged)
            self.deal.append(deal)
            self.to_move.append(state.to_move())
        self.full_events = state.events(None)
        self.totals = self._totals()
        # the steps that end a deal and deal the next one: their frames carry the ending as its own position
        self.deal_ends = {k for k in range(1, self.steps + 1)
                          if ends_a_deal(self.full_events[self.cursor[k - 1]:self.cursor[k]]) is not None}
        # The scale (penalty points, fewer is better; or points) is the rules' own, so a match still being
        # played reads on the same scale as its replay: the engine's outcome says it at any position.
        self.points_kind: str = state.outcome()["points_kind"]

    def deal_of(self, event: dict[str, Any]) -> Any:
        """The 1-based number of the deal an event names (a deal's, a deal end's)."""
        return self.deal_numbers.get(event.get("deal"), event.get("deal"))

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

    def state_at(self, step: int) -> MatchState:
        base = max(k for k in self.snapshots if k <= step)
        state: MatchState = pickle.loads(self.snapshots[base])
        for entry in self.replay["actions"][base:step]:
            state.apply(entry["seat"], entry["action"])
        return state

    def marks(self, viewer: int | None) -> list[dict[str, Any]]:
        """Every mark of the match as ``viewer`` saw it (None: all), each at its step."""
        found = []
        for index, event in enumerate(self.state_at(self.steps).events(viewer)):
            mark = mark_of(event, self.deal_of(event))
            if mark is not None:
                found.append({"step": self.step_of_event(index), **mark})
        found += [{"step": self.steps, **mark} for mark in forfeit_marks(self.replay)]
        return found

    def meta(self, viewer: int | None) -> dict[str, Any]:
        """What the first chunk carries besides its frames: the match, its deals, marks and deal totals."""
        replay = self.replay
        result = replay.get("result") or {}
        rejected = replay.get("rejected")
        verdicts = [{"seat": v["seat"], "verdict": v.get("verdict"), "code": v.get("code"),
                     "detail": v.get("detail")}
                    for v in replay.get("verdicts", []) if v.get("verdict") != protocol.OK]
        return {
            "game": replay["game"], "preset": replay["preset"], "rules": replay["rules"], "seats": self.seats,
            "names": [s.get("name") or s.get("bot") for s in replay.get("seats", [])], "bots": seat_bots(replay),
            "teams": self.teams, "sides": side_labels(replay), "points_kind": self.points_kind,
            "steps": self.steps,
            "result": {k: result.get(k) for k in ("ranks", "points", "ended_by", "finished")},
            "verdicts": verdicts,
            "rejected": None if rejected is None else {"seat": rejected.get("seat"), "rule": rejected.get("rule"),
                                                       "error": rejected.get("error")},
            "deals": [{"step": k, "deal": self.deal[k]} for k in range(self.steps + 1)
                      if k == 0 or self.deal[k] != self.deal[k - 1]],
            "marks": self.marks(viewer),
            "deal_totals": [{"step": self.step_of_event(i), "deal": self.deal_of(e),
                             "totals": side_totals(e, self.teams, self.seats)}
                            for i, e in enumerate(self.full_events) if e.get("type") == "deal_end"],
        }

    def frames(self, seat: int | None, start: int, stop: int) -> Iterator[dict[str, Any]]:
        """Frames ``start`` .. ``stop`` (both included) as ``seat`` saw them (None: all), one at a time."""
        state = self.state_at(start)
        actions = self.replay["actions"]
        viewers = range(self.seats) if seat is None else (seat,)
        for k in range(start, stop + 1):
            before = None
            if k > start:
                entry = actions[k - 1]
                if k in self.deal_ends:  # the position before the action is the table the deal ends on
                    before = pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
                state.apply(entry["seat"], entry["action"])
            elif k in self.deal_ends:
                before = self.state_at(k - 1)
            first = self.cursor[k - 1] if k else 0
            seen = state.events(seat, first)
            marks = [m for m in (mark_of(e, self.deal_of(e)) for e in seen) if m]
            if k == self.steps:
                marks += forfeit_marks(self.replay)
            lines = [summarize(e, self.deal_of(e)) for e in seen]
            actor = actions[k - 1]["seat"] if k else None
            if actor is not None and actor == seat and not seen:
                lines = [f"seat {actor}: {_cards(actions[k - 1]['action'].get('type'))}"]
            frame = {
                "step": k, "deal": self.deal[k], "actor": actor, "to_move": self.to_move[k],
                "text": "; ".join(lines) or (f"seat {actor} moves" if actor is not None else "the match begins"),
                "events": seen, "views": {str(s): state.observation(s) for s in viewers},
                "totals": self.totals[k], "marks": marks,
            }
            if before is not None:
                frame["ending"] = self._ending(k, before, state, seat, viewers)
            yield frame

    def _ending(self, k: int, before: MatchState, state: MatchState, seat: int | None,
                viewers: range | tuple[int, ...]) -> dict[str, Any]:
        """Step ``k``'s deal end as ``seat`` (None: all) saw it: the table it ended on and the events to it."""
        first = self.cursor[k - 1]
        events = state.events(seat, first)
        events = events[:ends_a_deal(events) or len(events)]
        views = {}
        for s in viewers:
            own = state.events(s, first)
            views[str(s)] = table_at_deal_end(self.replay["game"], before.observation(s),
                                              own[:ends_a_deal(own) or len(own)])
        return {"deal": self.deal[k - 1], "events": events, "views": views,
                "text": "; ".join(summarize(e, self.deal_of(e)) for e in events)}


# ---------------------------------------------------------------------------------------------- chunks

def check_seat(seat: int | None, seats: int) -> None:
    if seat is not None and not 0 <= seat < seats:
        raise FramesError(f"seat must be 'all' or a seat from 0 to {seats - 1}, not {seat}")


def check_count(count: int) -> None:
    if not 1 <= count <= MAX_COUNT:
        raise FramesError(f"count must be from 1 to {MAX_COUNT}, not {count}")


def check_start(start: int, steps: int) -> None:
    if not 0 <= start <= steps:
        raise FramesError(f"start must be a step from 0 to {steps}, not {start}")


def frames(replay: dict[str, Any], seat: int | None, start: int = 0, count: int = DEFAULT_COUNT) -> dict[str, Any]:
    """Frames ``start`` .. ``start + count - 1`` (clipped to the match) as ``seat`` saw them (None: all),
    computed from the replay: the body the site's frames endpoint answers with."""
    run = ReplayRun(replay)
    check_seat(seat, run.seats)
    check_start(start, run.steps)
    check_count(count)
    body: dict[str, Any] = {"seat": "all" if seat is None else seat, "start": start, "steps": run.steps,
                            "frames": list(run.frames(seat, start, min(run.steps, start + count - 1)))}
    if start == 0:
        body["meta"] = run.meta(seat)
    return body
