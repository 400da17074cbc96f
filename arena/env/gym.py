"""A Gymnasium single-agent view of a Kozyr match: one seat learns, the other seats are opponents.

Opponents are, per seat or one for all: ``"builtin:NAME"`` (a built-in bot, e.g. ``builtin:greedy``),
the path of a local bot directory (played through ``arena.runner``'s sandboxed players, speaking the
protocol as on the platform), any object with ``act(observation, legal_actions) -> action`` (a bot
class, or ``examples/training/policy.Policy``), or an ``arena.env.opponents.Snapshot`` of a learner's
policy, which answers action indices from the encoded observation as the learner does (self-play).

``action_masks()`` is the learner's mask as booleans (Stable-Baselines3-contrib's ``MaskablePPO``
calls it); every preset is registered with Gymnasium as ``kozyr/<preset>-v0`` when ``arena.env`` is
imported (``arena.env.registration``).

The observation is ``{"observation": vector, "action_mask": mask}``; ``info`` carries the raw
observation and the legal engine actions by index, as read-only ``Record`` mappings (``arena.env.infos``)
so that Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` carry them whole, one per environment.
An action the mask forbids ends the episode with reward -1, as an illegal action forfeits a match on
the platform. The reward at the end is the
learner's side's match score in [-1, 1]; every other step gives 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from arena.env.aec import RawEnv, _copy
from arena.env.infos import Record
from arena.env.opponents import Opponent, check_opponent, make_opponent


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
        for spec in specs:
            check_opponent(spec, self.aec.game)
        self.sandbox = sandbox
        self.observation_space = self.aec.observation_spaces["seat_0"]
        self.action_space = self.aec.action_spaces["seat_0"]
        self.seat = 0
        self.episodes = 0
        self._over = True  # until reset()
        self._opponents: list[Opponent | None] = []

    def _partners(self, seat: int) -> set[int]:
        return set(next(team for team in self.aec.teams if seat in team))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._start(seed, options)
        return self._observe(), self._info()

    def _start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """reset() but the observation and info (``arena.env.vector`` builds its own)."""
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63))
        n = self.aec.num_seats
        # "rotate": the seed picks the seat, so a seed gives one episode and consecutive seeds rotate seats.
        self.seat = seed % n if self.seat_choice == "rotate" else int(self.seat_choice)
        self.episodes += 1
        self._over = False
        self.aec.reset(seed=seed, options=options)
        for opponent in self._opponents:
            if opponent is not None:
                opponent.close()
        # In a teams preset the learner holds one seat; its partner is played by that seat's opponent spec.
        self._opponents = [None if s == self.seat else
                           make_opponent(self.specs[s], self.aec.game, self.aec.preset, self.aec.rules,
                                         self.aec.match_seed, s, teams=self.aec.teams, sandbox=self.sandbox,
                                         encoder=self.aec.encoder)
                           for s in range(n)]
        self._advance()

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
        # A copy (the engines may share lists between observations), its JSON objects as Records.
        info = self.aec.infos[self.aec.possible_agents[self.seat]]
        return {key: Record(_copy(value)) if value.__class__ is dict else _copy(value) if value.__class__ is list
                else value for key, value in info.items()}

    def legal_moves(self):
        return self.aec.legal_moves() if not self.aec.state.is_over() else []

    def action_masks(self) -> np.ndarray:
        """The learner's legal action indices as booleans (all False once the episode is over)."""
        mask = np.zeros(self.aec.encoder.actions, dtype=bool)
        if not self._over and self.aec.state is not None and not self.aec.state.is_over():
            mask[list(self.aec._legal)] = True
        return mask

    def step(self, action: int):
        reward, terminated, illegal = self._play(action)
        if illegal is not None:
            return self._observe(), reward, terminated, False, {**self._info(), "illegal_action": illegal}
        return self._observe(), reward, terminated, False, self._info()

    def _play(self, action: Any) -> tuple[float, bool, int | None]:
        """step() but the observation and info: (reward, terminated, the forbidden index or None)."""
        aec = self.aec
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"an action is an index 0..{self.aec.encoder.actions - 1}, not {action!r}") from None
        chosen = aec._legal.get(index)
        if chosen is None:
            self._over = True
            self._close_opponents()
            return -1.0, True, index
        aec.state.apply(self.seat, chosen)
        aec.actions_played.append({"seat": self.seat, "action": chosen})
        self._advance()
        if aec.state.is_over():
            self._over = True
            self._close_opponents()
            return float(aec.rewards[aec.possible_agents[self.seat]]), True, None
        return 0.0, False, None

    def _close_opponents(self) -> None:
        for opponent in self._opponents:
            if opponent is not None:
                opponent.close()
        self._opponents = []

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self._close_opponents()
