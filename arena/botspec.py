"""Turning a BOT argument of the runner, or an upload, into a staged bot that can be started.

A bot is ``builtin:NAME``, a script (``.py``, ``.js``, ``.pl`` or an executable file), a directory, or a
``.zip`` of a directory. A directory's entry point is the first of ``main.py``, ``main.js``, ``main.pl``,
``main`` (an ELF binary or a ``#!`` script), or a source file of a compiled language (``main.cpp``,
``Cargo.toml`` or ``main.rs``, ``main.go``, ``Main.java``: arena/builds.py builds those; docs/protocol.md,
"Packaging a bot"). Every bot's files are staged into a private directory of their own, so a sandbox can
mount exactly those files read-only.

Staging never reads outside the bot's own files: a folder is walked through directory descriptors without
following anything, symlinks, devices, fifos and sockets are refused, and files, folders, depth, name length
and bytes are counted and capped while copying (zips the same, folders implied by entry paths included).
:func:`stage_bot` is what the platform's upload check calls too; every refusal is one line of BotSpecError.

This is arena's glue on the way to a sandbox, not its core: which interpreters a bot may rely on is the
sandbox's to say, asked through its public ``sandbox.bot_runtimes()``. Nothing else of the sandbox is used
here, and the referee, the players and the games never import this module.
"""

from __future__ import annotations

import lzma
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena import builds
from arena.builds import NATIVE
from sandbox import bot_runtimes

BUILTIN_PREFIX = "builtin:"
MAX_BOT_BYTES = 64 * 1024 * 1024  # all files together, as unpacked
MAX_BOT_ENTRIES = 2000  # files and folders (for a zip: folders implied by entry paths count too)
MAX_DEPTH = 16  # folders nested inside the bot
MAX_NAME_BYTES = 255  # one file or folder name, as the filesystem allows
MAX_PATH_BYTES = 1024  # a whole path inside the bot
MAX_COMPRESSION_RATIO = 200  # a zip entry larger than RATIO_FLOOR may not unpack to more than this factor
RATIO_FLOOR = 1024 * 1024
IGNORED = frozenset({"__pycache__", "__MACOSX", ".git"})  # never needed at run time, often large

# Entry points of a folder, in order of preference: file name -> the runtime that runs it.
ENTRY_SCRIPTS = (("main.py", "python3"), ("main.js", "node"), ("main.pl", "perl"))
SCRIPT_SUFFIXES = {".py": "python3", ".js": "node", ".pl": "perl"}
# A single source file of a compiled language, by suffix -> the entry name it is staged under
SOURCE_ENTRIES = {".cpp": "main.cpp", ".cc": "main.cc", ".cxx": "main.cxx", ".rs": "main.rs", ".go": "main.go",
                  ".java": "Main.java"}
# Other names a #! line may give a runtime (the basename of the interpreter, or env's argument; a version
# suffix such as python3.11 or perl5.36 is dropped first).
INTERPRETER_ALIASES = {"python": "python3", "nodejs": "node"}
ELF_MAGIC = b"\x7fELF"


class BotSpecError(ValueError):
    """A bot that cannot be used; the message is one line that says what to fix."""


@dataclass(frozen=True)
class BotSpec:
    label: str  # what the user wrote (shown in tables and stored in replays)
    builtin: str | None = None  # built-in bot name, or None for an external program
    directory: str | None = None  # staged copy of the bot's files
    command: tuple[str, ...] = ()  # run inside ``directory`` (a compiled bot's: once it is built)
    runtime: str | None = None  # python3, node, perl, java (sandbox.bot_runtimes()) or "native"
    language: str | None = None  # a bot sent as source (cpp, rust, go, java): built before it plays
    build_failure: str | None = None  # its build failed: the seat crashes at launch with this reason…
    build_log: tuple[str, ...] = ()  # …and the compiler's last lines as its stderr
    # A seat played over a line channel (a person at a web page): the address the runner's ``connect``
    # resolves to the channel (arena.channels); no program is started for it.
    channel: str | None = None
    # The seat's own clock in place of the match's (a person's minutes); None: the match's time control.
    time_control: Any = None

    @property
    def is_builtin(self) -> bool:
        return self.builtin is not None


def parse_bot(argument: str, staging: Path, builtin_names: list[str]) -> BotSpec:
    if argument.startswith(BUILTIN_PREFIX):
        name = argument[len(BUILTIN_PREFIX):]
        if name not in builtin_names:
            raise BotSpecError(f"unknown built-in bot {_show(name)}; built-ins for this game: "
                               f"{', '.join('builtin:' + n for n in builtin_names)}")
        return BotSpec(label=argument, builtin=name)
    source = Path(argument)
    if not source.exists():
        raise BotSpecError(f"bot {_show(argument)} is neither builtin:NAME nor an existing file or directory")
    return stage_bot(source, _fresh_dir(staging, source.name), label=argument)


def stage_bot(source: Path, target: Path, *, label: str | None = None) -> BotSpec:
    """Copy the bot at ``source`` (a script, a folder or a .zip) into ``target`` (created, or empty) and find
    how to start it. Raises BotSpecError with one line when the bot cannot be used."""
    source, target = Path(source), Path(target)
    label = str(source) if label is None else label
    target.mkdir(parents=True, exist_ok=True)
    try:
        if source.is_dir():
            _copy_folder(source, target, label)
        elif source.suffix.lower() == ".zip":
            _extract_zip(source, target, label)
        elif source.is_file() and source.suffix.lower() in SOURCE_ENTRIES:
            # one source file: staged under its language's entry name, then built like a folder
            entry = SOURCE_ENTRIES[source.suffix.lower()]
            if entry == "Main.java" and source.name != "Main.java":
                raise BotSpecError(f"bot {_show(label)}: a Java bot's entry class is Main, in Main.java; rename "
                                   f"{source.name} (and its class)")
            _copy_file_at(None, str(source), target / entry, _Budget(label), follow=True)
        elif source.is_file():
            _copy_file_at(None, str(source), target / source.name, _Budget(label), follow=True)
            return _spec(label, target, *_single_file_entry(target / source.name, label))
        else:
            raise BotSpecError(f"bot {_show(label)} is not a file, a folder or a .zip")
    except OSError as err:  # a file that vanished or cannot be read mid-copy: still one line
        raise BotSpecError(f"bot {_show(label)}: cannot read it ({err.strerror or err})") from None
    command, runtime = inspect_bot(target, label)
    plan = build_plan(target, label)
    return replace(_spec(label, target, command, runtime), language=None if plan is None else plan.language.name)


def inspect_bot(directory: Path, label: str) -> tuple[tuple[str, ...], str]:
    """The entry command and runtime of a staged folder (its ``main`` is made executable if it is a binary)."""
    directory = Path(directory)
    for filename, runtime in ENTRY_SCRIPTS:
        if _is_plain_file(directory / filename):
            return (runtime, filename), _provided(runtime, filename, label)
    main = directory / "main"
    if _is_plain_file(main):
        return _executable_entry(main, label)
    plan = build_plan(directory, label)
    if plan is not None:
        return plan.run, plan.runtime
    raise BotSpecError(f"bot {_show(label)}: no entry point; put main.py, main.js, main.pl, an executable 'main', "
                       f"main.cpp, main.rs (or Cargo.toml), main.go or Main.java at its top level")


def build_plan(directory: Path, label: str) -> builds.Plan | None:
    """How a staged folder is built, when it is sent as source (None otherwise); refusals as BotSpecError."""
    for filename, _ in ENTRY_SCRIPTS:
        if _is_plain_file(Path(directory) / filename):
            return None
    if _is_plain_file(Path(directory) / "main"):
        return None
    try:
        return builds.detect(Path(directory), label)
    except ValueError as err:
        raise BotSpecError(f"bot {_show(label)}: {err}") from None


def built(spec: BotSpec, *, backend: str, cache: Path | None) -> BotSpec:
    """``spec`` ready to start: a bot sent as source is compiled inside the sandbox (from ``cache`` when it
    was before). A failed build stays on the spec (the seat crashes at launch with the compiler's lines);
    a sandbox that cannot run the compiler raises builds.BuildError."""
    if spec.language is None or spec.directory is None:
        return spec
    plan = build_plan(Path(spec.directory), spec.label)
    if plan is None:
        return spec
    try:
        builds.build(Path(spec.directory), plan, backend=backend, cache=cache)
    except builds.BuildFailed as failed:
        return replace(spec, build_failure=str(failed), build_log=tuple(failed.log_lines))
    return spec


def allowed_runtimes() -> list[str]:
    """The interpreters a bot may rely on: the sandbox's list."""
    return bot_runtimes()


def _spec(label: str, target: Path, command: tuple[str, ...], runtime: str) -> BotSpec:
    return BotSpec(label=label, directory=str(target), command=command, runtime=runtime)


def _single_file_entry(path: Path, label: str) -> tuple[tuple[str, ...], str]:
    runtime = SCRIPT_SUFFIXES.get(path.suffix.lower())
    if runtime is not None:
        return (runtime, path.name), _provided(runtime, path.name, label)
    return _executable_entry(path, label)


def _executable_entry(path: Path, label: str) -> tuple[tuple[str, ...], str]:
    """An ELF binary runs as itself; a #! script runs with the runtime its first line names (so a path that
    only exists on the author's machine, or a CRLF line end, does not matter)."""
    with open(path, "rb") as f:
        head = f.read(256)
    if head.startswith(ELF_MAGIC):
        loader = _elf_loader(path)
        if loader is not None and not os.path.exists(loader):
            raise BotSpecError(f"bot {_show(label)}: {path.name} is an ELF binary linked for the loader "
                               f"{_show(loader)}, which the sandbox does not have; link it statically or against "
                               f"the system's glibc")
        path.chmod(0o755)  # zips from Windows tools and Python's zipfile carry no mode bits
        return (f"./{path.name}",), NATIVE
    if not head.startswith(b"#!"):
        raise BotSpecError(f"bot {_show(label)}: {path.name} is not executable (neither an ELF binary nor a script "
                           f"starting with #!); name it .py, .js or .pl, or add a #! line")
    line = head[2:].split(b"\n", 1)[0].strip().decode("utf-8", "replace")
    words = line.split()
    name = os.path.basename(words[0]) if words else ""
    if name == "env":
        name = next((w for w in words[1:] if not w.startswith("-")), "")
    runtimes = allowed_runtimes()
    runtime = next((INTERPRETER_ALIASES.get(n, n) for n in (name, name.rstrip("0123456789.")) if n
                    and INTERPRETER_ALIASES.get(n, n) in runtimes), None)
    if runtime is None:
        raise BotSpecError(f"bot {_show(label)}: {path.name} starts with #!{_show(line, quote=False)}, which needs "
                           f"{_show(name or 'nothing')}; bots may rely on {', '.join(runtimes)} or be a native binary")
    return (runtime, path.name), runtime


def _elf_loader(path: Path) -> str | None:
    """The program interpreter (PT_INTERP) an ELF binary names, or None (static, or headers not understood:
    the kernel then says what is wrong when it runs)."""
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 52 or head[4] not in (1, 2) or head[5] not in (1, 2):
            return None
        wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
        if wide and len(head) < 64:
            return None
        phoff = struct.unpack_from(order + ("Q" if wide else "I"), head, 32 if wide else 28)[0]
        phentsize, phnum = struct.unpack_from(order + "HH", head, 54 if wide else 42)
        for index in range(min(phnum, 64)):
            f.seek(phoff + index * phentsize)
            entry = f.read(phentsize)
            if len(entry) < (56 if wide else 32) or struct.unpack_from(order + "I", entry, 0)[0] != 3:  # PT_INTERP
                continue
            # p_offset, then p_filesz past p_vaddr and p_paddr
            offset, size = struct.unpack_from(order + ("Q16xQ" if wide else "I8xI"), entry, 8 if wide else 4)
            f.seek(offset)
            return f.read(min(size, 4096)).split(b"\0", 1)[0].decode("utf-8", "replace") or None
    return None


def _provided(runtime: str, filename: str, label: str) -> str:
    """``runtime`` if the sandbox provides it (sandbox.bot_runtimes()), else a one-line refusal."""
    runtimes = allowed_runtimes()
    if runtime not in runtimes:
        raise BotSpecError(f"bot {_show(label)}: {filename} needs {runtime!r}, which the sandbox does not provide; "
                           f"bots may rely on {', '.join(runtimes)} or be a native binary")
    return runtime


def _is_plain_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _fresh_dir(staging: Path, name: str) -> Path:
    for i in range(1000):
        candidate = staging / f"{i:03d}-{name}"
        if not candidate.exists():
            candidate.mkdir(parents=True)
            return candidate
    raise BotSpecError("too many bots staged")


def _show(text: str, quote: bool = True) -> str:
    """A bot-controlled name in a message: control characters escaped, length bounded."""
    text = text if len(text) <= 120 else text[:120] + "…"
    clean = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    return repr(clean) if quote else clean


# ---- counting ---------------------------------------------------------------------------------------------

class _Budget:
    """What a bot may hold, counted as it is staged, so a huge or deep bot is refused before it fills a disk."""

    def __init__(self, label: str):
        self.label = label
        self.entries = 0
        self.bytes = 0

    def entry(self, relative: str, depth: int) -> None:
        self.entries += 1
        if self.entries > MAX_BOT_ENTRIES:
            raise BotSpecError(f"bot {_show(self.label)}: more than {MAX_BOT_ENTRIES} files and folders")
        if depth > MAX_DEPTH:
            raise BotSpecError(f"bot {_show(self.label)}: {_show(relative)} is nested more than {MAX_DEPTH} folders "
                               f"deep")
        encoded = relative.encode("utf-8", "surrogateescape")
        if len(encoded) > MAX_PATH_BYTES or any(len(p) > MAX_NAME_BYTES for p in encoded.split(b"/")):
            raise BotSpecError(f"bot {_show(self.label)}: the name {_show(relative)} is too long (at most "
                               f"{MAX_NAME_BYTES} bytes a name, {MAX_PATH_BYTES} a path)")

    def add_bytes(self, count: int) -> None:
        self.bytes += count
        if self.bytes > MAX_BOT_BYTES:
            raise BotSpecError(f"bot {_show(self.label)}: unpacks to more than {MAX_BOT_BYTES // 2**20} MiB")


# ---- folders ----------------------------------------------------------------------------------------------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a fifo swapped in never hangs


def _copy_folder(source: Path, target: Path, label: str) -> None:
    budget = _Budget(label)
    fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the folder the user named may be a link
    try:
        _copy_dir_fd(fd, target, "", 0, budget)
    finally:
        os.close(fd)


def _copy_dir_fd(dir_fd: int, target: Path, relative: str, depth: int, budget: _Budget) -> None:
    """Copy the folder open as ``dir_fd`` through descriptors only: a name is looked up in the folder actually
    opened, nothing is followed, so no symlink (even one swapped in mid-copy) can lead outside."""
    with os.scandir(dir_fd) as listing:
        names = sorted(entry.name for entry in listing)
    for name in names:
        if name in IGNORED:
            continue
        path = f"{relative}{name}"
        budget.entry(path, depth)
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        kind = _kind(info.st_mode)
        if kind == "folder":
            (target / name).mkdir()
            child = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            try:
                _copy_dir_fd(child, target / name, path + "/", depth + 1, budget)
            finally:
                os.close(child)
        elif kind == "file":
            _copy_file_at(dir_fd, name, target / name, budget, relative=path)
        else:
            hint = " (copy what a symlink points to instead of linking it)" if kind == "symlink" else ""
            raise BotSpecError(f"bot {_show(budget.label)}: {_show(path)} is a {kind}; a bot may hold only plain "
                               f"files and folders{hint}")


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device file"


def _copy_file_at(dir_fd: int | None, name: str, destination: Path, budget: _Budget, *, follow: bool = False,
                  relative: str | None = None) -> None:
    relative = relative or os.path.basename(name)
    if dir_fd is None:
        budget.entry(relative, 0)
    flags = _FILE_FLAGS & ~os.O_NOFOLLOW if follow else _FILE_FLAGS
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as err:
        if err.errno == 40:  # ELOOP: it became a symlink since it was listed
            raise BotSpecError(f"bot {_show(budget.label)}: {_show(relative)} is a symlink; a bot may hold only "
                               f"plain files and folders") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BotSpecError(f"bot {_show(budget.label)}: {_show(relative)} is a {_kind(info.st_mode)}; a bot may "
                               f"hold only plain files and folders")
        os.set_blocking(fd, True)
        with open(fd, "rb", closefd=False) as src, open(destination, "wb") as dst:
            _bounded_copy(src, dst, budget)
        os.chmod(destination, 0o755 if info.st_mode & stat.S_IXUSR else 0o644)
    finally:
        os.close(fd)


def _bounded_copy(src, dst, budget: _Budget) -> None:
    """Copy, counting bytes as they come: a file that grows, or lies about its size, stops at the cap."""
    while chunk := src.read(1 << 20):
        budget.add_bytes(len(chunk))
        dst.write(chunk)


# ---- zips -------------------------------------------------------------------------------------------------

# Everything zipfile (and the decompressors under it) raises on a damaged or unusual archive; each becomes one
# line naming the bot (the upload check uses the same code), never a traceback.
_DAMAGED_ZIP = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, lzma.LZMAError, EOFError, RuntimeError,
                NotImplementedError, ValueError, OverflowError, struct.error, OSError)


def _extract_zip(source: Path, target: Path, label: str) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except _DAMAGED_ZIP as err:  # a "version needed" Python does not know raises NotImplementedError here
        reason = str(err) or type(err).__name__
        detail = "" if isinstance(err, zipfile.BadZipFile) else f" ({_show(reason, quote=False)})"
        raise BotSpecError(f"bot {_show(label)} is not a valid zip file{detail}") from None
    with archive:
        try:
            plan = _plan_zip(archive, label)
            _unpack(archive, plan, target, _Budget(label))
        except _DAMAGED_ZIP as err:
            if isinstance(err, BotSpecError):
                raise
            # a damaged member (bad CRC), an encrypted one, a compression method Python cannot read
            raise BotSpecError(f"bot {_show(label)}: the zip cannot be unpacked ({_show(str(err), quote=False)})") \
                from None


def _plan_zip(archive: zipfile.ZipFile, label: str) -> list[tuple[str, zipfile.ZipInfo | None]]:
    """Every path the zip would create, checked before anything is written: (path, member or None for a folder).

    Folders implied by entry paths are listed (and so counted) like stored ones. A zip holding one folder
    is unpacked into it (its name is dropped from every path)."""
    members = archive.infolist()
    if len(members) > MAX_BOT_ENTRIES:
        raise BotSpecError(f"bot {_show(label)}: more than {MAX_BOT_ENTRIES} entries in the zip")
    entries: list[tuple[list[str], zipfile.ZipInfo | None]] = []
    for member in members:
        name = member.filename
        if any(part in IGNORED for part in name.split("/")):
            continue
        mode = member.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise BotSpecError(f"bot {_show(label)}: the zip contains a symlink ({_show(name)}); symlinks are not "
                               f"allowed")
        if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise BotSpecError(f"bot {_show(label)}: zip entry {_show(name)} is a {_kind(mode)}; a bot may hold only "
                               f"plain files and folders")
        if member.flag_bits & 0x1:
            raise BotSpecError(f"bot {_show(label)}: zip entry {_show(name)} is encrypted (password-protected); zip "
                               f"the bot without a password")
        if name.startswith("/") or name[1:3] == ":/" or any(part == ".." for part in name.split("/")):
            raise BotSpecError(f"bot {_show(label)}: zip entry {_show(name)} points outside the bot")
        parts = name.rstrip("/").split("/")
        if name.rstrip("/") == "" or any(part in ("", ".") for part in parts):
            raise BotSpecError(f"bot {_show(label)}: zip entry {_show(name)} has an empty or '.' name in its path")
        is_dir = name.endswith("/")
        if not is_dir and member.file_size > RATIO_FLOOR and \
                member.file_size > MAX_COMPRESSION_RATIO * max(member.compress_size, 1):
            raise BotSpecError(f"bot {_show(label)}: zip entry {_show(name)} is compressed more than "
                               f"{MAX_COMPRESSION_RATIO}:1 (a zip bomb?)")
        entries.append((parts, None if is_dir else member))
    tops = {parts[0] for parts, _ in entries}
    if len(tops) == 1 and all(len(parts) > 1 or member is None for parts, member in entries):
        entries = [(parts[1:], member) for parts, member in entries if len(parts) > 1]
    return _check_tree(entries, label)


def _check_tree(entries: list[tuple[list[str], zipfile.ZipInfo | None]],
                label: str) -> list[tuple[str, zipfile.ZipInfo | None]]:
    kinds: dict[str, str] = {}  # path -> "file" or "folder"
    plan: list[tuple[str, zipfile.ZipInfo | None]] = []
    budget = _Budget(label)

    def claim(path: str, kind: str, depth: int, member: zipfile.ZipInfo | None) -> None:
        seen = kinds.get(path)
        if seen is None:
            budget.entry(path, depth)
            kinds[path] = kind
            plan.append((path, member))
        elif seen != kind or kind == "file":
            what = "twice" if seen == kind else "both as a file and as a folder"
            raise BotSpecError(f"bot {_show(label)}: the zip holds {_show(path)} {what}")

    total = 0
    for parts, member in entries:
        for depth in range(len(parts) - 1):  # the folders this path implies
            claim("/".join(parts[:depth + 1]), "folder", depth, None)
        claim("/".join(parts), "folder" if member is None else "file", len(parts) - 1, member)
        total += member.file_size if member is not None else 0
        if total > MAX_BOT_BYTES:
            raise BotSpecError(f"bot {_show(label)}: unpacks to more than {MAX_BOT_BYTES // 2**20} MiB")
    return plan


def _unpack(archive: zipfile.ZipFile, plan: list[tuple[str, zipfile.ZipInfo | None]], target: Path,
            budget: _Budget) -> None:
    for path, member in plan:  # parents come before their children in the plan
        destination = target / path
        if member is None:
            destination.mkdir()
            continue
        with archive.open(member) as src, open(destination, "xb") as dst:
            _bounded_copy(src, dst, budget)
        if (member.external_attr >> 16) & 0o111:
            destination.chmod(0o755)
