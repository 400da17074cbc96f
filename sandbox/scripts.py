"""A script's `#!` line, checked where the sandbox launches it: a missing interpreter (often a `#!` line
written with Windows line endings, "python3\\r") is a launch failure that names the interpreter, not a
crash of the bot."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from .errors import SandboxError

SHEBANG_BYTES = 256


def check_interpreter(script: Path, shown_as: str, runnable: Callable[[str], bool], search_path: str) -> None:
    """Raise SandboxError when `script` starts with `#!` naming an interpreter that `runnable` refuses.
    `/usr/bin/env NAME` is followed to NAME, looked up in `search_path` as the sandbox will. Split as the
    kernel does: on spaces and tabs only, so a carriage return stays part of the name."""
    try:
        with open(script, "rb") as handle:
            head = handle.read(SHEBANG_BYTES)
    except OSError:
        return
    if not head.startswith(b"#!"):
        return
    line = head[2:].split(b"\n", 1)[0].strip(b" \t")
    words = [word.decode("utf-8", "replace") for word in re.split(rb"[ \t]+", line) if word]
    if not words:
        raise SandboxError(f"{shown_as} starts with '#!' but names no interpreter")
    wanted = words[0]
    if Path(wanted).name == "env" and runnable(wanted):
        rest = [word for word in words[1:] if not word.startswith("-")]
        if not rest:
            return
        wanted = rest[0]
    if "/" in wanted:
        found = runnable(wanted)
    else:
        found = any(runnable(os.path.join(folder, wanted)) for folder in search_path.split(":"))
    if found:
        return
    hint = (" Its first line ends with a carriage return (Windows CRLF line endings), which becomes part of "
            "the interpreter's name: save the file with Unix (LF) line endings.") if b"\r" in line else ""  # fmt: skip
    raise SandboxError(f"{shown_as}: its '#!' interpreter {wanted!r} does not exist in the sandbox.{hint}")
