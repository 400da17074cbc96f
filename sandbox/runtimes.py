"""The interpreters a bot may rely on inside every sandbox backend.

This list is what the bot runtime image installs (sandbox/image/) and what bwrap exposes from the host;
the upload check and docs/protocol.md follow it. A bot whose entry point needs anything else is refused.

`python -m sandbox.runtimes` prints the image's package list; sandbox/image/packages.txt is that output
(a test keeps them equal), and both image builds (Dockerfile, build-local.sh) install exactly it.
"""

from __future__ import annotations

import re

# command name -> what docs/protocol.md promises about it
RUNTIMES: dict[str, str] = {
    "python3": "Python 3.11, standard library only",
    "node": "Node.js 20, no packages",
    "perl": "Perl 5.36, core modules only",
}

# command name -> the Debian package that provides it in the bot runtime image
PACKAGES: dict[str, str] = {"python3": "python3", "node": "nodejs", "perl": "perl"}

# command name -> arguments that make it print its version as "MAJOR.MINOR[.PATCH]"
VERSION_ARGUMENTS: dict[str, list[str]] = {
    "python3": ["-c", "import platform; print(platform.python_version())"],
    "node": ["-e", "console.log(process.versions.node)"],
    "perl": ["-e", "printf qq(%vd\\n), $^V"],
}

if not RUNTIMES.keys() == PACKAGES.keys() == VERSION_ARGUMENTS.keys():
    raise RuntimeError("sandbox.runtimes: RUNTIMES, PACKAGES and VERSION_ARGUMENTS must name the same commands")


def promised_version(command: str) -> str:
    """'3.11' for python3: the version RUNTIMES promises (a prefix of the real one)."""
    found = re.search(r"\d+(?:\.\d+)*", RUNTIMES[command])
    if found is None:
        raise ValueError(f"RUNTIMES[{command!r}] names no version: {RUNTIMES[command]!r}")
    return found.group()


def version_matches(command: str, printed: str) -> bool:
    promised = promised_version(command)
    return printed.strip() == promised or printed.strip().startswith(promised + ".")


def package_list() -> str:
    """The contents of sandbox/image/packages.txt."""
    lines = ["# Generated from sandbox/runtimes.py by `python -m sandbox.runtimes`; do not edit.",
             *(f"{PACKAGES[command]}  # {command}: {RUNTIMES[command]}" for command in RUNTIMES)]  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(package_list(), end="")
