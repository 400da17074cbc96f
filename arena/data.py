"""Open data as training data: replays in, per-seat trajectories out, in the environments' own encodings.

    from arena import data
    for trajectory in data.load("kozyr-bura-2026-11.jsonl.gz", bots={"greedy-bura"}):
        trajectory.observations   # (T, size) float32: what the seat saw at each of its decisions
        trajectory.action_masks   # (T, actions) int8: its legal action indices then
        trajectory.actions        # (T,) int64: the index it chose
        trajectory.rewards        # (T,) float32: 0, and the match's reward on its last decision

A source is a dump's replay file (one replay per line, ``.jsonl.gz`` or ``.jsonl``), one replay
(``.json.gz`` or ``.json``, as ``arena play --replays`` and ``arena episodes`` write) or a folder of them.
Each replay is first verified by re-running it through the engine (``arena.replay.rebuild``); the
trajectories come from a second re-run, so every observation, legal set and action index is the engine's
and the encoder's (``arena.env.encoding``), exactly as the PettingZoo, Gymnasium and OpenSpiel environments
give them. A replay that does not re-run, or records an action the encoder cannot place among the legal
moves, is refused with ``RefusedReplay`` naming it (file and line) and why. Rewards are the environments':
each seat gets its side's match score mapped to [-1, 1] (after forfeits, as the result ranks them).

Burraco's meld and add moves are indexed over the turn's first ``CANDIDATES`` candidates (as in the
environments); a recorded meld that is not among them has the index ``OUTSIDE`` (-1): it was legal, but
the environments' action space has no index for it.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from arena import protocol
from arena.env.encoding import BurracoEncoder, Encoder, encoder_for
from arena.games import load_game, new_match
from arena.games.seating import side_scores
from arena.replay import MAX_REPLAY_BYTES, MAX_REPLAY_DEPTH, ReplayError, rebuild
from arena.replay import load as load_replay

OUTSIDE = -1
REPLAY_SUFFIXES = (".json.gz", ".json")
DUMP_SUFFIXES = (".jsonl.gz", ".jsonl")


class RefusedReplay(ValueError):
    """A replay that cannot become training data; the message names it and says why."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


@dataclass
class Trajectory:
    """One seat's decisions in one match."""

    source: str  # where the replay came from: a file, or "dump-file:line"
    game: str
    preset: str
    seed: int
    seat: int
    bot: str  # the seat's bot as the replay names it (the site's "name@vN")
    observations: np.ndarray
    action_masks: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    reward: float  # the match's reward for this seat, also the last entry of ``rewards``
    engine_actions: list[dict[str, Any]] = field(default_factory=list)  # the actions as the engine took them
    # With ``raw=True`` only: the engine's observation dict of each decision (what a bot gets through the
    # protocol) and its legal moves as (action index, engine action), in index order.
    raw_observations: list[dict[str, Any]] = field(default_factory=list)
    legal_moves: list[list[tuple[int, dict[str, Any]]]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)


def _key(value: Any) -> Any:
    """An engine action as a hashable key, equal for two spellings of one action (a list of cards is a set)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(sorted((_key(v) for v in value), key=repr))
    return value


def bot_name(label: str) -> str:
    """``greedy-bura@v3`` -> ``greedy-bura``: a replay names a seat by its bot's name and version."""
    return label.rsplit("@v", 1)[0] if "@v" in label else label


def rewards_of(replay: dict[str, Any]) -> list[float]:
    """Each seat's reward: its side's match score (1 win, ½ tie, 0 loss per other side) mapped to [-1, 1]."""
    result = replay["result"]
    scores = side_scores(result["ranks"], result["teams"])
    reward = [0.0] * len(result["ranks"])
    for side, team in enumerate(result["teams"]):
        for seat in team:
            reward[seat] = 2.0 * scores[side] - 1.0
    return reward


def trajectories(replay: dict[str, Any], source: str = "replay",
                 seats: Callable[[int, str], bool] | None = None, raw: bool = False) -> list[Trajectory]:
    """The trajectories of the seats ``seats(seat, bot_label)`` accepts (every seat by default), in seat order;
    ``raw`` keeps each decision's observation dict and legal moves too. Raises RefusedReplay naming ``source``
    when the replay does not re-run or an action has no index."""
    try:
        rebuild(replay)
    except ReplayError as err:
        raise RefusedReplay(source, f"does not re-run through the engine: {err}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise RefusedReplay(source, f"is malformed: {type(err).__name__}: {err}") from None
    game, preset, seed = replay["game"], replay["preset"], replay["seed"]
    rules = load_game(game).Rules(**replay["rules"])
    state = new_match(rules, seed)
    encoder: Encoder = encoder_for(game, rules, state)
    burraco = encoder if isinstance(encoder, BurracoEncoder) else None
    labels = [s["bot"] for s in replay["seats"]]
    wanted = [seats is None or seats(s, labels[s]) for s in range(len(labels))]
    vectors: list[list[np.ndarray]] = [[] for _ in labels]
    masks: list[list[np.ndarray]] = [[] for _ in labels]
    chosen: list[list[int]] = [[] for _ in labels]
    taken: list[list[dict[str, Any]]] = [[] for _ in labels]
    observed: list[list[dict[str, Any]]] = [[] for _ in labels]
    legal: list[list[list[tuple[int, dict[str, Any]]]]] = [[] for _ in labels]
    for i, entry in enumerate(replay["actions"]):
        seat, action = entry["seat"], entry["action"]
        if wanted[seat]:
            observation = state.observation(seat)
            if burraco is not None:
                candidates = burraco.candidates(observation)
                moves = burraco.moves(state, seat, observation, candidates)
                vector = burraco.encode(observation, candidates)
            else:
                moves = encoder.moves(state, seat, observation)
                vector = encoder.encode(observation)
            index = _index_of(moves, action)
            if index is None:
                if burraco is None or action.get("type") not in ("meld", "add"):
                    raise RefusedReplay(source, f"action {i} by seat {seat} ({action!r}) is legal, but the "
                                                f"{game} encoder lists no such move: it has no action index")
                index = OUTSIDE
            mask = np.zeros(encoder.actions, dtype=np.int8)
            mask[[m for m, _ in moves]] = 1
            vectors[seat].append(vector)
            masks[seat].append(mask)
            chosen[seat].append(index)
            taken[seat].append(action)
            if raw:  # a copy: an observation may share lists the engine changes as play goes on
                observed[seat].append(orjson.loads(orjson.dumps(observation)))
                legal[seat].append(moves)
        state.apply(seat, action)
    reward = rewards_of(replay)
    found = []
    for seat, label in enumerate(labels):
        if not wanted[seat]:
            continue
        steps = len(chosen[seat])
        rewards = np.zeros(steps, dtype=np.float32)
        if steps:
            rewards[-1] = reward[seat]
        found.append(Trajectory(
            source=source, game=game, preset=preset, seed=seed, seat=seat, bot=label,
            observations=np.stack(vectors[seat]) if steps else np.zeros((0, encoder.size), dtype=np.float32),
            action_masks=np.stack(masks[seat]) if steps else np.zeros((0, encoder.actions), dtype=np.int8),
            actions=np.asarray(chosen[seat], dtype=np.int64), rewards=rewards, reward=reward[seat],
            engine_actions=taken[seat], raw_observations=observed[seat], legal_moves=legal[seat]))
    return found


def _index_of(moves: list[tuple[int, dict[str, Any]]], action: dict[str, Any]) -> int | None:
    for index, move in moves:
        if move == action:
            return index
    key = _key(action)
    for index, move in moves:
        if _key(move) == key:
            return index
    return None


def replays(source: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, replay) for every replay in ``source``: a dump file (named ``file:line``), a replay file, or a
    folder of them (sorted, recursively). A line or file that is not a readable replay raises RefusedReplay."""
    path = Path(source)
    if path.is_dir():
        for child in sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(DUMP_SUFFIXES +
                                                                                          REPLAY_SUFFIXES)):
            yield from replays(child)
        return
    if not path.exists():
        raise RefusedReplay(str(path), "no such file or folder")
    if path.name.endswith(DUMP_SUFFIXES):
        yield from _dump_lines(path)
        return
    try:
        yield str(path), load_replay(path)
    except ReplayError as err:
        raise RefusedReplay(str(path), str(err).removeprefix(f"{path}: ").removeprefix(f"{path} ")) from None


def _dump_lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """A dump's replays one line at a time: memory holds one replay, whatever the file's size."""
    try:
        raw = gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")  # noqa: SIM115
    except OSError as err:
        raise RefusedReplay(str(path), f"cannot be read: {err.strerror}") from None
    with raw as reader:
        number = 0
        while True:
            name = f"{path}:{number + 1}"
            try:
                line = reader.readline(MAX_REPLAY_BYTES + 1)
            except (OSError, EOFError) as err:
                raise RefusedReplay(name, f"the file is damaged: {err}") from None
            if not line:
                return
            number += 1
            if len(line) > MAX_REPLAY_BYTES:
                raise RefusedReplay(name, f"the line is longer than {MAX_REPLAY_BYTES // 2**20} MiB; no replay is")
            if not line.strip():
                continue
            try:
                replay = orjson.loads(line)
            except orjson.JSONDecodeError as err:
                raise RefusedReplay(name, f"is not JSON: {err}") from None
            if not isinstance(replay, dict) or protocol.depth_exceeds(replay, MAX_REPLAY_DEPTH):
                raise RefusedReplay(name, "is not a replay (a JSON object of the kozyr-replay format)")
            yield name, replay


def load_trajectories(source: str | Path, *, bots: Collection[str] | None = None, raw: bool = False,
                      skip_refused: bool = False, refused: list[RefusedReplay] | None = None) -> Iterator[Trajectory]:
    """Every trajectory in ``source``, replay by replay; ``bots`` keeps only the seats of these bots (by name,
    ``greedy-bura``, or by name and version, ``greedy-bura@v3``); ``raw`` keeps the observation dicts and legal
    moves. A refused replay raises RefusedReplay, or with ``skip_refused`` is left out and appended to
    ``refused``."""
    wanted = None
    if bots is not None:
        names = set(bots)

        def wanted(seat: int, label: str) -> bool:
            return label in names or bot_name(label) in names

    for name, replay in replays(source):
        try:
            yield from trajectories(replay, name, wanted, raw)
        except RefusedReplay as err:
            if not skip_refused:
                raise
            if refused is not None:
                refused.append(err)


load = load_trajectories  # the module's front door: ``arena.data.load(path)``
