"""The ``arena play`` command that reproduces exactly one server match at home, and what its words mean.

A server match is the local runner's game 0 of ``arena play --seed BASE_SEED`` (play/match.py): the deal
comes from ``derive_seed(base_seed, 0)`` and each seat's bot from its seat number. Without ``--duplicate``
game 0 is played once, with the bots seated in the order given (rotation 0), so listing the match's bots in
seat order with ``--games 1`` plays this match and no other — its own rotation of the duplicate set is
already in that order.

While the match's deal is in play (``Match.deal_in_play``) the command has no ``--seed``: the seed rebuilds
every hand, so it is shown only once every match of the deal has ended. Until then the command plays the same
bots and rules on a deal of its own.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import PurePath

from arena.games.seating import layout
from matches.models import Match


@dataclass(frozen=True)
class BotArgument:
    """One bot of the command: what to type, and how the user gets it."""

    argument: str  # builtin:NAME, or the file name to save the version's download as
    bot: str
    number: int
    builtin: bool
    seats: tuple[int, ...]


def bot_arguments(match: Match) -> list[BotArgument]:
    """The bots in the order ``arena play`` seats them: one per seat, or one per team when every team is one
    bot (the protocol's team presets: the runner fills a team's seats with its bot)."""
    seats = sorted(match.seats.all(), key=lambda s: s.seat)
    by_seat = {s.seat: s for s in seats}
    teams = (match.result or {}).get("teams") or _teams(match)
    groups: list[list[int]] = [[s.seat] for s in seats]
    if teams and len(teams) < len(seats) and all(
            len({by_seat[s].version_id for s in team if s in by_seat}) == 1 for team in teams):
        groups = [list(team) for team in teams]
    found = []
    for group in groups:
        version = by_seat[group[0]].version
        if version.builtin:
            argument = f"builtin:{version.builtin}"
        else:
            argument = f"{version.bot.name}-v{version.number}{PurePath(version.filename).suffix.lower()}"
        found.append(BotArgument(argument=argument, bot=version.bot.name, number=version.number,
                                 builtin=bool(version.builtin), seats=tuple(group)))
    return found


def _teams(match: Match) -> list[list[int]]:
    try:
        return layout(match.preset, match.overrides)[1]
    except (KeyError, ValueError):  # a preset since renamed: seat by seat is still right
        return []


def reproduce_command(match: Match) -> str:
    """The one command: the bots of :func:`bot_arguments`, this match's base seed (once its deal is over), one
    game, its rules and its time control. No ``--duplicate``: that would play every rotation of the deal, not
    this match."""
    rules = [f"--rule {shlex.quote(f'{k}={v}')}" for k, v in sorted(match.overrides.items())]
    time = match.time_control
    seed = [] if match.deal_in_play() else ["--seed", str(match.base_seed)]
    parts = ["arena", "play", match.preset, *(shlex.quote(b.argument) for b in bot_arguments(match)),
             *seed, "--games", "1", *rules,
             "--startup-time", str(time.get("startup_ms")), "--move-time", str(time.get("move_ms")),
             "--time-bank", str(time.get("bank_ms"))]
    return " ".join(parts)
