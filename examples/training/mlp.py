"""A masked multilayer perceptron in numpy: MaskablePPO's policy network, outside of torch.

The same file serves the trainer (``maskable_ppo.py``: the self-play snapshot of the learner) and the
exported bot (copied beside its ``main.py``; the sandbox's Python has numpy but no torch). The layers
are those of Stable-Baselines3's ``MlpPolicy`` actor: ``tanh`` hidden layers, then the action logits;
the chosen action is the legal one with the highest logit (MaskablePPO's ``deterministic=True``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


class MaskedMlp:
    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]]):
        self.layers = layers

    def logits(self, vector: np.ndarray) -> np.ndarray:
        hidden = np.asarray(vector, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            hidden = np.tanh(hidden @ weight.T + bias)
        weight, bias = self.layers[-1]
        return hidden @ weight.T + bias

    def best(self, vector: np.ndarray, mask: np.ndarray) -> int:
        """The legal action index with the highest logit (``mask``: nonzero where legal)."""
        logits = self.logits(vector)
        return int(np.argmax(np.where(np.asarray(mask) > 0, logits, -np.inf)))

    def __call__(self, observation: dict) -> int:
        """``arena.env.Snapshot``'s call: the learner's observation dict in, an action index out."""
        return self.best(observation["observation"], observation["action_mask"])

    def to_json(self) -> dict:
        return {"layers": [{"weight": w.tolist(), "bias": b.tolist()} for w, b in self.layers]}

    @classmethod
    def from_json(cls, data: dict) -> MaskedMlp:
        return cls([(np.array(layer["weight"], dtype=np.float32), np.array(layer["bias"], dtype=np.float32))
                    for layer in data["layers"]])

    @classmethod
    def load(cls, path: Path) -> MaskedMlp:
        return cls.from_json(json.loads(Path(path).read_text()))
