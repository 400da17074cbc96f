"""Waiting on the machine without fixed sleeps: a poll that stops as soon as the answer is known and fails
naming what it waited for."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")
INTERVAL = 0.01


def wait_until(predicate: Callable[[], T], timeout: float, what: str) -> T:
    """Poll `predicate` until it returns something true, and return that; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"waited {timeout:g} s for {what}; last seen: {value!r}")
        time.sleep(INTERVAL)


def holds_for(predicate: Callable[[], object], seconds: float, what: str) -> None:
    """Poll `predicate` for `seconds` and fail at the first moment it is false: for what must *not* happen
    (a process killed, a limit passed), where there is no event to wait for."""
    began = time.monotonic()
    deadline = began + seconds
    while True:
        value = predicate()
        if not value:
            pytest.fail(f"{what} stopped holding after {time.monotonic() - began:.2f} s (saw {value!r})")
        if time.monotonic() >= deadline:
            return
        time.sleep(INTERVAL)
