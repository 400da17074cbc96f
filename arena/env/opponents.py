"""Opponents for the single-agent wrapper: built-in bots, local bot programs, snapshots of the learner.

Each opponent answers ``act(state, seat) -> engine action`` for the seat it sits in. A built-in bot
gets the seed ``arena play`` gives it (``derive_seed(match seed, BOT_SEED_LABEL, seat)``), so an
episode against built-ins is the match ``arena play --seed`` plays. A bot program is staged as
``arena play`` stages it and started through ``arena.runner``'s players (sandboxed), and is spoken to
in the protocol of docs/protocol.md: hello, a request per decision with the events since its last one,
and the result at the end. A :class:`Snapshot` plays a learner's policy in an opponent's seat (self-play):
it sees that seat's observation encoded as the learner sees its own and answers an action index.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from arena import protocol
from arena.bots import bots_for, make_bot
from arena.botspec import BUILTIN_PREFIX, stage_bot
from arena.cards import derive_seed
from arena.env.aec import position
from arena.games.options import rules_to_dict
from arena.players import Player
from arena.referee import TimeControl
from arena.runner import BOT_SEED_LABEL, MatchJob, _player, sandbox_limits_for


class Opponent(Protocol):
    def act(self, state: Any, seat: int) -> dict[str, Any]: ...

    def close(self) -> None: ...


class BotOpponent:
    """An in-process bot object: a built-in one or a learner's snapshot (``act(observation, legal)``)."""

    def __init__(self, bot: Any):
        self.bot = bot

    def act(self, state: Any, seat: int) -> dict[str, Any]:
        return self.bot.act(state.observation(seat), state.legal_actions(seat))

    def close(self) -> None:
        """Nothing to stop."""


class Snapshot:
    """A policy that plays from the learner's side of the environment, for self-play.

    ``predict(observation) -> action index`` gets what the learner gets from ``KozyrGymEnv``:
    ``{"observation": float32 vector, "action_mask": int8 mask}`` of the seat it plays. A trained model
    is one: ``Snapshot(lambda o: model.predict(o, action_masks=o["action_mask"], deterministic=True)[0])``
    for Stable-Baselines3-contrib's MaskablePPO. Take a snapshot of a copy of the model if the learner
    keeps training while it plays. An index outside the mask is an error naming the seat.
    """

    def __init__(self, predict: Callable[[dict[str, Any]], Any]):
        if not callable(predict):
            raise TypeError(f"Snapshot takes a function observation -> action index, not {predict!r}")
        self.predict = predict


class SnapshotOpponent:
    """A :class:`Snapshot` in one seat: encodes that seat's position and maps the index back to an action."""

    def __init__(self, snapshot: Snapshot, encoder: Any):
        self.snapshot = snapshot
        self.encoder = encoder

    def act(self, state: Any, seat: int) -> dict[str, Any]:
        observation, moves, candidates = position(self.encoder, state, seat)
        mask = np.zeros(self.encoder.actions, dtype=np.int8)
        legal = dict(moves)
        mask.put(list(legal), 1)
        vector = (self.encoder.encode(observation, candidates) if self.encoder.game == "burraco"
                  else self.encoder.encode(observation))
        index = self.snapshot.predict({"observation": vector, "action_mask": mask})
        try:
            return legal[int(index)]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"the snapshot in seat {seat} chose {index!r}, which its action mask forbids "
                             f"(legal: {sorted(legal)})") from None

    def close(self) -> None:
        """Nothing to stop."""


class ProgramOpponent:
    """A local bot program in a sandbox, driven through the protocol as the referee drives it."""

    def __init__(self, directory: str | Path, game: str, preset: str, rules: Any, seed: int, seat: int, *,
                 teams: list[list[int]], sandbox: str = "bwrap", time_control: TimeControl | None = None):
        self._staging = tempfile.TemporaryDirectory(prefix="kozyr-env-bot-")
        spec = stage_bot(Path(directory), Path(self._staging.name) / "bot", label=str(directory))
        self.control = time_control or TimeControl()
        seats = rules.players
        job = MatchJob(index=0, game_number=0, rotation=0, seed=seed, preset=preset, overrides=(),
                       seat_bots=(spec,) * seats, time_control=self.control, sandbox=sandbox)
        self.player: Player = _player(job, seat, spec, game, rules, sandbox_limits_for(job, seats))
        self.seat = seat
        self.cursor = 0
        self.request_id = 0
        self.state: Any = None
        hello = protocol.hello(game=game, preset=preset, rules=rules_to_dict(rules), seat=seat, players=seats,
                               teams=teams, time=self.control.to_dict())
        deadline = time.monotonic() + self.control.startup_ms / 1000
        self.player.launch(hello, deadline)
        protocol.parse_ready(self.player.wait_ready(deadline))

    def act(self, state: Any, seat: int) -> dict[str, Any]:
        self.state = state
        fresh = state.events(seat, self.cursor)
        self.cursor += len(fresh)
        observation = state.observation(seat)
        self.request_id += 1
        request = protocol.request(request_id=self.request_id, decision=observation.get("decision"),
                                   observation=observation, legal_actions=state.legal_actions(seat),
                                   time_left_ms=self.control.move_ms + self.control.bank_ms)
        deadline = time.monotonic() + (self.control.move_ms + self.control.bank_ms) / 1000
        reply = self.player.ask(request, deadline, [protocol.event(e) for e in fresh])
        return protocol.parse_action(reply, self.request_id).action

    def close(self) -> None:
        farewell: list[dict[str, Any]] = []
        if self.state is not None:
            farewell = [protocol.event(e) for e in self.state.events(self.seat, self.cursor)]
            outcome = self.state.outcome()
            farewell.append(protocol.result(ranks=outcome["ranks"], points=outcome["points"],
                                            points_kind=outcome["points_kind"],
                                            verdicts=[protocol.OK] * len(outcome["ranks"])))
        farewell.append(protocol.goodbye("match over"))
        try:
            self.player.hang_up(farewell)
            self.player.close(farewell)
        finally:
            self._staging.cleanup()


def check_opponent(spec: Any, game: str) -> None:
    """Refuse, naming it, an opponent ``make_opponent`` could not start (before any episode begins)."""
    if isinstance(spec, str) and spec.startswith(BUILTIN_PREFIX):
        name = spec[len(BUILTIN_PREFIX):]
        if name not in bots_for(game):
            raise ValueError(f"unknown built-in bot {name!r} for {game}; built-ins are: "
                             f"{', '.join(sorted(bots_for(game)))}")
    elif isinstance(spec, str | Path):
        if not Path(spec).exists():
            raise ValueError(f"opponent {str(spec)!r} is neither 'builtin:NAME' nor an existing bot directory or file")
    elif not isinstance(spec, Snapshot) and not hasattr(spec, "act"):
        raise ValueError(f"an opponent is 'builtin:NAME', a bot directory, a Snapshot or an object with act(), "
                         f"not {spec!r}")


def make_opponent(spec: Any, game: str, preset: str, rules: Any, match_seed: int, seat: int, *,
                  teams: list[list[int]], sandbox: str = "bwrap", encoder: Any = None) -> Opponent:
    if isinstance(spec, str) and spec.startswith(BUILTIN_PREFIX):
        name = spec[len(BUILTIN_PREFIX):]
        return BotOpponent(make_bot(game, name, seat, rules, derive_seed(match_seed, BOT_SEED_LABEL, seat)))
    if isinstance(spec, str | Path):
        return ProgramOpponent(spec, game, preset, rules, match_seed, seat, teams=teams, sandbox=sandbox)
    if isinstance(spec, Snapshot):
        if encoder is None:
            raise ValueError("a Snapshot opponent needs the environment's encoder")
        return SnapshotOpponent(spec, encoder)
    if hasattr(spec, "act"):
        return BotOpponent(spec)
    raise ValueError(f"an opponent is 'builtin:NAME', a bot directory, a Snapshot or an object with act(), "
                     f"not {spec!r}")
