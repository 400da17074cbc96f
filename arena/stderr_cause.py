"""The line of a crashed bot's stderr that says why: its exception and where it was raised.

A bot that dies reads, to the referee, as "exited with code 1"; its interpreter said more on stderr. From the
last lines of that stderr this picks the exception (Python's ``KeyError: 'x'`` or ``SyntaxError: invalid
syntax``, Node's ``TypeError: …``, Java's ``Exception in thread …``, Go's ``panic: …``, Rust's ``panicked
at``) and the bot's own place it names (Python's last ``File "…", line N``, Node's and Java's first ``at …``
frame), as ``SyntaxError: invalid syntax at main.py:2``; without one, the last line that is not decoration.
A bot's own output, so only ever shown to its owner (a version's rejection reason, the owner's stderr view).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

MAX_CHARS = 300
_EXCEPTION = re.compile(
    r"^(?:[A-Za-z_][\w.$]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning)\b(?::.*)?$"  # Python, Node, Java
    r"|^Exception in thread .*"  # Java
    r"|^panic: .*"  # Go
    r"|^thread '.*' panicked at .*"  # Rust
    r"|^Uncaught .*"  # Node, some shells
)
_PYTHON_PLACE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
# Node's and Java's frames: "at f (/bot/main.js:2:22)", "at Main.act(Main.java:12)"
_FRAME_PLACE = re.compile(r"^\s*at .*?\(?(?P<file>[^\s():]+):(?P<line>\d+)(?::\d+)?\)?$")
_NODE_HEAD = re.compile(r"^(?P<file>/[^\s:]+):(?P<line>\d+)$")  # Node's first line: "/bot/main.js:2"
_DECORATION = re.compile(r"^[\s^~]*$|^Node\.js v[\d.]+$|^\s*at .*")


def last_error(lines: Sequence[str]) -> str:
    """The exception and its place in ``lines`` (a bot's last stderr lines), or the last meaningful line, or ""."""
    rows = [line.rstrip() for line in lines if line.strip()]
    for index in range(len(rows) - 1, -1, -1):
        if _EXCEPTION.match(rows[index]):
            place = _place(rows, index)
            return _cut(f"{rows[index].strip()}{f' at {place}' if place else ''}")
    meaningful = [row for row in rows if not _DECORATION.match(row)]
    return _cut(meaningful[-1].strip()) if meaningful else ""


def _place(rows: list[str], index: int) -> str:
    for row in reversed(rows[:index]):  # Python: the innermost frame comes last, just above the exception
        found = _PYTHON_PLACE.match(row)
        if found:
            return _where(found)
    for row in rows[index + 1:]:  # Node, Java: the innermost frame comes first, just below it
        found = _FRAME_PLACE.match(row)
        if found and not found.group("file").startswith("node"):
            return _where(found)
    for row in rows[:index]:
        found = _NODE_HEAD.match(row)
        if found:
            return _where(found)
    return ""


def _where(found: re.Match) -> str:
    return f"{PurePosixPath(found.group('file')).name}:{found.group('line')}"


def _cut(text: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"
