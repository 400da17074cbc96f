"""Write a trained actor as an uploadable bot folder (shared by maskable_ppo.py and cleanrl_ppo.py).

The folder holds ``main.py`` (the protocol loop), ``mlp.py`` and ``model.json`` (the actor's layers, run
by numpy: the sandbox's Python has numpy 1.24 but no torch, docs/protocol.md), and the game's encoder: a
copy of ``arena/env/encoding.py`` and of the ``arena`` package it imports (the engines' sources, without
``arena.env``), so the bot encodes exactly what the environment encoded. Bura-family presets only: the
bot maps the protocol's legal actions to indices with the Bura encoder's ``index_of``. An actor trained on
the action rows (``features="actions"``, action_features.py) gets ``action_features.py`` and ``policy.py``
beside it, and its network reads the vector and the rows, as the learner's did.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import action_features
from mlp import MaskedMlp

from arena.env import KozyrGymEnv

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

BOT_MAIN = '''"""A bot trained by examples/training/{trainer}: numpy runs the actor (mlp.py, model.json).

The observation is encoded by the environment's own encoder (kozyr_encoding.py, a copy of
arena/env/encoding.py, with the arena package beside it). Protocol: docs/protocol.md.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

from kozyr_encoding import encoder_for  # noqa: E402
from mlp import MaskedMlp  # noqa: E402

from arena.games import new_match, resolve  # noqa: E402

MODEL = json.loads((HERE / "model.json").read_text())
FEATURES = MODEL.get("features", "none")  # "actions": the network also reads action_features.py's rows


def main():
    actor = MaskedMlp.from_json(MODEL)
    encoder = decide = None
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            game, rules = resolve(message["preset"])
            encoder = encoder_for(game, rules, new_match(rules, 0))
            if (encoder.size, encoder.actions) != (MODEL["observation_size"], MODEL["actions"]):
                print(f"this model was trained for {{MODEL['preset']}}, not {{message['preset']}}", file=sys.stderr)
            if FEATURES == "actions":
                from action_features import FeatureBot
                decide = FeatureBot(actor, encoder).act
            print(json.dumps({{"type": "ready", "name": "{name}"}}), flush=True)
        elif kind == "request":
            observation, legal = message["observation"], message["legal_actions"]
            if decide is not None:
                action = decide(observation, legal)
            else:
                indices = [encoder.index_of(observation["hand"], action) for action in legal]
                mask = np.zeros(encoder.actions, dtype=np.int8)
                mask[indices] = 1
                action = legal[indices.index(actor.best(encoder.encode(observation), mask))]
            print(json.dumps({{"type": "action", "id": message["id"], "action": action}}), flush=True)
        elif kind == "goodbye":
            break


if __name__ == "__main__":
    main()
'''


def write_bot(actor: MaskedMlp, directory: Path, preset: str, summary: dict, *, trainer: str, name: str,
              features: str | None = None) -> Path:
    """Write the uploadable bot folder: main.py, mlp.py, model.json, kozyr_encoding.py and the arena package
    (and action_features.py with policy.py when the actor reads the action rows: ``features="actions"``).
    ``features`` is read from the actor's input width when not given, and checked against it when given."""
    if preset.split("-")[0] not in ("bura", "burkozel", "echki"):
        raise ValueError(f"the exported bot maps actions with the Bura family's encoder; {preset!r} is not one")
    env = KozyrGymEnv(preset, "builtin:random")
    widths = {"none": env.aec.encoder.size, "actions": action_features.size(env.aec.encoder)}
    width = int(actor.layers[0][0].shape[1])
    if features is None:
        features = next((kind for kind, size in widths.items() if size == width), None)
    if features not in widths:
        raise ValueError(f"features is 'none' or 'actions', not {features!r}")
    if widths[features] != width:
        raise ValueError(f"the actor reads {width} numbers, but {preset} with features={features!r} gives "
                         f"{widths[features]} (the vector alone: {widths['none']}; with the action rows: "
                         f"{widths['actions']})")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "main.py").write_text(BOT_MAIN.format(trainer=trainer, name=name))
    shutil.copyfile(HERE / "mlp.py", directory / "mlp.py")
    for module in ("action_features.py", "policy.py"):
        if features == "actions":
            shutil.copyfile(HERE / module, directory / module)
        else:
            (directory / module).unlink(missing_ok=True)
    shutil.copyfile(REPO / "arena" / "env" / "encoding.py", directory / "kozyr_encoding.py")
    if (directory / "arena").exists():
        shutil.rmtree(directory / "arena")
    shutil.copytree(REPO / "arena", directory / "arena",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "env", "*.pyc"))
    (directory / "model.json").write_text(json.dumps(
        {"preset": preset, "observation_size": env.aec.encoder.size, "actions": env.aec.encoder.actions,
         "features": features, **actor.to_json(), "training": summary}) + "\n")
    return directory
