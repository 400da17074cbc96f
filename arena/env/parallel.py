"""The PettingZoo Parallel form of a Kozyr match, for training code that takes only a ``ParallelEnv``.

The games are turn-based: one seat acts at a time. This offers them as PettingZoo offers turn-based
games in parallel form (``pettingzoo.utils.turn_based_aec_to_parallel``): every live seat is in
``agents`` and gets an observation, a reward and an info each step, but only the seat to move acts.
Its name is in every info as ``"active_agent"``, and it is the one seat whose action mask is not all
zero. A step applies that seat's action and ignores the others' (they may be left out of the dict; an
all-zero mask makes ``action_space.sample(mask=...)`` return 0, which is ignored too).

Native rather than PettingZoo's wrapper around ``env()``: that wrapper's ``unwrapped`` is the AEC
environment (``parallel_api_test`` looks at it), it writes ``active_agent`` into the AEC environment's
own info dicts, and a step after the end returns four values instead of five.

As in ``env()``, an action the mask forbids ends the match: the actor gets ``illegal_reward`` (-1, a
forfeit on the platform), the others 0. Seeds, replays and rewards are the AEC environment's
(``arena.env.aec``), which this one drives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from arena.env.aec import RawEnv

Observation = dict[str, np.ndarray]


class KozyrParallelEnv(ParallelEnv):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "kozyr_v0"}

    def __init__(self, preset: str = "bura", rules: dict[str, Any] | None = None, *,
                 render_mode: str | None = None, replay_dir: str | Path | None = None,
                 illegal_reward: float = -1.0):
        self.aec = RawEnv(preset, rules, render_mode=render_mode, replay_dir=replay_dir)
        self.preset = preset
        self.render_mode = render_mode
        self.illegal_reward = illegal_reward
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Observation], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        aec = self.aec
        mover = aec.agent_selection
        if actions.get(mover) is None:
            raise ValueError(f"{mover} is to move (infos[...]['active_agent']) and was given no action")
        action = int(actions[mover])
        if action not in aec._legal:  # the mover's legal moves by index
            return self._forfeit(mover, action)
        aec.step(action)
        observations, infos = self._observations(), self._infos()
        agents = self.agents
        rewards = {agent: float(aec.rewards[agent]) for agent in agents}
        terminations = {agent: aec.terminations[agent] for agent in agents}
        truncations = {agent: aec.truncations[agent] for agent in agents}
        if aec.state.is_over():
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _forfeit(self, mover: str, action: int):
        """End the match as ``TerminateIllegalWrapper`` ends the AEC one: the actor scores ``illegal_reward``."""
        observations = self._observations()
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        infos[mover] = {"illegal_action": action}
        rewards = {agent: self.illegal_reward if agent == mover else 0.0 for agent in self.agents}
        done = dict.fromkeys(self.agents, True)
        self.agents = []
        return observations, rewards, done, dict.fromkeys(done, False), infos

    def _observations(self) -> dict[str, Observation]:
        return {agent: self.aec.observe(agent) for agent in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        # New dicts: the AEC environment's own infos stay as that environment documents them.
        mover = None if self.aec.state.is_over() else self.aec.agent_selection
        return {agent: {**self.aec.infos[agent], "active_agent": mover} for agent in self.agents}

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def parallel_env(preset: str = "bura", **kwargs: Any) -> KozyrParallelEnv:
    """The Parallel environment of a preset (PettingZoo's module convention: ``env``, ``raw_env``,
    ``parallel_env``); keyword arguments are ``KozyrParallelEnv``'s."""
    return KozyrParallelEnv(preset, **kwargs)
