"""The commands docs/operations.md tells an operator to run, read from the guide itself: the compose commands
in its code spans and shell blocks (checked against the compose file and podman-compose's own options by
test_deployment.py), and its marked blocks (`<!-- guide:NAME -->` before a ```sh block), which
test_compose_stack.py runs as written."""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "operations.md"
PODMAN_COMPOSE = REPO / ".venv" / "bin" / "podman-compose"
COMPOSE_PREFIXES = (("docker", "compose"), ("podman-compose",))
SHELL_OPERATORS = {">", "<", "|", "&&", "||", ";", "2>&1"}
GLOBAL_OPTIONS = {"-f": True, "--file": True, "-p": True, "--project-name": True, "--profile": True,
                  "--env-file": True}  # fmt: skip


@dataclass
class ComposeCommand:
    text: str  # as the guide writes it
    files: list[str] = field(default_factory=list)
    profiles: list[str] = field(default_factory=list)
    subcommand: str = ""
    options: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)


def _code(text: str) -> list[str]:
    """Every inline code span and every line of a fenced block, with a span's line breaks joined."""
    pieces = []
    for block in re.findall(r"^\s*```[a-z]*\n(.*?)^\s*```", text, flags=re.MULTILINE | re.DOTALL):
        pieces.extend(line.strip() for line in block.splitlines())
    outside = re.sub(r"^\s*```[a-z]*\n.*?^\s*```", "", text, flags=re.MULTILINE | re.DOTALL)
    pieces.extend(" ".join(span.split()) for span in re.findall(r"`([^`]+)`", outside))
    return pieces


def compose_commands(text: str | None = None) -> list[ComposeCommand]:
    """Every `docker compose …` / `podman-compose …` command of the guide (leading VAR=value settings
    dropped), cut at the first shell operator; the `…` of a command given only in part ends it too."""
    found = []
    for piece in _code(GUIDE.read_text() if text is None else text):
        try:
            words = shlex.split(piece)
        except ValueError:
            continue
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
            words.pop(0)
        for prefix in COMPOSE_PREFIXES:
            if tuple(words[: len(prefix)]) == prefix:
                rest = words[len(prefix):]
                cut = next((i for i, word in enumerate(rest) if word in SHELL_OPERATORS or "…" in word), len(rest))
                found.append(_parse(piece, rest[:cut]))
    return found


def _parse(text: str, words: list[str]) -> ComposeCommand:
    command = ComposeCommand(text)
    while words and words[0].startswith("-"):
        option = words.pop(0)
        assert option in GLOBAL_OPTIONS, f"{text}: {option} is not a global option of compose"
        value = words.pop(0)
        if option in ("-f", "--file"):
            command.files.append(value)
        elif option == "--profile":
            command.profiles.append(value)
    if not words:
        return command
    command.subcommand = words.pop(0)
    takes_value = subcommand_options(command.subcommand)
    while words and words[0].startswith("-"):
        option = words.pop(0)
        name = option.split("=", 1)[0]
        command.options.append(name)
        if takes_value.get(name) and "=" not in option and words:
            command.options.append(words.pop(0))
    if command.subcommand in ("exec", "run"):
        command.services = words[:1]  # the rest is the command run in the container
    else:
        command.services = words
    return command


@cache
def subcommand_options(subcommand: str) -> dict[str, bool]:
    """podman-compose's options of a subcommand (from its --help): option -> whether it takes a value. An
    unknown subcommand has none (and the caller's check of it fails)."""
    done = subprocess.run([str(PODMAN_COMPOSE), subcommand, "--help"], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    if done.returncode != 0:
        return {}
    options = {}
    section = done.stdout.split("options:", 1)[-1]
    for line in section.splitlines():
        line = line.strip()
        if not line.startswith("-"):
            continue
        spec = re.split(r"\s{2,}", line, maxsplit=1)[0]
        for alias in spec.split(", "):
            name, _, value = alias.partition(" ")
            options[name] = bool(value)
    return options


def block(name: str) -> str:
    """The shell block the guide marks `<!-- guide:NAME -->`."""
    text = GUIDE.read_text()
    found = re.search(rf"<!-- guide:{re.escape(name)} -->\s*```sh\n(.*?)```", text, flags=re.DOTALL)
    assert found, f"docs/operations.md has no block marked guide:{name}"
    return found.group(1)
