"""Which presets a benchmark runs: all registered ones, or those named with --presets."""

from __future__ import annotations

import argparse

from arena.games import all_presets


def chosen_presets(parser: argparse.ArgumentParser, names: str) -> list[tuple[str, str, object]]:
    """(preset, game, rules) for each chosen preset; an unknown name is a usage error."""
    presets = all_presets()
    chosen = [p for p in names.split(",") if p] or list(presets)
    unknown = [p for p in chosen if p not in presets]
    if unknown:
        parser.error(f"unknown preset(s) {', '.join(unknown)}; presets are: {', '.join(presets)}")
    return [(name, *presets[name]) for name in chosen]
