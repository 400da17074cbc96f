"""The referee: plays one match between players and returns what happened, whatever the bots do.

It owns time, I/O and misbehaviour; the game engine owns the rules. Nothing a bot does can raise out of
:func:`play_match`: a seat that times out, crashes, breaks the protocol or plays an illegal action
forfeits (with its team), the others are ranked by the rules on the position reached, and every player
is closed — its whole process tree killed — before the function returns.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
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
# Every match also has a wall-clock ceiling: what its time control allows (every seat's start-up, every
# decision at its full move time, every seat's whole bank) but never more than this. An honest bot within
# its clock that is still playing when the ceiling passes is stopped without blame: the match is "aborted".
# Unless a seat thought for more than its share of the ceiling (the ceiling after start-up, split evenly
# between the seats): then that seat ran the match out of time and forfeits (timeout match-time), so a losing
# bot cannot turn a long match into an unscored one by playing just inside its move time.
MATCH_WALL_CEILING_S = 3 * 3600
# Bot-controlled text (verdict details, rejected actions' errors) is stored at most this long.
MAX_DETAIL_CHARS = 1000
# An answer handed over this long after its seat's clock ran out is still a timeout. The slack covers only the
# referee's own bookkeeping between the transport's return and the clock's reading.
CLOCK_SLACK_MS = 50
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

    def match_seconds(self, seats: int, max_decisions: int = MAX_DECISIONS) -> float:
        """The longest a match may take: start-up, every decision at full move time, every seat's bank,
        capped at MATCH_WALL_CEILING_S. The runner gives each bot's sandbox a wall limit just above it."""
        bound = self.startup_ms + max_decisions * self.move_ms + seats * self.bank_ms
        return min(bound / 1000, MATCH_WALL_CEILING_S)


@dataclass
class SeatVerdict:
    verdict: str = protocol.OK
    code: str | None = None
    detail: str = ""

    @property
    def forfeits(self) -> bool:
        return self.verdict not in (protocol.OK, protocol.ABORTED)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "code": self.code, "detail": self.detail}


@dataclass
class MatchRecord:
    """The outcome of one match: ``result`` for ratings and tables, ``replay`` for everything else."""

    result: dict[str, Any]
    replay: dict[str, Any]
    reports: list[SeatReport] = field(default_factory=list)
    # Each seat's decisions' time in all, in ms (its own clock): kept out of the result, which is byte-identical
    # for the same seed and bots, while this is measured.
    think_ms: list[int] = field(default_factory=list)

    @property
    def failed_seats(self) -> list[int]:
        return [s["seat"] for s in self.result["seats"] if s["verdict"] not in (protocol.OK, protocol.ABORTED)]

    @property
    def aborted(self) -> bool:
        """Stopped for a reason that is nobody's fault: replay it, do not score it."""
        return self.result["ended_by"] == ENDED_ABORTED


ENDED_ABORTED = "aborted"


def ended_by(verdicts: list[str], finished: bool) -> str:
    """Why the match stopped, from the seats' verdicts and whether the rules finished it."""
    if protocol.ABORTED in verdicts:
        return ENDED_ABORTED
    if any(v != protocol.OK for v in verdicts):
        return "forfeit"
    return "rules" if finished else "decision-limit"


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
        self.thought_s = 0.0  # every decision's time, in all: what the match ceiling's shares are held against

    def deadline(self, started: float) -> float:
        return started + (self.control.move_ms + self.bank_ms) / 1000

    def charge(self, elapsed_s: float) -> bool:
        """Charge a decision; False when it overran move time and the whole bank (a player's transport that
        handed over a late answer must not stretch the clock: the answer is a timeout all the same)."""
        self.thought_s += elapsed_s
        over = int(elapsed_s * 1000) - self.control.move_ms
        if over > 0:
            if over > self.bank_ms + CLOCK_SLACK_MS:
                return False
            self.bank_ms = max(0, self.bank_ms - over)
        return True


def play_match(rules: Any, seed: int, players: list[Player], *, preset: str, time_control: TimeControl | None = None,
               labels: list[str] | None = None, max_decisions: int = MAX_DECISIONS,
               wall_seconds: float | None = None, seat_time_controls: Sequence[TimeControl | None] | None = None,
               on_action: Callable[[int, dict[str, Any]], None] | None = None) -> MatchRecord:
    """Play a whole match. ``players[i]`` sits in seat i. Returns the result and the replay.

    ``wall_seconds`` bounds the whole match (default: the time controls' ``match_seconds``); past it the match
    is aborted without blame. ``seat_time_controls[i]``, when given and not None, is seat i's own clock in
    place of ``time_control`` (a person's minutes beside a bot's milliseconds). ``on_action(seat, action)`` is
    called after every action the rules accepted, in order (a live view follows the match with it); what it
    raises is logged away, never the match's end."""
    control = time_control or TimeControl()
    game = game_of_rules(rules)
    state = new_match(rules, seed)
    n = state.num_seats
    if len(players) != n:
        raise ValueError(f"{preset} needs {n} players, got {len(players)}")
    labels = labels or [p.label for p in players]
    outcome0 = state.outcome()
    teams = outcome0["teams"]
    controls = _seat_controls(control, seat_time_controls, n)
    widest = _widest(controls)
    verdicts = [SeatVerdict() for _ in range(n)]
    names = [""] * n
    decisions = [0] * n
    clocks = [_Clock(controls[s]) for s in range(n)]
    cursors = [0] * n
    actions: list[dict[str, Any]] = []
    rejected: dict[str, Any] | None = None
    match_seconds = widest.match_seconds(n, max_decisions) if wall_seconds is None else wall_seconds
    match_deadline = time.monotonic() + match_seconds

    def fail(seat: int, failure: PlayerFailure) -> None:
        verdicts[seat] = SeatVerdict(failure.verdict, failure.code, protocol.printable(failure.detail,
                                                                                       MAX_DETAIL_CHARS))

    def at_ceiling(seat: int) -> None:
        """The ceiling passed while ``seat`` was to move (its thinking so far charged to its clock): blame the seat
        that thought past its share of the ceiling, if one did; else the mover is stopped without blame."""
        spent = [clock.thought_s for clock in clocks]
        culprit = _over_its_share(spent, match_seconds, widest)
        if culprit is None:
            fail(seat, _ceiling())
        else:
            fail(culprit, PlayerFailure(protocol.TIMEOUT, "match-time", f"thought for {spent[culprit]:.0f} s in "
                                        f"all, more than its share of the match's {match_seconds:.0f} s wall-clock "
                                        f"ceiling ({_share_s(match_seconds, widest, n):.0f} s each)"))

    def pending_events(seat: int) -> list[dict[str, Any]]:
        fresh = state.events(seat, cursors[seat])
        cursors[seat] += len(fresh)
        return fresh

    try:
        _start_all(players, controls, game, preset, rules, teams, verdicts, names, fail)
        request_id = 0
        while all(v.verdict == protocol.OK for v in verdicts) and not state.is_over():
            if request_id >= max_decisions:
                break
            seat = state.to_move()
            player = players[seat]
            request_id += 1
            started = time.monotonic()
            if started >= match_deadline:
                at_ceiling(seat)
                break
            deadline = min(clocks[seat].deadline(started), match_deadline)
            charged = False
            try:
                before = [protocol.event(body) for body in pending_events(seat)]
                observation = state.observation(seat)
                request = protocol.request(request_id=request_id, decision=observation.get("decision"),
                                           observation=observation,
                                           legal_actions=state.legal_actions(seat),
                                           time_left_ms=controls[seat].move_ms + clocks[seat].bank_ms)
                if getattr(player, "forgives_busy_host", False):
                    reply = player.ask(request, deadline, before, ceiling=match_deadline)
                else:
                    reply = player.ask(request, deadline, before)
                charged = True
                busy_host_s = getattr(player, "host_wait_s", 0.0)
                if not clocks[seat].charge(time.monotonic() - started - busy_host_s):
                    raise PlayerFailure(protocol.TIMEOUT, "move", "late")
                answer = protocol.parse_action(reply, request_id)
            except ProtocolError as err:
                fail(seat, PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail))
                break
            except PlayerFailure as failure:
                if not charged:  # the seat's time up to its failure is its own, for the cost of its matches too
                    clocks[seat].thought_s += time.monotonic() - started
                if failure.verdict == protocol.TIMEOUT and failure.code == "move":
                    if deadline == match_deadline and deadline < clocks[seat].deadline(started):
                        at_ceiling(seat)  # within its own clock (its thinking so far is charged above)
                        break
                    failure = PlayerFailure(protocol.TIMEOUT, "move", f"no answer to request {request_id} "
                                            f"within {controls[seat].move_ms} ms plus {clocks[seat].bank_ms} ms left "
                                            f"in the bank")
                fail(seat, failure)
                break
            decisions[seat] += 1
            try:
                state.apply(seat, answer.action)
            except IllegalAction as err:
                fail(seat, PlayerFailure(protocol.ILLEGAL_ACTION, err.rule, err.detail))
                rejected = {"seat": seat, "action": answer.action, "rule": err.rule,
                            "error": verdicts[seat].detail}
                break
            except MALFORMED_ACTION_ERRORS as err:
                fail(seat, PlayerFailure(protocol.ILLEGAL_ACTION, "malformed-action",
                                         f"malformed action: {type(err).__name__}: {err}"))
                rejected = {"seat": seat, "action": answer.action, "rule": "malformed-action",
                            "error": verdicts[seat].detail}
                break
            actions.append({"seat": seat, "action": answer.action})
            if on_action is not None:
                _tell(on_action, seat, answer.action)
    finally:
        reports = _close_all(players, state, cursors, teams, verdicts)
        for seat, report in enumerate(reports):
            _add_sandbox_cause(verdicts[seat], report)
        outcome = state.outcome()
        forfeited = {s for s, v in enumerate(verdicts) if v.forfeits}
        ranks = final_ranks(outcome["ranks"], teams, forfeited) if forfeited else outcome["ranks"]

    seats = [{"seat": s, "bot": labels[s], "name": names[s], **verdicts[s].to_dict(), "decisions": decisions[s],
              "stderr_tail": reports[s].stderr_tail, "stderr_log": reports[s].stderr_log,
              "resources": reports[s].resources} for s in range(n)]
    ended = ended_by([v.verdict for v in verdicts], outcome["finished"])
    result = {"game": game, "preset": preset, "seed": seed, "finished": ended == "rules", "ended_by": ended,
              "ranks": ranks, "points": outcome["points"], "points_kind": outcome["points_kind"], "teams": teams,
              "deals": len(outcome["deals"]), "seats": seats}
    replay = {"format": REPLAY_FORMAT, "version": REPLAY_VERSION, "game": game, "preset": preset,
              "rules": rules_to_dict(rules), "seed": seed, "time": control.to_dict(),
              **({"seat_time": [c.to_dict() for c in controls]} if any(c != control for c in controls) else {}),
              "seats": [{"seat": s, "bot": labels[s], "name": names[s]} for s in range(n)],
              "actions": actions, "rejected": rejected, "events": state.events(None),
              "outcome": outcome, "result": {k: v for k, v in result.items() if k != "seats"},
              "verdicts": [{"seat": s, **verdicts[s].to_dict(), "stderr_tail": reports[s].stderr_tail,
                            "resources": reports[s].resources} for s in range(n)]}
    return MatchRecord(result=result, replay=replay, reports=reports,
                       think_ms=[round(clock.thought_s * 1000) for clock in clocks])


def _seat_controls(control: TimeControl, seat_controls: Sequence[TimeControl | None] | None,
                   seats: int) -> list[TimeControl]:
    if seat_controls is None:
        return [control] * seats
    if len(seat_controls) != seats:
        raise ValueError(f"seat_time_controls names {len(seat_controls)} seats; the match has {seats}")
    return [own or control for own in seat_controls]


def _widest(controls: Sequence[TimeControl]) -> TimeControl:
    """The most generous of the seats' clocks, field by field: what the match's wall-clock ceiling and the
    seats' shares of it are held against."""
    return TimeControl(startup_ms=max(c.startup_ms for c in controls), move_ms=max(c.move_ms for c in controls),
                       bank_ms=max(c.bank_ms for c in controls))


def _tell(on_action: Callable[[int, dict[str, Any]], None], seat: int, action: dict[str, Any]) -> None:
    """A watcher's failure (a live relay that is away) must never end or change the match."""
    try:
        on_action(seat, action)
    except Exception:
        logging.getLogger(__name__).warning("the match's action watcher failed", exc_info=True)


def _start_all(players: list[Player], controls: list[TimeControl], game: str, preset: str, rules: Any,
               teams: list[list[int]], verdicts: list[SeatVerdict], names: list[str], fail) -> None:
    """Launch every seat's bot at once, then collect the readies: start-up costs the longest seat's time,
    not the sum. Stops at the first seat that fails (launches in seat order, readies soonest deadline first),
    as a match stops at its first forfeit."""
    n = len(players)
    deadlines = [0.0] * n
    rules_dict = rules_to_dict(rules)

    def launch(seat: int) -> None:
        hello = protocol.hello(game=game, preset=preset, rules=rules_dict, seat=seat, players=n, teams=teams,
                               time=controls[seat].to_dict())
        allowance = max(0, getattr(players[seat], "startup_allowance_ms", 0))
        deadlines[seat] = time.monotonic() + (controls[seat].startup_ms + allowance) / 1000
        players[seat].launch(hello, deadlines[seat])

    # One after another from the calling thread, the readies then awaited together. Not from other threads:
    # a sandbox may tie the bot's life to the thread that started it (bubblewrap's --die-with-parent is a
    # parent-*thread* death signal), and concurrent starts with a fork hook failed now and then when tried.
    for seat in range(n):
        try:
            launch(seat)
        except PlayerFailure as failure:
            fail(seat, failure)
            return
    # Readies are awaited soonest deadline first: a bot's 10 s start-up must not run out while the referee
    # still waits for a person's (minutes) in an earlier seat, with the bot's ready already sent.
    for seat in sorted(range(n), key=deadlines.__getitem__):
        player = players[seat]
        try:
            names[seat] = protocol.parse_ready(player.wait_ready(deadlines[seat])).name
        except ProtocolError as err:
            fail(seat, PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail))
        except PlayerFailure as failure:
            fail(seat, failure)
        if verdicts[seat].verdict != protocol.OK:
            return


def _share_s(match_seconds: float, control: TimeControl, seats: int) -> float:
    return max(0.0, match_seconds - control.startup_ms / 1000) / seats


def _over_its_share(spent: list[float], match_seconds: float, control: TimeControl) -> int | None:
    """The seat that thought longest, if that is more than its share of the ceiling. A share too small to
    hold one full decision (move time and bank) blames nobody: then the ceiling, not any bot, is too short
    for the time control (an operator's choice)."""
    share = _share_s(match_seconds, control, len(spent))
    if share < (control.move_ms + control.bank_ms) / 1000:
        return None
    longest = max(range(len(spent)), key=spent.__getitem__)
    return longest if spent[longest] > share else None


def _ceiling() -> PlayerFailure:
    return PlayerFailure(protocol.ABORTED, "wall-ceiling", "the match reached its wall-clock ceiling while this "
                         "seat was within its own time: nobody's fault, the match is not scored")


def _add_sandbox_cause(verdict: SeatVerdict, report: SeatReport) -> None:
    """A crash or timeout often has its real cause in the sandbox (out of memory, CPU limit): say so. When the
    cause is nobody's fault (the wall-clock limit, which the runner sets above anything the time control
    allows, or a sandbox that failed to set up) the seat's verdict becomes ``aborted``: not a forfeit."""
    resources = report.resources
    if verdict.verdict == protocol.OK or not isinstance(resources, dict):
        return
    cause = resources.get("outcome")
    if cause in (None, "ok"):
        return
    if verdict.verdict != protocol.ABORTED and cause in SANDBOX_NOBODYS_FAULT:
        verdict.verdict, verdict.code = protocol.ABORTED, SANDBOX_NOBODYS_FAULT[cause]
        verdict.detail = f"not scored (nobody's fault); the referee saw: {verdict.detail}"
    verdict.detail += f"; sandbox: {cause} ({resources.get('detail', '')})"


# sandbox.report outcomes that are never the bot's doing -> the aborted verdict's code
SANDBOX_NOBODYS_FAULT = {"wall_time": "sandbox-wall", "sandbox_failure": "infrastructure"}


def _close_all(players: list[Player], state: Any, cursors: list[int], teams: list[list[int]],
               verdicts: list[SeatVerdict]) -> list[SeatReport]:
    """Tell every seat how it ended and close it. Closing never raises: it is the referee's last word."""
    outcome = state.outcome()
    forfeited = {s for s, v in enumerate(verdicts) if v.forfeits}
    ranks = final_ranks(outcome["ranks"], teams, forfeited) if forfeited else outcome["ranks"]
    summary = protocol.result(ranks=ranks, points=outcome["points"], points_kind=outcome["points_kind"],
                              verdicts=[v.verdict for v in verdicts])
    farewells = []
    for seat in range(len(players)):
        farewell: list[dict[str, Any]] = []
        verdict = verdicts[seat]
        if not verdict.forfeits:
            farewell += [protocol.event(e) for e in state.events(seat, cursors[seat])]
        elif verdict.verdict in (protocol.PROTOCOL_ERROR, protocol.ILLEGAL_ACTION):
            farewell.append(protocol.error(verdict.code or verdict.verdict, verdict.detail))
        reason = "match over" if verdict.verdict == protocol.OK else (
            "match aborted" if verdict.verdict == protocol.ABORTED else f"forfeit: {verdict.verdict}")
        farewells.append([*farewell, summary, protocol.goodbye(reason)])
    reports: list[SeatReport] = []
    # Every seat is told first, then each is closed: the bots' exits after their goodbye overlap.
    for seat, player in enumerate(players):
        with contextlib.suppress(Exception):  # close() below reports what went wrong with this seat
            player.hang_up(farewells[seat])
    for seat, player in enumerate(players):
        try:
            reports.append(player.close(farewells[seat]))
        except Exception as err:  # closing must not lose the result; record what went wrong instead
            reports.append(SeatReport(stderr_tail=[protocol.printable(f"referee could not close this seat "
                                                                      f"cleanly: {err}")]))
    return reports
