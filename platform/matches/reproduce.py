"""The ``arena play`` command that reproduces a server match at home."""

from __future__ import annotations

import shlex

from matches.models import Match


def reproduce_command(match: Match) -> str:
    """Bots in seat order at rotation 0 (the runner rotates them as the server did): ``--duplicate`` plays
    every rotation of the deal, ``--games 1`` only the first deal of ``--seed``. Uploaded bots are named by
    the file their owner uploaded (a .zip as uploaded); house bots by their built-in name."""
    seats = sorted(match.seats.all(), key=lambda s: s.seat)
    count = len(seats)
    by_seat = [seats[(s + match.rotation) % count] for s in range(count)] if count else []
    names = []
    for seat in by_seat:
        version = seat.version
        names.append(f"builtin:{version.builtin}" if version.builtin else version.filename)
    rules = [f"--rule {shlex.quote(f'{k}={v}')}" for k, v in sorted(match.overrides.items())]
    time = match.time_control
    parts = ["arena", "play", match.preset, *map(shlex.quote, names), "--seed", str(match.base_seed), "--games", "1",
             *rules, "--startup-time", str(time.get("startup_ms")),
             "--move-time", str(time.get("move_ms")), "--time-bank", str(time.get("bank_ms"))]
    if match.kind != Match.Kind.VALIDATION:
        parts.append("--duplicate")
    return " ".join(parts)
