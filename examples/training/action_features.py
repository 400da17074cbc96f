"""What each legal action would do, laid out by action index: a network's input beside the observation vector.

The environment's observation vector says what a seat sees; it does not say what each move would do (does
this card beat the table, how many points would it give away, is that claim already proven). A network
learning from the vector alone must first discover those facts, which is most of what a learner spends
its first million decisions on (docs/training.md, "CleanRL-style PPO"). This module computes them with
``policy.py``'s hand-made features (the ones ``train.py``'s linear learner weighs), one row of
``policy.SIZE`` numbers per action index, zeros for the illegal ones, and appends the rows to the vector.

The same file serves the trainer (``maskable_ppo.py``: the observation wrapper, the self-play opponent) and
the exported bot (copied beside its ``main.py`` with ``policy.py``), so the bot's network reads exactly
what the learner's read. Bura-family presets only: ``policy.py`` speaks Bura.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import policy

ROW = policy.SIZE  # features per action index


def block(actions: int, observation: dict[str, Any], moves: Iterable[tuple[int, dict[str, Any]]]) -> np.ndarray:
    """(actions * ROW,) float32: each legal move's features at its index's row, zeros elsewhere."""
    rows = np.zeros((actions, ROW), dtype=np.float32)
    for index, action in moves:
        rows[index] = policy.features(observation, action)
    return rows.ravel()


def network_input(vector: np.ndarray, actions: int, observation: dict[str, Any],
                  moves: Iterable[tuple[int, dict[str, Any]]]) -> np.ndarray:
    """The observation vector followed by the action rows: what the learner's network reads."""
    return np.concatenate((np.asarray(vector, dtype=np.float32), block(actions, observation, moves)))


def size(encoder: Any) -> int:
    """The network input's length for an encoder."""
    return int(encoder.size + encoder.actions * ROW)


class FeatureBot:
    """A trained actor as a bot (``act(observation, legal_actions)``): the exported bot's decision, and the
    learner's self-play opponent. ``actor`` has ``best(network input, mask) -> index`` (``mlp.MaskedMlp``)."""

    def __init__(self, actor: Any, encoder: Any):
        self.actor = actor
        self.encoder = encoder

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        encoder = self.encoder
        indices = [encoder.index_of(observation["hand"], action) for action in legal_actions]
        mask = np.zeros(encoder.actions, dtype=np.int8)
        mask[indices] = 1
        vector = network_input(encoder.encode(observation), encoder.actions, observation,
                               zip(indices, legal_actions, strict=True))
        return legal_actions[indices.index(self.actor.best(vector, mask))]
