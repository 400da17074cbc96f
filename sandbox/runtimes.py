"""The interpreters and compilers a bot may rely on inside every sandbox backend.

This list is what the bot runtime image installs (sandbox/image/) and what bwrap exposes from the host;
the upload check and docs/protocol.md follow it. A bot whose entry point needs anything else is refused.

RUNTIMES run bots; TOOLCHAINS build the bots that arrive as source (C++, Rust, Go, Java: arena/builds.py
runs them inside the sandbox, before the match); LIBRARIES are the packages beyond a language's standard
library that a runtime offers (numpy for Python). Every command prints its version with VERSION_ARGUMENTS;
the version promised is the first number in its text.

`python -m sandbox.runtimes` prints the image's package list; sandbox/image/packages.txt is that output
(a test keeps them equal), and both image builds (Dockerfile, build-local.sh) install exactly it.
"""

from __future__ import annotations

import re

# command name -> what docs/protocol.md promises about it
RUNTIMES: dict[str, str] = {
    "python3": "Python 3.11, the standard library and numpy",
    "node": "Node.js 20, no packages",
    "perl": "Perl 5.36, core modules only",
    "java": "Java 17 (OpenJDK), the JDK's standard library",
}

# compiler command -> what docs/protocol.md promises about it (a bot built by it runs as a native binary,
# or with `java` for Java)
TOOLCHAINS: dict[str, str] = {
    "g++": "GCC 12 (g++), C++20, the standard library",
    "rustc": "Rust 1.63 (rustc), the standard library, no crates",
    "go": "Go 1.19, the standard library",
    "javac": "Java 17 (javac), the JDK's standard library",
}

# Python library -> (what docs/protocol.md promises, the Debian package): importable by every Python bot
LIBRARIES: dict[str, tuple[str, str]] = {
    "numpy": ("numpy 1.24", "python3-numpy"),
}

# command name -> the Debian package that provides it in the bot runtime image
PACKAGES: dict[str, str] = {"python3": "python3", "node": "nodejs", "perl": "perl",
                            "java": "openjdk-17-jre-headless", "g++": "g++", "rustc": "rustc", "go": "golang-go",
                            "javac": "openjdk-17-jdk-headless"}

# command name -> arguments that make it print its version (the first number printed is the version)
VERSION_ARGUMENTS: dict[str, list[str]] = {
    "python3": ["-c", "import platform; print(platform.python_version())"],
    "node": ["-e", "console.log(process.versions.node)"],
    "perl": ["-e", "printf qq(%vd\\n), $^V"],
    "java": ["-XX:-UsePerfData", "--version"],
    "g++": ["-dumpfullversion"],
    "rustc": ["--version"],
    "go": ["version"],
    "javac": ["-J-XX:-UsePerfData", "--version"],
}

# Start-up time a runtime gets beyond the time control's startup_ms (measured by bench/runtimes.py; the
# figures and the reasoning are in docs/protocol.md, "Time"): the JVM's own start, under load
STARTUP_ALLOWANCE_MS: dict[str, int] = {"java": 2000}

# /etc folders a runtime reads its configuration from (the JDK's conf/ links there); bwrap binds them
ETC_FOLDERS = ("/etc/java-17-openjdk",)

if not RUNTIMES.keys() | TOOLCHAINS.keys() == PACKAGES.keys() == VERSION_ARGUMENTS.keys():
    raise RuntimeError("sandbox.runtimes: RUNTIMES and TOOLCHAINS together, PACKAGES and VERSION_ARGUMENTS must "
                       "name the same commands")


def promise(command: str) -> str:
    """What docs/protocol.md promises about a runtime, a toolchain or a library."""
    if command in RUNTIMES:
        return RUNTIMES[command]
    if command in TOOLCHAINS:
        return TOOLCHAINS[command]
    return LIBRARIES[command][0]


def promised_version(command: str) -> str:
    """'3.11' for python3: the version RUNTIMES promises (a prefix of the real one)."""
    found = re.search(r"\d+(?:\.\d+)*", promise(command))
    if found is None:
        raise ValueError(f"{command!r} is promised with no version: {promise(command)!r}")
    return found.group()


def printed_version(printed: str) -> str:
    """The first version number in what a command printed ("rustc 1.63.0 (…)" -> "1.63.0")."""
    found = re.search(r"\d+(?:\.\d+)+|\d+", printed)
    return found.group() if found else ""


def version_matches(command: str, printed: str) -> bool:
    promised, version = promised_version(command), printed_version(printed)
    return version == promised or version.startswith(promised + ".")


def package_list() -> str:
    """The contents of sandbox/image/packages.txt."""
    lines = ["# Generated from sandbox/runtimes.py by `python -m sandbox.runtimes`; do not edit.",
             *(f"{PACKAGES[command]}  # {command}: {promise(command)}" for command in (*RUNTIMES, *TOOLCHAINS)),
             *(f"{package}  # {name}: {text}" for name, (text, package) in LIBRARIES.items())]  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(package_list(), end="")
