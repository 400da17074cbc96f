"""Replays of environment episodes, in the referee's own format, so ``arena replay`` and the viewer read them.

An episode is a seed plus the actions its seats took. Writing its replay plays those actions once more
through ``arena.referee.play_match``, each seat a built-in player that answers with the recorded
actions: the file is then exactly what a match between bots writes (events, result, verdicts).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.games import resolve
from arena.players import BuiltinPlayer, Player
from arena.referee import play_match
from arena.replay import save


class _Script:
    """A seat's recorded actions, answered in order."""

    def __init__(self, actions: list[dict[str, Any]]):
        self.actions = iter(actions)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]] | None) -> dict[str, Any]:
        return next(self.actions)


def episode_replay(preset: str, overrides: dict[str, Any], seed: int,
                   actions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The replay of an episode: ``actions`` are ``{"seat": s, "action": {...}}`` in the order played."""
    _, rules = resolve(preset, overrides)
    seats = rules.players
    per_seat: list[list[dict[str, Any]]] = [[] for _ in range(seats)]
    for entry in actions:
        per_seat[entry["seat"]].append(entry["action"])
    players: list[Player] = [BuiltinPlayer(f"env:seat{s}", _Script(per_seat[s]), name=f"env seat {s}")
                             for s in range(seats)]
    record = play_match(rules, seed, players, preset=preset, max_decisions=len(actions))
    return record.replay


def write_replay(directory: Path, preset: str, overrides: dict[str, Any], seed: int,
                 actions: Sequence[dict[str, Any]]) -> Path:
    """Write the episode's replay as ``<preset>-<seed>.json.gz`` in ``directory``; return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{preset}-{seed}.json.gz"
    save(episode_replay(preset, overrides, seed, actions), path)
    return path
