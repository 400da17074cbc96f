"""The PettingZoo AEC environment: one Kozyr match, every seat an agent, built on the engines' API.

Agents are ``seat_0`` … ``seat_{n-1}``; the agent to act is the engine's ``to_move()``, so turns follow
the rules (a trick's taker claims, a soloist discards), not a fixed cycle. Each agent observes
``{"observation": float32 vector, "action_mask": int8 vector}`` (arena.env.encoding); its ``info`` holds
the raw observation dict the engine gives that seat (read it, do not change it: parts of it may be
the engine's own lists), the legal engine actions by index and, for Burraco,
the turn's meld and add candidates. Rewards come at the end of the match: each seat gets its side's
match score mapped to [-1, 1] (win 1, loss -1, a shared rank between; ``arena.games.seating``).

Seeds: ``reset(seed=S)`` plays the match ``arena play --seed S`` plays first (match seed
``derive_seed(S, 0)``; ``options={"game": g}`` gives its g-th game). ``replay_dir`` writes every
finished match as a replay that ``arena replay`` reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arena.cards import derive_seed
from arena.env.encoding import BurracoEncoder, Move, encoder_for
from arena.env.replays import write_replay
from arena.games import new_match, resolve
from arena.games.seating import side_scores


class RawEnv(AECEnv):
    """One match of a preset per episode (rule overrides allowed, e.g. ``rules={"match": "deals:1"}``)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "kozyr_v0", "is_parallelizable": False}

    def __init__(self, preset: str = "bura", rules: dict[str, Any] | None = None, *,
                 render_mode: str | None = None, replay_dir: str | Path | None = None):
        super().__init__()
        self.preset = preset
        self.overrides = dict(rules or {})
        self.game, self.rules = resolve(preset, self.overrides)
        probe = new_match(self.rules, 0)
        self.num_seats = probe.num_seats
        self.teams = probe.outcome()["teams"]
        self.encoder = encoder_for(self.game, self.rules, probe)
        self.render_mode = render_mode
        self.replay_dir = Path(replay_dir) if replay_dir is not None else None
        self.possible_agents = [f"seat_{s}" for s in range(self.num_seats)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # Burraco's encoding and moves also take the turn's candidates; checked once, not per step.
        self._burraco = self.encoder if isinstance(self.encoder, BurracoEncoder) else None
        self.agents = list(self.possible_agents)
        box = spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, (self.encoder.actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.encoder.actions) for a in self.possible_agents}
        self.state: Any = None
        self.match_seed = 0
        self.actions_played: list[dict[str, Any]] = []
        self.last_replay: Path | None = None
        self._moves: list[Move] = []
        self._legal: dict[int, dict[str, Any]] = {}  # the same moves by index
        self._candidates: list[dict[str, Any]] = []
        self._observation: dict[str, Any] = {}
        self._seat = 0  # the seat of agent_selection while the match is on
        self._masks: dict[tuple[int, ...], np.ndarray] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = int(np.random.default_rng().integers(0, 2**63))
        game_number = int((options or {}).get("game", 0))
        self.match_seed = derive_seed(seed, game_number)
        self.state = new_match(self.rules, self.match_seed)
        self.actions_played = []
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._prepare()

    def _prepare(self) -> None:
        """Point ``agent_selection`` at the seat to move and list its moves (or end the episode)."""
        state = self.state
        if state.is_over():
            self._finish()
            return
        seat = state.to_move()
        agent = self.possible_agents[seat]
        observation = state.observation(seat)
        if self._burraco is not None:
            candidates = self._candidates = self._burraco.candidates(observation)
            moves = self._burraco.moves(state, seat, observation, candidates)
            candidates = list(candidates)
        else:
            moves = self.encoder.moves(state, seat, observation)
            candidates = []
        self._moves = moves
        legal = self._legal = dict(moves)
        # Only the previous mover's info held anything; every other seat's is still empty.
        infos = self.infos
        infos[self.agent_selection] = {}
        self.agent_selection = agent
        self._seat = seat
        self._observation = observation
        infos[agent] = {"raw_observation": observation, "legal_actions": legal.copy(), "candidates": candidates}

    def _finish(self) -> None:
        outcome = self.state.outcome()
        scores = side_scores(outcome["ranks"], self.teams)
        for side, team in enumerate(self.teams):
            for seat in team:
                agent = self.possible_agents[seat]
                self.rewards[agent] = 2.0 * scores[side] - 1.0
        for agent in self.agents:
            self.terminations[agent] = True
            self.infos[agent] = {"outcome": outcome}
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]
        if self.replay_dir is not None:
            self.last_replay = write_replay(self.replay_dir, self.preset, self.overrides, self.match_seed,
                                            self.actions_played)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mine = agent == self.agent_selection and not self.terminations[agent]
        # The acting seat's observation was built for this position already (the state has not moved).
        observation = self._observation if mine else self.state.observation(self._seat_of[agent])
        if mine:
            # The masks of the positions met so far, by their legal indices: a copy of one costs less than
            # filling a new one (a game has few distinct sets of legal indices: Bura's 35 actions).
            key = tuple(self._legal)
            mask = self._masks.get(key)
            if mask is None:
                mask = np.zeros(self.encoder.actions, dtype=np.int8)
                mask.put(key, 1)
                if len(self._masks) >= 4096:
                    self._masks.clear()
                self._masks[key] = mask
            mask = mask.copy()
        else:
            mask = np.zeros(self.encoder.actions, dtype=np.int8)
        if self._burraco is not None:
            vector = self._burraco.encode(observation, self._candidates if mine else None)
        else:
            vector = self.encoder.encode(observation)
        return {"observation": vector, "action_mask": mask}

    def legal_moves(self) -> list[Move]:
        """(index, engine action) for the agent to act, in index order."""
        return list(self._moves)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        chosen = self._legal.get(action)  # type: ignore[arg-type]
        if chosen is None:
            raise ValueError(f"action {action!r} is not legal for {agent} now (see the action mask)")
        seat = self._seat
        self.state.apply(seat, chosen)
        self.actions_played.append({"seat": seat, "action": chosen})
        self._cumulative_rewards[agent] = 0.0
        # Rewards are only ever set at the end of the match (by _finish, or by TerminateIllegalWrapper's
        # forfeit), after which every step is a dead one: a live step starts with every reward still 0,
        # so there is nothing to clear and nothing to add to the cumulative rewards until the end.
        self._prepare()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        seat = self.state.to_move()
        if seat is None:
            return f"{self.preset}: over, {self.state.outcome()['ranks']}"
        observation = self.state.observation(seat)
        return f"{self.preset} deal {observation['deal']}: seat {seat} to {observation['decision']}, " \
               f"hand {' '.join(observation['hand'])}"

    def close(self) -> None:
        pass


def _copy(value: Any) -> Any:
    """A deep copy of a JSON value (engines may share lists between observations, e.g. the teams)."""
    if value.__class__ is dict:
        return {k: _copy(v) if v.__class__ in (dict, list) else v for k, v in value.items()}
    return [_copy(v) if v.__class__ in (dict, list) else v for v in value]


def raw_env(preset: str = "bura", **kwargs: Any) -> RawEnv:
    return RawEnv(preset, **kwargs)


def env(preset: str = "bura", **kwargs: Any) -> AECEnv:
    """The wrapped environment, as PettingZoo's own games are: an illegal action ends the match (the actor
    scores -1, as a forfeit on the platform), out-of-range actions are an error, and order is enforced."""
    wrapped: AECEnv = RawEnv(preset, **kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
