"""The bot protocol, version 1: line-based JSON over stdin/stdout (the contract is docs/protocol.md).

This module only builds and parses messages; it does no I/O and keeps no state, so the referee, the
local runner, the tests and the benchmarks all speak exactly the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024  # a bot's line, newline included; longer lines are a protocol error
MAX_NAME_CHARS = 64
MAX_DEPTH = 64  # lists and objects nested in one message; deeper is a protocol error

# Every verdict the referee can give a seat (docs/protocol.md, "Verdicts").
OK = "ok"
TIMEOUT = "timeout"
CRASH = "crash"
PROTOCOL_ERROR = "protocol-error"
ILLEGAL_ACTION = "illegal-action"
SANDBOX_FAILURE = "sandbox-failure"
RESIGNED = "resigned"  # a person at a live table gave the match up: a forfeit, never a bot's verdict
# Not a forfeit: the seat was stopped for a reason that is nobody's fault (the match's wall-clock ceiling,
# the sandbox's infrastructure). The match ends with ended_by "aborted" and must be replayed, not scored.
ABORTED = "aborted"

# Protocol error codes: what exactly a bot got wrong.
BAD_UTF8 = "bad-utf8"
BAD_JSON = "bad-json"
NOT_AN_OBJECT = "not-an-object"
LINE_TOO_LONG = "line-too-long"
UNEXPECTED_TYPE = "unexpected-type"
WRONG_ID = "wrong-id"
BAD_FIELD = "bad-field"
OUTPUT_LIMIT = "output-limit"
STDERR_LIMIT = "stderr-limit"


class ProtocolError(Exception):
    """A bot line that breaks the protocol; ``code`` is one of the codes above."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.detail = message


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line: compact JSON, UTF-8, newline-terminated. Deterministic for equal input.

    orjson writes exactly what ``json.dumps(separators=(",", ":"), ensure_ascii=False)`` writes, six times
    faster; encoding is most of the referee's own work per decision.
    """
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS) + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line from a bot (without its newline) into a JSON object, or raise ProtocolError.

    Only standard JSON is accepted: no NaN or Infinity, no number too large for a 64-bit float, no lone
    surrogate escapes, at most MAX_DEPTH levels — whatever a bot sends may be stored and sent on as JSON.
    """
    if len(line) + 1 > MAX_LINE_BYTES:
        raise ProtocolError(LINE_TOO_LONG, f"line of {len(line) + 1} bytes exceeds the {MAX_LINE_BYTES}-byte limit")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ProtocolError(BAD_UTF8, f"line is not valid UTF-8 ({err.reason} at byte {err.start})") from None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as err:
        raise ProtocolError(BAD_JSON, f"line is not JSON ({err.msg} at column {err.colno}): {_excerpt(text)}") \
            from None
    if not isinstance(value, dict):
        raise ProtocolError(NOT_AN_OBJECT, f"a message must be a JSON object, got {type(value).__name__}: "
                                           f"{_excerpt(text)}")
    # The depth walk is skipped for ordinary small messages.
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise ProtocolError(BAD_JSON, f"line nests deeper than {MAX_DEPTH} levels")
    return value


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (iterative: the value may be adversarial)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                pending += [(child, level + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


def printable(text: str, limit: int | None = None) -> str:
    """``text`` safe to print on a terminal or show on a page: every character that is not printable (control
    characters, escape sequences' ESC, bidirectional overrides, line breaks) written as its escape, and at most
    ``limit`` characters kept. Used on everything a bot controls before it is stored for rendering or printed."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` deep in ``value`` (iterative: it may be adversarial)."""
    pending = [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict | list):
            if level > limit:
                return True
            pending += [(child, level + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return False


def _excerpt(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


# ---- referee → bot -------------------------------------------------------------------------------------

def hello(*, game: str, preset: str, rules: dict, seat: int, players: int, teams: list[list[int]],
          time: dict[str, int]) -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "game": game, "preset": preset, "rules": rules,
            "seat": seat, "players": players, "teams": teams, "time": time}


def request(*, request_id: int, decision: str | None, observation: dict, legal_actions: list | None,
            time_left_ms: int) -> dict[str, Any]:
    return {"type": "request", "id": request_id, "decision": decision, "observation": observation,
            "legal_actions": legal_actions, "time_left_ms": time_left_ms}


def event(body: dict) -> dict[str, Any]:
    return {"type": "event", "event": body}


def error(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}


def result(*, ranks: list[int], points: list, points_kind: str, verdicts: list[str]) -> dict[str, Any]:
    return {"type": "result", "ranks": ranks, "points": points, "points_kind": points_kind, "verdicts": verdicts}


def goodbye(reason: str) -> dict[str, Any]:
    return {"type": "goodbye", "reason": reason}


# ---- bot → referee -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ready:
    name: str


@dataclass(frozen=True)
class Action:
    request_id: int
    action: dict[str, Any]


def parse_ready(message: dict[str, Any]) -> Ready:
    if message.get("type") != "ready":
        raise ProtocolError(UNEXPECTED_TYPE, f"expected a 'ready' message after hello, got type "
                                             f"{message.get('type')!r}")
    name = message.get("name", "")
    if not isinstance(name, str):
        raise ProtocolError(BAD_FIELD, f"'name' must be a string, got {type(name).__name__}")
    # Names are shown in tables and terminals: control characters (escape codes) are dropped.
    printable = "".join(ch for ch in name if ch.isprintable())
    return Ready(name=printable[:MAX_NAME_CHARS])


def parse_action(message: dict[str, Any], expected_id: int) -> Action:
    if message.get("type") != "action":
        raise ProtocolError(UNEXPECTED_TYPE, f"expected an 'action' answering request {expected_id}, got type "
                                             f"{message.get('type')!r}")
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int):
        raise ProtocolError(BAD_FIELD, f"'id' must be the integer id of the request, got {request_id!r}")
    if request_id != expected_id:
        raise ProtocolError(WRONG_ID, f"answer carries id {request_id}, but the open request is {expected_id}")
    action = message.get("action")
    if not isinstance(action, dict):
        raise ProtocolError(BAD_FIELD, f"'action' must be a JSON object, got {type(action).__name__}")
    return Action(request_id=request_id, action=action)
