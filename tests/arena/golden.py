"""What the golden-digest tests share: an action tried on a match as a line of its transcript, and a
transcript's digest (recorded once from a known-good revision, compared by the tests)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from arena.games.base import IllegalAction


def attempt(state, seat: int, action: object) -> str:
    """Play ``action`` for ``seat``; the line says what happened, a refusal with its rule and message."""
    try:
        state.apply(seat, action)
    except IllegalAction as e:
        return repr(("rejected", e.rule, e.detail, str(e)))
    return repr(("played", seat, action))


def digest_of(lines: Iterable[str]) -> str:
    sha = hashlib.sha256()
    for line in lines:
        sha.update(line.encode())
        sha.update(b"\n")
    return sha.hexdigest()
