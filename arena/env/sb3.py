"""The batched environment as a Stable-Baselines3 vector environment, for MaskablePPO and the rest of SB3.

``KozyrSB3VecEnv(preset, num_envs, opponents, **kwargs)`` is a ``stable_baselines3.common.vec_env.VecEnv``
over ``arena.env.vector.KozyrVectorEnv`` (its keyword arguments are that class's: ``seat``, ``rules``,
``workers``, ``sandbox``, ``spin``): the ``num_envs`` matches are stepped by this process and worker
processes, one per core, instead of one after another as ``DummyVecEnv`` steps single environments.

    from sb3_contrib import MaskablePPO
    from arena.env.sb3 import KozyrSB3VecEnv

    model = MaskablePPO("MlpPolicy", KozyrSB3VecEnv("bura", 16, "builtin:greedy"), seed=0)
    model.learn(200_000)

What SB3 expects of a vector environment, and how each is met:

* Observations are the encoded vectors alone (``(num_envs, size)`` float32; SB3's ``MlpPolicy`` takes a
  Box), and the legal actions reach MaskablePPO through ``env_method("action_masks")``: the masks of
  the observations just returned, read from the batch's rows, with no message to the workers.
* A finished match starts its next one in the step that ends it (the batch's ``SameStep`` autoreset):
  that step returns the new match's first observation, ``done`` is True and the match's last
  observation is ``infos[i]["terminal_observation"]``. A match ends only by its rules (or a forbidden
  action, reward -1), never by a time limit: ``infos[i]["TimeLimit.truncated"]`` is False.
* ``seed(s)`` seeds match ``i`` with ``s + i`` at the next ``reset()``, as SB3's own vector
  environments do; the matches are then the batch's (and ``SyncVectorEnv``'s) for those seeds.
* Attributes: ``get_attr`` reads the batch's (the same for every match: ``preset``, ``render_mode``, …);
  ``set_attr`` and methods other than ``action_masks`` are refused by name, since the matches live in
  worker processes. Opponents given as objects (a ``Snapshot``) play the copy each worker took when it
  started: a self-play snapshot refreshed later is not seen there (build a new environment to refresh).
* Episode statistics: wrap it in SB3's ``VecMonitor``, as any vector environment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from arena.env.vector import KozyrVectorEnv

MASKS = "action_masks"


class KozyrSB3VecEnv(VecEnv):
    def __init__(self, preset: str = "bura", num_envs: int = 8, opponents: Any = "builtin:greedy", **kwargs: Any):
        for refused in ("infos", "autoreset_mode"):
            if refused in kwargs:
                raise ValueError(f"KozyrSB3VecEnv sets {refused} itself (SB3's vector environments reset a match "
                                 f"in the step that ends it and build their own infos); leave it out")
        self.batch = KozyrVectorEnv(preset, num_envs, opponents, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        self._actions: np.ndarray | None = None
        observations: Any = self.batch.single_observation_space  # a Dict of the vector and the mask
        actions: Any = self.batch.single_action_space  # Discrete
        self._masks = np.zeros((num_envs, actions.n), dtype=np.int8)
        super().__init__(num_envs, observations["observation"], actions)

    # ------------------------------------------------------------------------------------------- episodes
    def reset(self) -> np.ndarray:
        options = self._options[0]
        if any(o != options for o in self._options[1:]):
            raise ValueError("KozyrSB3VecEnv takes one set of reset options for every match, not one per match: "
                             f"{self._options!r}")
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        observations, _ = self.batch.reset(seed=seeds, options=options or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._keep(observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() needs step_async(actions) first")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, infos = self.batch.step(actions)
        dones = terminated | truncated
        per_match: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            per_match[i] = {"terminal_observation": infos["final_obs"][i]["observation"],
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
        return self._keep(observations), rewards.astype(np.float32), dones, per_match

    def _keep(self, observations: dict[str, np.ndarray]) -> np.ndarray:
        self._masks = observations["action_mask"]
        return observations["observation"]

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) booleans: the legal actions of the observations last returned."""
        return self._masks.astype(bool)

    def close(self) -> None:
        self.batch.close()

    # ------------------------------------------------------------------------------------------- attributes
    def _rows(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int | np.integer):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        rows = self._rows(indices)
        if attr_name == MASKS:
            return [self.action_masks] * len(rows)
        if attr_name == "render_mode":
            return [None] * len(rows)
        if attr_name.startswith("_") or not hasattr(self.batch, attr_name):
            raise AttributeError(f"KozyrSB3VecEnv's matches have no attribute {attr_name!r}")
        return [getattr(self.batch, attr_name)] * len(rows)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"KozyrSB3VecEnv cannot set {attr_name!r}: its matches run in worker processes "
                             f"(build a new environment with other arguments)")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name != MASKS:
            raise AttributeError(f"KozyrSB3VecEnv's matches answer only {MASKS}() through env_method, "
                                 f"not {method_name!r}")
        masks = self.action_masks()
        return [masks[i] for i in self._rows(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._rows(indices))


__all__ = ["KozyrSB3VecEnv"]
