"""Replays: write, read, verify by re-running through the engine, and tell as a readable account.

A replay (format ``kozyr-replay``, version 1; docs/replay.md) holds the rules, the seed, the seats and
every accepted action, plus the full event log and the result. The seed and the actions alone determine
the match, so verification re-plays them and demands that every recorded event and the result come out
the same: any edit — a changed card, action, score or verdict — is caught and named.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import zlib
from pathlib import Path
from typing import Any

import orjson

from arena import protocol
from arena.cards import MAX_SEED
from arena.games import all_presets, load_game, new_match
from arena.games.base import IllegalAction, RuleOptionError
from arena.games.options import recorded_rules_match, rules_to_dict
from arena.referee import MALFORMED_ACTION_ERRORS, REPLAY_FORMAT, REPLAY_VERSION, ended_by, final_ranks

VERDICTS = (protocol.OK, protocol.TIMEOUT, protocol.CRASH, protocol.PROTOCOL_ERROR, protocol.ILLEGAL_ACTION,
            protocol.SANDBOX_FAILURE, protocol.ABORTED)


# Unpacked size: a Burraco match stopped at the 50,000-decision limit makes about 8 MiB, and parsing the
# densest possible 32 MiB of JSON takes well under a gigabyte.
MAX_REPLAY_BYTES = 32 * 1024 * 1024
# A replay nests a few levels around a bot's action, which may itself nest protocol.MAX_DEPTH levels.
MAX_REPLAY_DEPTH = protocol.MAX_DEPTH + 16


class ReplayError(ValueError):
    """A replay that cannot be read or does not re-run to what it records."""


def dumps(replay: dict[str, Any]) -> bytes:
    return json.dumps(replay, separators=(",", ":"), ensure_ascii=False, sort_keys=False).encode("utf-8")


def save(replay: dict[str, Any], path: Path) -> None:
    """Write JSON, gzip-compressed when the name ends in .gz (with a zero timestamp: same match, same bytes)."""
    data = dumps(replay)
    if path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=9, mtime=0)
    path.write_bytes(data)


def load(path: Path) -> dict[str, Any]:
    """Read a replay file, refusing one that unpacks to more than MAX_REPLAY_BYTES or nests deeper than
    MAX_REPLAY_DEPTH: the CLI reads any file, and a crafted one must not take gigabytes or the stack."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_REPLAY_BYTES + 1)
    except OSError as err:
        raise ReplayError(f"cannot read {path}: {err.strerror}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
                data = unpacked.read(MAX_REPLAY_BYTES + 1)  # stops at the cap, however well it compresses
        except (OSError, EOFError, zlib.error) as err:
            raise ReplayError(f"{path} is a damaged gzip file: {err}") from None
    if len(data) > MAX_REPLAY_BYTES:
        raise ReplayError(f"{path} is larger than {MAX_REPLAY_BYTES // 2**20} MiB unpacked; no replay is that big")
    try:
        # orjson stops at 1,024 levels with an error instead of exhausting the stack as json.loads does
        replay = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise ReplayError(f"{path} is not JSON: {err}") from None
    if not isinstance(replay, dict):
        raise ReplayError(f"{path}: a replay is a JSON object")
    if protocol.depth_exceeds(replay, MAX_REPLAY_DEPTH):
        raise ReplayError(f"{path}: lists and objects nest deeper than {MAX_REPLAY_DEPTH} levels; no replay does")
    return replay


def _require(replay: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in replay:
        raise ReplayError(f"replay has no {key!r} field")
    if not isinstance(replay[key], kind):
        raise ReplayError(f"replay field {key!r} has the wrong type ({type(replay[key]).__name__})")
    return replay[key]


def rebuild(replay: dict[str, Any]):
    """Re-run the replay through the engine; return the final state or raise ReplayError naming the first
    place where the record and the rules disagree."""
    if replay.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"not a Kozyr replay (format is {replay.get('format')!r}, expected {REPLAY_FORMAT!r})")
    if replay.get("version") != REPLAY_VERSION:
        raise ReplayError(f"replay version {replay.get('version')!r} is not supported (this arena reads "
                          f"version {REPLAY_VERSION})")
    game = _require(replay, "game", str)
    recorded_rules = _require(replay, "rules", dict)
    try:
        rules = load_game(game).Rules(**recorded_rules)
    except (RuleOptionError, TypeError) as err:
        raise ReplayError(f"replay rules are invalid: {err}") from None
    if not recorded_rules_match(rules, recorded_rules):  # options added since are at their default
        raise ReplayError(f"replay rules are not every option as played: expected {rules_to_dict(rules)}")
    preset = _require(replay, "preset", str)
    known = all_presets().get(preset)
    if known is not None and known[0] != game:
        raise ReplayError(f"preset {preset!r} is a preset of {known[0]!r}, but the replay's game is {game!r}")
    seed = _require(replay, "seed", int)
    if isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ReplayError(f"replay seed {seed!r} is not an integer from 0 to 2**64-1")
    state = new_match(rules, seed)
    for i, entry in enumerate(_require(replay, "actions", list)):
        if not isinstance(entry, dict) or not isinstance(entry.get("action"), dict):
            raise ReplayError(f"action {i} is malformed: {entry!r}")
        seat = entry.get("seat")
        if not _is_seat(seat) or seat != state.to_move():
            raise ReplayError(f"action {i} is recorded for seat {seat!r}, but seat {state.to_move()} was to move")
        try:
            state.apply(seat, entry["action"])
        except IllegalAction as err:
            raise ReplayError(f"action {i} by seat {seat} is illegal: {err}") from None
        except MALFORMED_ACTION_ERRORS as err:
            raise ReplayError(f"action {i} by seat {seat} is malformed: {type(err).__name__}: {err}") from None
    rejected = _require(replay, "rejected", (dict, type(None)))
    if rejected is not None:
        _check_rejected(state, rejected)
    recorded = _require(replay, "events", list)
    actual = state.events(None)
    for i, (mine, theirs) in enumerate(zip(actual, recorded, strict=False)):
        if mine != theirs:
            raise ReplayError(f"event {i} differs from the rules' re-run: recorded {theirs!r}, re-run gives {mine!r}")
    if len(actual) != len(recorded):
        raise ReplayError(f"the replay records {len(recorded)} events, the re-run gives {len(actual)}")
    _check_result(replay, state, rejected)
    return state


def _is_seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_rejected(state: Any, rejected: dict[str, Any]) -> None:
    seat = rejected.get("seat")
    if not _is_seat(seat) or seat != state.to_move():
        raise ReplayError(f"the rejected action is recorded for seat {seat!r}, but seat {state.to_move()} was to "
                          f"move")
    if not isinstance(rejected.get("error"), str):
        raise ReplayError("the rejected action has no 'error' text")
    try:
        copy.deepcopy(state).apply(seat, rejected.get("action"))
    except IllegalAction as err:
        if err.rule != rejected.get("rule"):
            raise ReplayError(f"the rejected action breaks rule {err.rule!r}, not {rejected.get('rule')!r}") from None
        return
    except MALFORMED_ACTION_ERRORS:
        if rejected.get("rule") == "malformed-action":
            return
        raise ReplayError("the rejected action is malformed, but recorded as breaking another rule") from None
    raise ReplayError("the action recorded as rejected is legal")


def _check_seats(replay: dict[str, Any], key: str, seats: int) -> list[dict[str, Any]]:
    """``seats`` and ``verdicts`` hold one object per seat, in seat order."""
    entries = _require(replay, key, list)
    if len(entries) != seats or any(not isinstance(e, dict) or not _is_seat(e.get("seat")) or e["seat"] != s
                                    for s, e in enumerate(entries)):
        raise ReplayError(f"replay field {key!r} must hold one object per seat 0 to {seats - 1}, in order")
    return entries


def _check_result(replay: dict[str, Any], state: Any, rejected: dict[str, Any] | None) -> None:
    outcome = state.outcome()
    if replay.get("outcome") != outcome:
        raise ReplayError("the recorded outcome (points, deals) differs from the re-run")
    seats = state.num_seats
    for entry in _check_seats(replay, "seats", seats):
        if not isinstance(entry.get("bot"), str) or not isinstance(entry.get("name"), str):
            raise ReplayError(f"seat {entry['seat']} has no 'bot' and 'name' text")
    verdicts = _check_seats(replay, "verdicts", seats)
    # The referee stops at the first failure: at most one seat forfeits (or is aborted), and once the match
    # has begun it is the seat that was asked to move. An illegal action forfeits exactly when a rejected
    # action is recorded.
    stopped = [v["seat"] for v in verdicts if v.get("verdict") != protocol.OK]
    for v in verdicts:
        if v.get("verdict") not in VERDICTS:
            raise ReplayError(f"seat {v['seat']} has an unknown verdict {v.get('verdict')!r}")
    if len(stopped) > 1:
        raise ReplayError(f"seats {stopped} all forfeit, but a match stops at the first forfeit")
    if stopped and state.is_over():
        raise ReplayError(f"seat {stopped[0]} forfeits, but the match was played to its end")
    if stopped and replay["actions"] and stopped[0] != state.to_move():
        raise ReplayError(f"seat {stopped[0]} forfeits, but seat {state.to_move()} was the one asked to move")
    forfeited = [s for s in stopped if verdicts[s].get("verdict") != protocol.ABORTED]
    illegal = [v["seat"] for v in verdicts if v.get("verdict") == protocol.ILLEGAL_ACTION]
    if illegal != ([rejected["seat"]] if rejected is not None else []):
        raise ReplayError("the illegal-action verdicts and the recorded rejected action disagree")
    if rejected is not None and verdicts[rejected["seat"]].get("code") != rejected.get("rule"):
        raise ReplayError("the illegal-action verdict names another rule than the rejected action")
    ranks = final_ranks(outcome["ranks"], outcome["teams"], set(forfeited)) if forfeited else outcome["ranks"]
    ended = ended_by([v["verdict"] for v in verdicts], state.is_over())
    expected = {"game": replay["game"], "preset": replay["preset"], "seed": replay["seed"],
                "finished": ended == "rules", "ended_by": ended, "ranks": ranks, "points": outcome["points"],
                "points_kind": outcome["points_kind"], "teams": outcome["teams"], "deals": len(outcome["deals"])}
    result = _require(replay, "result", dict)
    for key, value in expected.items():
        if result.get(key) != value or type(result.get(key)) is not type(value):
            raise ReplayError(f"the recorded {key} {result.get(key)!r} differs from the re-run's {value!r}")
    if set(result) != set(expected):
        raise ReplayError(f"the result holds unknown fields {sorted(set(result) - set(expected))}")


def seat_view(replay: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """Everything ``seat`` was shown, in order: events and each observation it decided on."""
    game = replay["game"]
    state = new_match(load_game(game).Rules(**replay["rules"]), replay["seed"])
    if not 0 <= seat < state.num_seats:
        raise ReplayError(f"seat {seat} does not exist; this match has seats 0 to {state.num_seats - 1}")
    shown: list[dict[str, Any]] = []
    cursor = 0
    for entry in replay["actions"]:
        fresh = state.events(seat, cursor)
        cursor += len(fresh)
        shown += [{"event": e} for e in fresh]
        if entry["seat"] == seat:
            shown.append({"observation": state.observation(seat), "action": entry["action"]})
        state.apply(entry["seat"], entry["action"])
    shown += [{"event": e} for e in state.events(seat, cursor)]
    return shown


def _cards(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return " ".join(value)
    return json.dumps(value, separators=(",", ":"))


def describe_event(event: dict[str, Any]) -> str:
    """One readable line for an event of any game: its type, then its fields."""
    kind = event.get("type", "?")
    parts = [f"{key}={_cards(value)}" for key, value in event.items() if key != "type"]
    return f"{kind:<12} " + "  ".join(parts)


def narrate(replay: dict[str, Any], seat: int | None = None) -> list[str]:
    """The match as readable lines, safe to print: every character that is not printable is escaped."""
    lines = [f"{replay['preset']} ({replay['game']}), seed {replay['seed']}"]
    for s in replay["seats"]:
        lines.append(f"  seat {s['seat']}: {s['bot']}" + (f" ({s['name']})" if s.get("name") else ""))
    if seat is None:
        lines += [describe_event(e) for e in replay["events"]]
    else:
        for item in seat_view(replay, seat):
            if "event" in item:
                lines.append(describe_event(item["event"]))
            else:
                lines.append(f"{'decision':<12} seat {seat} chose {_cards(item['action'])}")
    if replay.get("rejected"):
        r = replay["rejected"]
        lines.append(f"{'rejected':<12} seat {r['seat']}: {_cards(r['action'])} — {r['error']}")
    result = replay["result"]
    lines.append(f"{'result':<12} ranks={result['ranks']} points={result['points']} ({result['points_kind']})")
    for v in replay["verdicts"]:
        if v["verdict"] != protocol.OK:
            lines.append(f"{'verdict':<12} seat {v['seat']}: {v['verdict']} ({v['code']}) {v['detail']}")
    # Labels, names, verdict details and actions come from bots or from whoever wrote the file: a terminal
    # must never receive their control characters (clear screen, window titles, clipboard writes).
    return [protocol.printable(line) for line in lines]
