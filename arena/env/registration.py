"""Gymnasium ids for every preset: ``gymnasium.make("kozyr/<preset>-v0", opponents=..., rules=...)``.

Registered when ``arena.env`` is imported (this module's ``register_envs``, called by the package):
Gymnasium 1.x loads no plugin entry points, so an import is what registers third-party ids. Without
importing first, ``gymnasium.make("arena.env:kozyr/bura-v0")`` imports the package itself. The keyword
arguments are ``KozyrGymEnv``'s (``opponents`` defaults to ``builtin:greedy``).

``gymnasium.make_vec("kozyr/<preset>-v0", num_envs=N)`` builds the batched ``KozyrVectorEnv``
(``arena.env.vector``, its ``vector_entry_point``); ``vectorization_mode="sync"`` or ``"async"`` gives
Gymnasium's own vector envs over ``KozyrGymEnv`` instead.
"""

from __future__ import annotations

import gymnasium

from arena.games import all_presets

NAMESPACE = "kozyr"
VERSION = 0


def env_id(preset: str) -> str:
    return f"{NAMESPACE}/{preset}-v{VERSION}"


def register_envs() -> list[str]:
    """Register ``kozyr/<preset>-v0`` for every preset not registered yet; return every id."""
    ids = []
    for preset in all_presets():
        name = env_id(preset)
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point="arena.env.gym:KozyrGymEnv",
                               vector_entry_point="arena.env.vector:make_vector_env", kwargs={"preset": preset})
        ids.append(name)
    return ids
