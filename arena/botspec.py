"""Turning a BOT argument of the runner into something that can be started.

A bot is ``builtin:NAME``, a script (``.py``, ``.js`` or any executable file), a directory, or a ``.zip``
of a directory. A directory's entry point is the first of ``main.py``, ``main.js`` or an executable
``main`` (docs/protocol.md, "Packaging a bot"). Every bot's files are staged into a private directory of
their own, so a sandbox can mount exactly those files read-only and nothing beside them.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

BUILTIN_PREFIX = "builtin:"
ENTRY_POINTS = (("main.py", ("python3", "main.py")), ("main.js", ("node", "main.js")), ("main", ("./main",)))
MAX_ZIP_BYTES = 64 * 1024 * 1024
MAX_ZIP_FILES = 2000


class BotSpecError(ValueError):
    """A BOT argument that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class BotSpec:
    label: str  # what the user wrote (shown in tables and stored in replays)
    builtin: str | None = None  # built-in bot name, or None for an external program
    directory: str | None = None  # staged copy of the bot's files
    command: tuple[str, ...] = ()  # run inside ``directory``

    @property
    def is_builtin(self) -> bool:
        return self.builtin is not None


def parse_bot(argument: str, staging: Path, builtin_names: list[str]) -> BotSpec:
    if argument.startswith(BUILTIN_PREFIX):
        name = argument[len(BUILTIN_PREFIX):]
        if name not in builtin_names:
            raise BotSpecError(f"unknown built-in bot {name!r}; built-ins for this game: "
                               f"{', '.join('builtin:' + n for n in builtin_names)}")
        return BotSpec(label=argument, builtin=name)
    source = Path(argument)
    if not source.exists():
        raise BotSpecError(f"bot {argument!r} is neither builtin:NAME nor an existing file or directory")
    target = _fresh_dir(staging, source.name)
    if source.is_dir():
        shutil.copytree(source, target, symlinks=False, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "node_modules/.cache"))
        return BotSpec(label=argument, directory=str(target), command=_entry_point(target, argument))
    if source.suffix == ".zip":
        _extract_zip(source, target)
        return BotSpec(label=argument, directory=str(target), command=_entry_point(target, argument))
    shutil.copy2(source, target / source.name)
    if source.suffix == ".py":
        command: tuple[str, ...] = ("python3", source.name)
    elif source.suffix == ".js":
        command = ("node", source.name)
    elif os.access(source, os.X_OK):
        command = (f"./{source.name}",)
    else:
        raise BotSpecError(f"bot {argument!r}: a single file must be a .py or .js script or executable "
                           f"(chmod +x)")
    return BotSpec(label=argument, directory=str(target), command=command)


def _fresh_dir(staging: Path, name: str) -> Path:
    for i in range(1000):
        candidate = staging / f"{i:03d}-{name}"
        if not candidate.exists():
            candidate.mkdir(parents=True)
            return candidate
    raise BotSpecError("too many bots staged")


def _entry_point(directory: Path, argument: str) -> tuple[str, ...]:
    for filename, command in ENTRY_POINTS:
        path = directory / filename
        if path.is_file() and (filename != "main" or os.access(path, os.X_OK)):
            return command
    raise BotSpecError(f"bot {argument!r}: no entry point; put main.py, main.js or an executable 'main' at "
                       f"its top level")


def _extract_zip(source: Path, target: Path) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise BotSpecError(f"bot {str(source)!r} is not a valid zip file") from None
    try:
        _extract_members(archive, source, target)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as err:
        # a damaged member (bad CRC), an encrypted one, a compression method Python cannot read
        raise BotSpecError(f"bot {str(source)!r}: the zip cannot be unpacked ({err})") from None
    # A zip of a folder holds that folder: use it as the bot's top level when it is the only entry. It is
    # renamed out of the way first, as it may hold an entry of its own name.
    entries = list(target.iterdir())
    if len(entries) == 1 and entries[0].is_dir():
        holder = Path(tempfile.mkdtemp(dir=target.parent))
        inner = entries[0].rename(holder / "inner")
        for child in inner.iterdir():
            child.rename(target / child.name)
        inner.rmdir()
        holder.rmdir()


def _extract_members(archive: zipfile.ZipFile, source: Path, target: Path) -> None:
    with archive:
        members = archive.infolist()
        if len(members) > MAX_ZIP_FILES:
            raise BotSpecError(f"bot {str(source)!r}: more than {MAX_ZIP_FILES} files in the zip")
        if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
            raise BotSpecError(f"bot {str(source)!r}: unpacks to more than {MAX_ZIP_BYTES // 2**20} MiB")
        root = target.resolve()
        for member in members:
            mode = member.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise BotSpecError(f"bot {str(source)!r}: the zip contains a symlink ({member.filename}); "
                                   f"symlinks are not allowed")
            destination = (target / member.filename).resolve()
            if destination != root and root not in destination.parents:
                raise BotSpecError(f"bot {str(source)!r}: zip entry {member.filename!r} points outside the bot")
            if member.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as src, open(destination, "wb") as dst:
                shutil.copyfileobj(src, dst)
            if mode & 0o111:
                destination.chmod(0o755)
