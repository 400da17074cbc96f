"""The referee: plays one match between players and returns what happened, whatever the bots do.

It owns time, I/O and misbehaviour; the game engine owns the rules. Nothing a bot does can raise out of
:func:`play_match`: a seat that times out, crashes, breaks the protocol or plays an illegal action
forfeits (with its team), the others are ranked by the rules on the position reached, and every player
is closed — its whole process tree killed — before the function returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from arena import protocol
from arena.games import game_of_rules, new_match
from arena.games.base import IllegalAction
from arena.games.options import rules_to_dict
from arena.players import Player, PlayerFailure, SeatReport
from arena.protocol import ProtocolError

REPLAY_FORMAT = "kozyr-replay"
REPLAY_VERSION = 1
# Every game ends by its rules, but not always soon: two Burraco bots that never meld can lose points
# forever. The referee, which must never hang, stops a match after this many decisions and ranks the
# seats on the standings reached (far above any real match: a full Burraco match is about 2,000).
MAX_DECISIONS = 50_000
# Engines validate every field and raise IllegalAction; anything else an engine raises on a bot's action
# means a shape nobody foresaw. It is still the bot's forfeit (recorded with the exception), never a
# referee failure. RecursionError and MemoryError are not swallowed: they are not about the action.
MALFORMED_ACTION_ERRORS = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError, AssertionError)


@dataclass(frozen=True)
class TimeControl:
    """Time limits in milliseconds. A decision may overrun ``move_ms`` by drawing on the match's ``bank_ms``."""

    startup_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000

    def __post_init__(self) -> None:
        for name in ("startup_ms", "move_ms", "bank_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"time limit {name} must be a non-negative integer of milliseconds, got {value!r}")
        if self.startup_ms == 0 or self.move_ms == 0:
            raise ValueError("startup_ms and move_ms must be positive")

    def to_dict(self) -> dict[str, int]:
        return {"startup_ms": self.startup_ms, "move_ms": self.move_ms, "bank_ms": self.bank_ms}


@dataclass
class SeatVerdict:
    verdict: str = protocol.OK
    code: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "code": self.code, "detail": self.detail}


@dataclass
class MatchRecord:
    """The outcome of one match: ``result`` for ratings and tables, ``replay`` for everything else."""

    result: dict[str, Any]
    replay: dict[str, Any]
    reports: list[SeatReport] = field(default_factory=list)

    @property
    def failed_seats(self) -> list[int]:
        return [s["seat"] for s in self.result["seats"] if s["verdict"] != protocol.OK]


def final_ranks(outcome_ranks: list[int], teams: list[list[int]], forfeited: set[int]) -> list[int]:
    """Ranks by the rules among seats still standing; a forfeit puts the seat and its team last (shared)."""
    out_seats = {s for team in teams if forfeited & set(team) for s in team}
    standing = sorted({outcome_ranks[s] for s in range(len(outcome_ranks)) if s not in out_seats})
    dense = {rank: 1 + sum(1 for s in range(len(outcome_ranks)) if s not in out_seats and outcome_ranks[s] < rank)
             for rank in standing}
    last = 1 + len(outcome_ranks) - len(out_seats)
    return [last if s in out_seats else dense[outcome_ranks[s]] for s in range(len(outcome_ranks))]


class _Clock:
    """One seat's time bank (Kaggle-style overage)."""

    def __init__(self, control: TimeControl):
        self.control = control
        self.bank_ms = control.bank_ms

    def deadline(self, started: float) -> float:
        return started + (self.control.move_ms + self.bank_ms) / 1000

    def charge(self, elapsed_s: float) -> None:
        over = int(elapsed_s * 1000) - self.control.move_ms
        if over > 0:
            self.bank_ms = max(0, self.bank_ms - over)


def play_match(rules: Any, seed: int, players: list[Player], *, preset: str, time_control: TimeControl | None = None,
               labels: list[str] | None = None, max_decisions: int = MAX_DECISIONS) -> MatchRecord:
    """Play a whole match. ``players[i]`` sits in seat i. Returns the result and the replay."""
    control = time_control or TimeControl()
    game = game_of_rules(rules)
    state = new_match(rules, seed)
    n = state.num_seats
    if len(players) != n:
        raise ValueError(f"{preset} needs {n} players, got {len(players)}")
    labels = labels or [p.label for p in players]
    outcome0 = state.outcome()
    teams = outcome0["teams"]
    verdicts = [SeatVerdict() for _ in range(n)]
    names = [""] * n
    decisions = [0] * n
    clocks = [_Clock(control) for _ in range(n)]
    cursors = [0] * n
    actions: list[dict[str, Any]] = []
    rejected: dict[str, Any] | None = None

    def fail(seat: int, failure: PlayerFailure) -> None:
        verdicts[seat] = SeatVerdict(failure.verdict, failure.code, failure.detail)

    def pending_events(seat: int) -> list[dict[str, Any]]:
        fresh = state.events(seat, cursors[seat])
        cursors[seat] += len(fresh)
        return fresh

    try:
        for seat, player in enumerate(players):
            hello = protocol.hello(game=game, preset=preset, rules=rules_to_dict(rules), seat=seat, players=n,
                                   teams=teams, time=control.to_dict())
            try:
                reply = player.start(hello, time.monotonic() + control.startup_ms / 1000)
                names[seat] = protocol.parse_ready(reply).name
            except ProtocolError as err:
                fail(seat, PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail))
            except PlayerFailure as failure:
                fail(seat, failure)
            if verdicts[seat].verdict != protocol.OK:
                break

        request_id = 0
        while all(v.verdict == protocol.OK for v in verdicts) and not state.is_over():
            if request_id >= max_decisions:
                break
            seat = state.to_move()
            player = players[seat]
            request_id += 1
            started = time.monotonic()
            deadline = clocks[seat].deadline(started)
            try:
                before = [protocol.event(body) for body in pending_events(seat)]
                observation = state.observation(seat)
                request = protocol.request(request_id=request_id, decision=observation.get("decision"),
                                           observation=observation,
                                           legal_actions=state.legal_actions(seat),
                                           time_left_ms=control.move_ms + clocks[seat].bank_ms)
                reply = player.ask(request, deadline, before)
                clocks[seat].charge(time.monotonic() - started)
                answer = protocol.parse_action(reply, request_id)
            except ProtocolError as err:
                fail(seat, PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail))
                break
            except PlayerFailure as failure:
                if failure.verdict == protocol.TIMEOUT and failure.code == "move":
                    failure = PlayerFailure(protocol.TIMEOUT, "move", f"no answer to request {request_id} within "
                                            f"{control.move_ms} ms plus {clocks[seat].bank_ms} ms left in the bank")
                fail(seat, failure)
                break
            decisions[seat] += 1
            try:
                state.apply(seat, answer.action)
            except IllegalAction as err:
                fail(seat, PlayerFailure(protocol.ILLEGAL_ACTION, err.rule, err.detail))
                rejected = {"seat": seat, "action": answer.action, "rule": err.rule, "error": err.detail}
                break
            except MALFORMED_ACTION_ERRORS as err:
                detail = f"malformed action: {type(err).__name__}: {err}"
                fail(seat, PlayerFailure(protocol.ILLEGAL_ACTION, "malformed-action", detail))
                rejected = {"seat": seat, "action": answer.action, "rule": "malformed-action", "error": detail}
                break
            actions.append({"seat": seat, "action": answer.action})
    finally:
        outcome = state.outcome()
        forfeited = {s for s, v in enumerate(verdicts) if v.verdict != protocol.OK}
        ranks = final_ranks(outcome["ranks"], teams, forfeited) if forfeited else outcome["ranks"]
        reports = _close_all(players, state, cursors, ranks, outcome, verdicts)
        for seat, report in enumerate(reports):
            _add_sandbox_cause(verdicts[seat], report)

    seats = [{"seat": s, "bot": labels[s], "name": names[s], **verdicts[s].to_dict(), "decisions": decisions[s],
              "stderr_tail": reports[s].stderr_tail, "resources": reports[s].resources} for s in range(n)]
    if forfeited:
        ended_by = "forfeit"
    elif outcome["finished"]:
        ended_by = "rules"
    else:
        ended_by = "decision-limit"
    result = {"game": game, "preset": preset, "seed": seed, "finished": ended_by == "rules", "ended_by": ended_by,
              "ranks": ranks, "points": outcome["points"], "points_kind": outcome["points_kind"], "teams": teams,
              "deals": len(outcome["deals"]), "seats": seats}
    replay = {"format": REPLAY_FORMAT, "version": REPLAY_VERSION, "game": game, "preset": preset,
              "rules": rules_to_dict(rules), "seed": seed, "time": control.to_dict(),
              "seats": [{"seat": s, "bot": labels[s], "name": names[s]} for s in range(n)],
              "actions": actions, "rejected": rejected, "events": state.events(None),
              "outcome": outcome, "result": {k: v for k, v in result.items() if k != "seats"},
              "verdicts": [{"seat": s, **verdicts[s].to_dict(), "stderr_tail": reports[s].stderr_tail,
                            "resources": reports[s].resources} for s in range(n)]}
    return MatchRecord(result=result, replay=replay, reports=reports)


def _add_sandbox_cause(verdict: SeatVerdict, report: SeatReport) -> None:
    """A crash or timeout often has its real cause in the sandbox (out of memory, CPU limit): say so."""
    resources = report.resources
    if verdict.verdict == protocol.OK or not isinstance(resources, dict):
        return
    if resources.get("outcome") not in (None, "ok"):
        verdict.detail += f"; sandbox: {resources['outcome']} ({resources.get('detail', '')})"


def _close_all(players: list[Player], state: Any, cursors: list[int], ranks: list[int], outcome: dict[str, Any],
               verdicts: list[SeatVerdict]) -> list[SeatReport]:
    """Tell every seat how it ended and close it. Closing never raises: it is the referee's last word."""
    summary = protocol.result(ranks=ranks, points=outcome["points"], points_kind=outcome["points_kind"],
                              verdicts=[v.verdict for v in verdicts])
    reports = []
    for seat, player in enumerate(players):
        farewell: list[dict[str, Any]] = []
        verdict = verdicts[seat]
        if verdict.verdict == protocol.OK:
            farewell += [protocol.event(e) for e in state.events(seat, cursors[seat])]
        elif verdict.verdict in (protocol.PROTOCOL_ERROR, protocol.ILLEGAL_ACTION):
            farewell.append(protocol.error(verdict.code or verdict.verdict, verdict.detail))
        farewell += [summary, protocol.goodbye("match over" if verdict.verdict == protocol.OK else
                                               f"forfeit: {verdict.verdict}")]
        try:
            reports.append(player.close(farewell))
        except Exception as err:  # closing must not lose the result; record what went wrong instead
            reports.append(SeatReport(stderr_tail=[f"referee could not close this seat cleanly: {err}"]))
    return reports
