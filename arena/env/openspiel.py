"""Kozyr's presets as OpenSpiel Python games (``pyspiel.register_game``), one per preset.

``register_openspiel()`` registers ``python_kozyr_<preset>`` (hyphens become underscores, e.g.
``python_kozyr_burkozel_pairs``); ``pyspiel.load_game("python_kozyr_bura")`` then works as for any game,
and so do OpenSpiel's algorithms that take Python games (MCTS, random playouts, CFR where a variant's
tree is small enough).

Chance is explicit, as OpenSpiel expects: the first node of every match is a chance node whose
outcomes are the deal seeds ``0 .. seeds-1``, all equally likely; outcome ``i`` plays the match of seed
``derive_seed(base_seed, i)``, which fixes the shuffle of every deal of the match (the engines draw no
randomness of their own, so a match is that outcome plus the players' actions). Parameters: ``seeds``
(default 1024), ``base_seed`` (default 0: outcome ``i`` is then ``arena play --seed 0``'s game ``i``) and
``rules`` (overrides as ``"key:value/key:value"``, e.g. ``"match:deals:1/deck:24"`` for a small variant).

Actions, observation tensor and strings are arena.env.encoding's (docs/training.md); returns are each
side's match score mapped to [-1, 1], as in the PettingZoo environment.

Information states: a seat's information state string is its observation and its own view of the events of
the deal in play (earlier deals are over and reshuffled: what they showed says nothing of this one's cards);
its tensor is the observation tensor (the encoder's features, which keep what the rules let a seat remember,
such as every face-up pile). ``resample_from_infostate`` deals the cards the seat has not seen afresh
(arena.env.resample), so OpenSpiel's ISMCTS searches worlds the seat cannot tell from the true one and never
the true deal.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from arena.cards import derive_seed
from arena.env.encoding import BurracoEncoder, Encoder, action_key, encoder_for
from arena.env.resample import deal_history, resample
from arena.games import all_presets, new_match, resolve
from arena.games.seating import side_scores

MAX_GAME_LENGTH = 50_001  # the referee's decision limit, plus the chance node


def short_name(preset: str) -> str:
    return "python_kozyr_" + preset.replace("-", "_")


def _overrides(text: str) -> dict[str, str]:
    """``"match:deals:1/deck:24"`` → ``{"match": "deals:1", "deck": "24"}`` (OpenSpiel game strings reserve
    ``=``, ``,`` and parentheses, so rule overrides are written key:value and separated by ``/``)."""
    pairs = [item.split(":", 1) for item in text.split("/") if item.strip()]
    if any(len(p) != 2 for p in pairs):
        raise ValueError(f"rules are key:value pairs separated by '/' (e.g. match:deals:1/deck:24), not {text!r}")
    return {k.strip(): v.strip() for k, v in pairs}


def _game_type(preset: str, seats: int) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name(preset),
        long_name=f"Kozyr {preset}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=seats,
        min_num_players=seats,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"seeds": 1024, "base_seed": 0, "rules": ""})


class Config:
    """What a registered game needs beyond OpenSpiel's own object: kept here, per preset and parameters,
    because pyspiel may rebuild a game object from its parameters without calling ``__init__``."""

    def __init__(self, preset: str, params: dict[str, Any]):
        game_name, _ = all_presets()[preset]
        self.preset = preset
        self.seeds = int(params["seeds"])
        self.base_seed = int(params["base_seed"])
        _, self.rules = resolve(preset, _overrides(str(params["rules"])))
        probe = new_match(self.rules, 0)
        self.seats = probe.num_seats
        self.teams = probe.outcome()["teams"]
        self.encoder: Encoder = encoder_for(game_name, self.rules, probe)

    def __deepcopy__(self, memo: dict) -> Config:
        return self  # never changed after it is made; pyspiel's clone deep-copies a state's fields


_CONFIGS: dict[tuple[str, int, int, str], Config] = {}
_DEFAULTS = {"seeds": 1024, "base_seed": 0, "rules": ""}


def _config(preset: str, params: dict[str, Any] | None) -> Config:
    full = {**_DEFAULTS, **(params or {})}
    key = (preset, int(full["seeds"]), int(full["base_seed"]), str(full["rules"]))
    if key not in _CONFIGS:
        _CONFIGS[key] = Config(preset, full)
    return _CONFIGS[key]


def _config_of(game: Any) -> Config:
    preset = _PRESET_OF[game.get_type().short_name]
    return _config(preset, game.get_parameters())


_PRESET_OF: dict[str, str] = {}


def _game_class(preset: str) -> type:
    seats = new_match(all_presets()[preset][1], 0).num_seats
    game_type = _game_type(preset, seats)

    class KozyrGame(pyspiel.Game):
        def __init__(self, params: dict[str, Any] | None = None):
            config = _config(preset, params)
            if config.seats != seats:
                raise ValueError(f"{preset} is registered for {seats} seats; the rules give {config.seats}")
            info = pyspiel.GameInfo(num_distinct_actions=config.encoder.actions, max_chance_outcomes=config.seeds,
                                    num_players=seats, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                    max_game_length=MAX_GAME_LENGTH)
            super().__init__(game_type, info, {**_DEFAULTS, **(params or {})})

        def new_initial_state(self) -> KozyrState:
            return KozyrState(self)

        def make_py_observer(self, iig_obs_type=None, params=None) -> KozyrObserver:
            perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
            return KozyrObserver(_config_of(self).encoder, perfect_recall)

    KozyrGame.__name__ = KozyrGame.__qualname__ = f"KozyrGame_{preset.replace('-', '_')}"
    return KozyrGame


class KozyrState(pyspiel.State):
    """A match: a chance node (the deal seed), then the engine's decisions until the match is over."""

    def __init__(self, game: Any, config: Config | None = None):
        super().__init__(game)
        self.kozyr = config or _config_of(game)
        self.match: Any = None
        self._moves_cache: list | None = None
        # The first of the match's events that belongs to the deal in play, and how many events have been
        # looked at for it: found on demand, so that only information states pay for it.
        self._deal_start = 0
        self._events_seen = 0

    def __deepcopy__(self, memo: dict) -> KozyrState:
        # copy.deepcopy(state) comes here; pyspiel's own clone deep-copies the fields instead, which reaches
        # the match's and the Config's __deepcopy__: the same cost either way.
        other = KozyrState(self.get_game(), self.kozyr)
        other.match = None if self.match is None else self.match.clone()
        other._deal_start, other._events_seen = self._deal_start, self._events_seen
        return other

    def deal_start(self) -> int:
        """The index of the deal in play's ``deal`` event among the match's events (read on from the last look)."""
        new = self.match.events(None, self._events_seen)
        for i, event in enumerate(new):
            if event.get("type") == "deal":
                self._deal_start = self._events_seen + i
        self._events_seen += len(new)
        return self._deal_start

    def current_player(self) -> int:
        if self.match is None:
            return pyspiel.PlayerId.CHANCE
        if self.match.is_over():
            return pyspiel.PlayerId.TERMINAL
        return int(self.match.to_move())

    def _moves(self) -> list:
        """(index, engine action) for the seat to move, computed once per position."""
        if self._moves_cache is None:
            seat = self.match.to_move()
            observation = self.match.observation(seat)
            self._moves_cache = self.kozyr.encoder.moves(self.match, seat, observation)
        return self._moves_cache

    def _legal_actions(self, player: int) -> list[int]:
        if self.match is None or self.match.is_over() or player != self.match.to_move():
            return []
        indices = [index for index, _ in self._moves()]
        if len(set(indices)) != len(indices):  # an encoder bug: one index would stand for two actions
            raise RuntimeError(f"{self.kozyr.preset}: an action index is listed twice: {self._moves()}")
        return indices

    def apply_engine_action(self, action: dict[str, Any]) -> None:
        """Play an engine action for the seat to move (a house bot's, say): as its action index when the moves
        list it, so that ``history()`` records it; otherwise (a Burraco meld beyond the listed candidates)
        straight on the match, which the engine validates, and then ``history()`` does not hold it."""
        if self.match is None or self.match.is_over():
            raise ValueError("no seat is to move: the deal seed comes first, and a finished match takes no action")
        key = action_key(action)
        for index, listed in self._moves():
            if action_key(listed) == key:
                self.apply_action(index)
                return
        self.match.apply(self.match.to_move(), action)
        self._moves_cache = None

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> KozyrState:
        """A state ``player_id`` cannot tell from this one, the cards it has not seen dealt afresh (and a fresh
        seed for later deals); see arena.env.resample. ``probability_sampler`` is pyspiel's (a callable giving
        floats in [0, 1), such as ``pyspiel.UniformProbabilitySampler(0., 1.)``) or a ``random.Random``."""
        other = KozyrState(self.get_game(), self.kozyr)
        if self.match is None:
            return other
        if isinstance(probability_sampler, random.Random):
            rng = probability_sampler
        else:
            rng = random.Random(int(probability_sampler() * 2 ** 53))
        other.match = resample(self.match, int(player_id), rng, self.deal_start())
        other._deal_start, other._events_seen = self._deal_start, self._events_seen  # its log: one event per event
        return other

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self.kozyr.seeds
        return [(i, p) for i in range(self.kozyr.seeds)]

    def _apply_action(self, action: int) -> None:
        if self.match is None:
            self.match = new_match(self.kozyr.rules, derive_seed(self.kozyr.base_seed, int(action)))
            return
        seat = self.match.to_move()
        chosen = next((a for i, a in self._moves() if i == action), None)
        if chosen is None:
            raise ValueError(f"action {action} is not legal for seat {seat}")
        self.match.apply(seat, chosen)
        self._moves_cache = None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        if self.match is not None and not self.match.is_over() and player == self.match.to_move():
            for index, engine_action in self._moves():
                if index == action:
                    return json.dumps(engine_action, separators=(",", ":"))
        return self.kozyr.encoder.describe(action)

    def is_terminal(self) -> bool:
        return self.match is not None and self.match.is_over()

    def returns(self) -> list[float]:
        seats = self.kozyr.seats
        if not self.is_terminal():
            return [0.0] * seats
        scores = side_scores(self.match.outcome()["ranks"], self.kozyr.teams)
        out = [0.0] * seats
        for side, team in enumerate(self.kozyr.teams):
            for seat in team:
                out[seat] = 2.0 * scores[side] - 1.0
        return out

    def __str__(self) -> str:
        if self.match is None:
            return f"{self.kozyr.preset}: before the deal"
        seat = self.match.to_move()
        if seat is None:
            return f"{self.kozyr.preset}: over, ranks {self.match.outcome()['ranks']}"
        observation = self.match.observation(seat)
        return f"{self.kozyr.preset} deal {observation['deal']}: seat {seat} to {observation['decision']}"


def seeded_resampler(seed: int) -> Callable[[Any, int], KozyrState]:
    """A resampler for ISMCTS (``ISMCTSBot.set_resampler``) drawing from its own seeded stream, so that a search
    is reproducible (OpenSpiel's default draws from a new, randomly seeded sampler every time)."""
    rng = random.Random(seed)
    return lambda state, player: state.resample_from_infostate(player, rng)


class KozyrObserver:
    """What a player sees: arena.env.encoding's vector as the tensor, the engine's observation as the string;
    with ``perfect_recall`` (the information state) the string adds the seat's view of the deal's events."""

    def __init__(self, encoder: Encoder, perfect_recall: bool = False):
        self.encoder = encoder
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: KozyrState, player: int) -> None:
        if state.match is None:
            self.tensor.fill(0.0)
            return
        observation = state.match.observation(player)
        if isinstance(self.encoder, BurracoEncoder):
            mine = player == state.match.to_move()
            self.tensor[:] = self.encoder.encode(observation, self.encoder.candidates(observation) if mine else None)
        else:
            self.tensor[:] = self.encoder.encode(observation)

    def string_from(self, state: KozyrState, player: int) -> str:
        if state.match is None:
            return "before the deal"
        if self.perfect_recall:
            seen = {"observation": state.match.observation(player),
                    "deal": deal_history(state.match, player, state.deal_start())}
            return json.dumps(seen, separators=(",", ":"), sort_keys=True)
        return json.dumps(state.match.observation(player), separators=(",", ":"), sort_keys=True)


def register_openspiel(presets: list[str] | None = None) -> list[str]:
    """Register the presets (default: all) with pyspiel; returns their short names. Safe to call twice."""
    registered = set(pyspiel.registered_names())
    names = []
    for preset in presets or list(all_presets()):
        name = short_name(preset)
        _PRESET_OF[name] = preset
        if name not in registered:
            game_class = _game_class(preset)
            seats = new_match(all_presets()[preset][1], 0).num_seats
            pyspiel.register_game(_game_type(preset, seats), game_class)
        names.append(name)
    return names
