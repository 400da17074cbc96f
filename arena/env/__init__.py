"""Training environments for Kozyr's games (the ``env`` extra: pettingzoo, gymnasium, open_spiel).

* ``env(preset, ...)`` / ``raw_env(preset, ...)``: the PettingZoo AEC environment of a preset
  (``arena.env.aec``), every seat an agent, with a fixed discrete action space and an action mask;
* ``parallel_env(preset, ...)``: the same match as a PettingZoo Parallel environment, turn-based (only
  the seat to move acts each step; ``arena.env.parallel``);
* ``KozyrGymEnv(preset, opponents, ...)``: a Gymnasium environment where one seat learns
  (``arena.env.gym``), also ``gymnasium.make("kozyr/<preset>-v0")`` (registered on import,
  ``arena.env.registration``); ``Snapshot`` puts a learner's policy in an opponent's seat;
* ``arena.env.vector.KozyrVectorEnv(preset, num_envs, opponents)``: N matches of the Gymnasium view
  stepped together in worker processes (also ``gymnasium.make_vec("kozyr/<preset>-v0", num_envs)``);
* ``arena.env.openspiel.register_openspiel()``: the presets as OpenSpiel Python games (imported on its own:
  pyspiel is a large module that the PettingZoo and Gymnasium users need not load).

Encodings and action mappings: ``arena.env.encoding`` and docs/training.md. The core ``arena`` package
never imports this one.
"""

from __future__ import annotations

from arena.env.aec import RawEnv, env, raw_env
from arena.env.gym import KozyrGymEnv
from arena.env.opponents import Snapshot
from arena.env.parallel import KozyrParallelEnv, parallel_env
from arena.env.registration import register_envs

register_envs()

__all__ = ["KozyrGymEnv", "KozyrParallelEnv", "RawEnv", "Snapshot", "env", "parallel_env", "raw_env"]
