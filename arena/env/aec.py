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
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from arena.cards import derive_seed
from arena.env.encoding import BurracoEncoder, Encoder, Move, encoder_for
from arena.env.replays import write_replay
from arena.games import new_match, resolve
from arena.games.seating import side_scores


def position(encoder: Encoder, state: Any, seat: int) -> tuple[dict[str, Any], list[Move], list[dict[str, Any]]]:
    """What ``seat`` (the seat to move) decides on: its observation, its moves (index, engine action) in
    index order, and Burraco's meld and add candidates of the turn (empty for the other games)."""
    observation = state.observation(seat)
    if isinstance(encoder, BurracoEncoder):
        candidates = encoder.candidates(observation)
        return observation, encoder.moves(state, seat, observation, candidates), candidates
    return observation, encoder.moves(state, seat, observation), []


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

    def share_tables(self, other: RawEnv) -> None:
        """Use ``other``'s encoder and mask table (same rules): matches stepped one after another in one
        thread then keep one set of the encoder's tables in the core's cache instead of one per match.
        Not for environments stepped by different threads: Burraco's encoder keeps a position between
        its ``candidates`` and ``moves`` calls."""
        if other.rules != self.rules:
            raise ValueError(f"only environments of the same rules share tables: {self.preset} with {other.preset}")
        self.encoder, self._burraco, self._masks = other.encoder, other._burraco, other._masks

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
        if self._burraco is None:  # position(), inlined: this runs every step
            observation = state.observation(seat)
            moves = self.encoder.moves(state, seat, observation)
            candidates: list[dict[str, Any]] = []
        else:
            observation, moves, candidates = position(self._burraco, state, seat)
        self._candidates = candidates
        self._moves = moves
        legal = self._legal = dict(moves)
        # Only the previous mover's info held anything; every other seat's is still empty.
        infos = self.infos
        infos[self.agent_selection] = {}
        self.agent_selection = agent
        self._seat = seat
        self._observation = observation
        infos[agent] = {"raw_observation": observation, "legal_actions": legal.copy(), "candidates": list(candidates)}

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
        if agent == self.agent_selection and not self.terminations[agent]:
            return self._observe_mover()
        observation = self.state.observation(self._seat_of[agent])
        mask = np.zeros(self.encoder.actions, dtype=np.int8)
        if self._burraco is not None:
            return {"observation": self._burraco.encode(observation, None), "action_mask": mask}
        return {"observation": self.encoder.encode(observation), "action_mask": mask}

    def _observe_mover(self) -> dict[str, np.ndarray]:
        # The acting seat's observation was built for this position already (the state has not moved).
        if self._burraco is not None:
            vector = self._burraco.encode(self._observation, self._candidates)
        else:
            vector = self.encoder.encode(self._observation)
        return {"observation": vector, "action_mask": self._mask()}

    def _mask(self) -> np.ndarray:
        """A new int8 mask of the mover's legal indices."""
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
        return mask.copy()

    def action_mask(self) -> np.ndarray:
        """The legal action indices of the agent to move as an int8 mask (all zero once the match is over)."""
        if self.state is None or self.terminations.get(self.agent_selection, True):
            return np.zeros(self.encoder.actions, dtype=np.int8)
        return self._mask()

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
        self._play(chosen)

    def _play(self, chosen: dict[str, Any]) -> None:
        """The mover plays ``chosen``, one of its legal moves."""
        seat = self._seat
        self.state.apply(seat, chosen)
        self.actions_played.append({"seat": seat, "action": chosen})
        self._cumulative_rewards[self.agent_selection] = 0.0
        # Rewards are only ever set at the end of the match (by _finish, or by env()'s forfeit), after
        # which every step is a dead one: a live step starts with every reward still 0, so there is
        # nothing to clear and nothing to add to the cumulative rewards until the end.
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


class KozyrEnv(wrappers.OrderEnforcingWrapper):
    """``env()``'s environment: ``RawEnv`` with the checks of PettingZoo's classic-game wrappers
    (``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``),
    raising the same errors and warnings, in one layer.

    PettingZoo's three wrappers reach every attribute through a chain of ``__getattr__`` calls and
    observe each position twice, which made ``env()`` 2.5x slower than ``raw_env()``. Here the attributes
    read every step are properties of this class, an illegal action is told from the mover's legal
    indices, and ``last()`` reads the raw environment directly. It stays an ``OrderEnforcingWrapper``, so
    ``agent_iter()`` keeps PettingZoo's own loop check and code that looks for that wrapper finds it.
    """

    def __init__(self, raw: RawEnv, illegal_reward: float = -1.0):
        super().__init__(raw)
        self.raw = raw
        self.illegal_reward = float(illegal_reward)
        self._n = raw.encoder.actions

    def _before_reset(self, name: str) -> Any:
        raise AttributeError(f"{name} cannot be accessed before reset")

    # Read every step: plain properties, not OrderEnforcingWrapper's __getattr__ chain.
    agent_selection = property(lambda self: self.raw.agent_selection if self._has_reset
                               else self._before_reset("agent_selection"))
    agents = property(lambda self: self.raw.agents if self._has_reset else self._before_reset("agents"))
    rewards = property(lambda self: self.raw.rewards if self._has_reset else self._before_reset("rewards"))
    terminations = property(lambda self: self.raw.terminations if self._has_reset
                            else self._before_reset("terminations"))
    truncations = property(lambda self: self.raw.truncations if self._has_reset
                           else self._before_reset("truncations"))
    infos = property(lambda self: self.raw.infos if self._has_reset else self._before_reset("infos"))
    _cumulative_rewards = property(lambda self: self.raw._cumulative_rewards)
    possible_agents = property(lambda self: self.raw.possible_agents)
    observation_spaces = property(lambda self: self.raw.observation_spaces)
    action_spaces = property(lambda self: self.raw.action_spaces)
    metadata = property(lambda self: self.raw.metadata)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentLoop(self, max_iter)

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    @property
    def unwrapped(self) -> RawEnv:
        return self.raw

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            self._before_reset("agent_selection")  # what AECEnv.last meets first behind PettingZoo's wrappers
        raw = self.raw
        agent = raw.agent_selection
        terminated = raw.terminations[agent]
        if not observe:
            observation = None
        elif terminated:
            observation = raw.observe(agent)
        else:
            observation = raw._observe_mover()
        return observation, raw._cumulative_rewards[agent], terminated, raw.truncations[agent], raw.infos[agent]

    def action_mask(self) -> np.ndarray:
        return self.raw.action_mask()

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self.raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        # AssertOutOfBoundsWrapper's check, with Discrete.contains's answer for a plain int computed here.
        if not ((action is None and dead) or (action.__class__ is int and 0 <= action < self._n)
                or raw.action_spaces[agent].contains(action)):
            raise AssertionError("action is not in action space")
        if dead:
            raw._was_dead_step(action)
            return
        chosen = raw._legal.get(action)
        if chosen is None:  # the mask's zeros: TerminateIllegalWrapper's forfeit
            self._forfeit(agent)
        else:
            raw._play(chosen)

    def _forfeit(self, agent: str) -> None:
        EnvLogger.warn_on_illegal_move()
        raw = self.raw
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = self.illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self.raw)


class _AgentLoop(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent loop, reading the raw environment's fields directly."""

    def __next__(self) -> str:
        raw = self.env.raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return raw.agent_selection


def env(preset: str = "bura", *, illegal_reward: float = -1.0, **kwargs: Any) -> KozyrEnv:
    """The wrapped environment, as PettingZoo's own games are: an illegal action ends the match (the actor
    scores ``illegal_reward``, -1 as a forfeit on the platform), out-of-range actions are an error, and
    the call order is enforced (``KozyrEnv``). Keyword arguments are ``RawEnv``'s."""
    return KozyrEnv(RawEnv(preset, **kwargs), illegal_reward)
