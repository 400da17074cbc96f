"""Waiting without fixed sleeps: a poll that returns as soon as the answer is known and fails naming what it
waited for (and, when ``what`` is a function, the state it found at the time-out)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
INTERVAL = 0.05  # short enough for a process's exit, long enough not to load the database it polls


def _named(what: str | Callable[[], object]) -> object:
    return what() if callable(what) else what


def wait_until(predicate: Callable[[], T], timeout: float, what: str | Callable[[], object], *,
               every: float = INTERVAL) -> T:
    """Poll ``predicate`` until it returns something true and return that; raise AssertionError after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {_named(what)}; last seen: {value!r}")
        time.sleep(every)


def holds_for(predicate: Callable[[], object], seconds: float, what: str, *, every: float = 0.01) -> None:
    """Poll ``predicate`` for ``seconds`` and fail at the first moment it is false: for what must *not* happen
    (a process killed, a limit passed), where there is no event to wait for."""
    began = time.monotonic()
    deadline = began + seconds
    while True:
        value = predicate()
        if not value:
            raise AssertionError(f"{what} stopped holding after {time.monotonic() - began:.2f} s (saw {value!r})")
        if time.monotonic() >= deadline:
            return
        time.sleep(every)
