"""A Gymnasium single-agent view of a Kozyr match: one seat learns, the other seats are opponents.

Opponents are, per seat or one for all: ``"builtin:NAME"`` (a built-in bot, e.g. ``builtin:greedy``),
the path of a local bot directory (played through ``arena.runner``'s sandboxed players, speaking the
protocol as on the platform), or any object with ``act(observation, legal_actions) -> action`` — an
earlier snapshot of the learner (``arena.env.policy.Snapshot``) is one.

The observation is ``{"observation": vector, "action_mask": mask}``; ``info`` carries the raw
observation and the legal engine actions by index. An action the mask forbids ends the episode with
reward -1, as an illegal action forfeits a match on the platform. The reward at the end is the
learner's side's match score in [-1, 1]; every other step gives 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from arena.env.aec import RawEnv, _copy
from arena.env.opponents import Opponent, make_opponent


class KozyrGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - gymnasium.Env declares it per instance

    def __init__(self, preset: str = "bura", opponents: str | Any | Sequence[str | Any] = "builtin:greedy", *,
                 seat: int | str = "rotate", rules: dict[str, Any] | None = None,
                 render_mode: str | None = None, replay_dir: str | Path | None = None,
                 sandbox: str = "bwrap"):
        self.aec = RawEnv(preset, rules, render_mode=render_mode, replay_dir=replay_dir)
        self.preset = preset
        self.render_mode = render_mode
        n = self.aec.num_seats
        if seat != "rotate" and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be 'rotate' or 0..{n - 1}, not {seat!r}")
        self.seat_choice = seat
        specs = list(opponents) if isinstance(opponents, list | tuple) else [opponents] * n
        if len(specs) not in (1, n):
            raise ValueError(f"give one opponent for every seat ({n}) or one for all, not {len(specs)}")
        self.specs = specs * n if len(specs) == 1 else specs
        self.sandbox = sandbox
        self.observation_space = self.aec.observation_spaces["seat_0"]
        self.action_space = self.aec.action_spaces["seat_0"]
        self.seat = 0
        self.episodes = 0
        self._opponents: list[Opponent | None] = []

    def _partners(self, seat: int) -> set[int]:
        return set(next(team for team in self.aec.teams if seat in team))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63))
        n = self.aec.num_seats
        # "rotate": the seed picks the seat, so a seed gives one episode and consecutive seeds rotate seats.
        self.seat = seed % n if self.seat_choice == "rotate" else int(self.seat_choice)
        self.episodes += 1
        self.aec.reset(seed=seed, options=options)
        for opponent in self._opponents:
            if opponent is not None:
                opponent.close()
        # In a teams preset the learner holds one seat; its partner is played by that seat's opponent spec.
        self._opponents = [None if s == self.seat else
                           make_opponent(self.specs[s], self.aec.game, self.aec.preset, self.aec.rules,
                                         self.aec.match_seed, s, teams=self.aec.teams, sandbox=self.sandbox)
                           for s in range(n)]
        self._advance()
        return self._observe(), self._info()

    def _advance(self) -> None:
        """Let the opponents play until the learner is to move or the match is over."""
        aec = self.aec
        while not aec.state.is_over() and aec.state.to_move() != self.seat:
            seat = aec.state.to_move()
            opponent = self._opponents[seat]
            assert opponent is not None
            action = opponent.act(aec.state, seat)
            aec.state.apply(seat, action)
            aec.actions_played.append({"seat": seat, "action": action})
        aec._prepare()

    def _observe(self) -> dict[str, np.ndarray]:
        return self.aec.observe(self.aec.possible_agents[self.seat])

    def _info(self) -> dict[str, Any]:
        return _copy(self.aec.infos[self.aec.possible_agents[self.seat]])

    def legal_moves(self):
        return self.aec.legal_moves() if not self.aec.state.is_over() else []

    def step(self, action: int):
        aec = self.aec
        agent = aec.possible_agents[self.seat]
        chosen = next((a for i, a in aec.legal_moves() if i == int(action)), None)
        if chosen is None:
            self._close_opponents()
            return self._observe(), -1.0, True, False, {**self._info(), "illegal_action": int(action)}
        aec.state.apply(self.seat, chosen)
        aec.actions_played.append({"seat": self.seat, "action": chosen})
        self._advance()
        if aec.state.is_over():
            self._close_opponents()
            return self._observe(), float(aec.rewards[agent]), True, False, self._info()
        return self._observe(), 0.0, False, False, self._info()

    def _close_opponents(self) -> None:
        for opponent in self._opponents:
            if opponent is not None:
                opponent.close()
        self._opponents = []

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self._close_opponents()
