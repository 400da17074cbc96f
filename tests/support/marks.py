"""The marks a test needs for the processes it starts, checked where they are started.

tests/conftest.py marks tests by their files and fixtures (``make test-fast`` leaves out the ``workers`` ones).
A test that starts a worker or a web server some other way would run in the fast core unmarked; the harnesses
below call ``require`` so that such a test fails at once, saying which mark it lacks. Outside pytest (the soak
and the benches use these harnesses too) nothing is checked.
"""

from __future__ import annotations

from typing import Any

_running: Any = None  # the pytest item now being set up, run or torn down in this process


def running(item: Any) -> None:
    global _running
    _running = item


def require(mark: str, what: str) -> None:
    if _running is not None and _running.get_closest_marker(mark) is None:
        raise RuntimeError(f"{_running.nodeid} starts {what} but is not marked {mark!r}: add its file to "
                           f"tests/conftest.py's lists (or use a fixture that marks it), so make test-fast leaves "
                           f"it out")
