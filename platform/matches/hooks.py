"""The finish pipeline: what follows from a match's end, in one ordered list (settings.MATCH_HOOKS).

A match is recorded by ``matches.actions`` (finished, or failed after its last attempt); everything that
follows from it — the version it validates, the ladder's suspension rule, ratings, tournaments, version
tests, the next held match — is a hook an app above ``matches`` registers by naming it in
``settings.MATCH_HOOKS``, like ``MIDDLEWARE``. ``matches`` never imports the apps that react to it.

Each hook runs inside the transaction that records the result, in the listed order (which is also the lock
order of docs/matches.md, "Lock order"), and only for the match kinds it names in ``kinds`` (empty: every
kind), so a hook never queries for a match it has nothing to do with. A hook has up to three steps:

- ``lock(match)``: rows that come before the seats in the lock order, locked before the seats are written;
- ``finished(match, seats)``: the match has a result;
- ``failed(match)``: the match could not be played at all (infrastructure, after every attempt).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, ClassVar

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from matches.models import Match, Seat


class MatchHook:
    """One step of the finish pipeline; subclasses override the steps they take part in."""

    kinds: ClassVar[frozenset[str]] = frozenset()  # the match kinds this hook handles; empty: all of them

    def handles(self, match: Match) -> bool:
        return not self.kinds or match.kind in self.kinds

    def lock(self, match: Match) -> None:
        """Lock the rows this hook needs that come before the seats in the lock order."""

    def finished(self, match: Match, seats: list[Seat]) -> None:
        """The match has a result (its row and seats are written, in this transaction)."""

    def failed(self, match: Match) -> None:
        """The match could not be played after every attempt; it has no result and never will."""


@functools.cache
def pipeline() -> tuple[MatchHook, ...]:
    """The hooks of settings.MATCH_HOOKS, in order, each a ``MatchHook`` subclass named by dotted path."""
    hooks = []
    for path in settings.MATCH_HOOKS:
        hook = import_string(path)
        if not (isinstance(hook, type) and issubclass(hook, MatchHook)):
            raise TypeError(f"settings.MATCH_HOOKS: {path} is not a MatchHook subclass")
        hooks.append(hook())
    return tuple(hooks)


@receiver(setting_changed)
def _reload(setting: str, **_) -> None:
    if setting == "MATCH_HOOKS":
        pipeline.cache_clear()


def run_lock(match: Match) -> None:
    for hook in pipeline():
        if hook.handles(match):
            hook.lock(match)


def run_finished(match: Match, seats: list[Seat]) -> None:
    for hook in pipeline():
        if hook.handles(match):
            hook.finished(match, seats)


def run_failed(match: Match) -> None:
    for hook in pipeline():
        if hook.handles(match):
            hook.failed(match)
