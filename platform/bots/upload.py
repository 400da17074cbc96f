"""The upload check: everything about a bot file that can be refused before anything is stored.

It unpacks the upload with the local runner's own staging code (``arena.botspec.stage_bot``: zip limits,
path traversal, links and devices, entry point, runtime), so a bot that the site accepts is a bot that
``arena play`` accepts and the other way round. Every refusal is an ``UploadRejected`` with one line.
A bot sent as source is not compiled here (a web request is no place for a minute of compiler): what can
be refused without compiling is (crates in a Cargo.toml, a build script, a Go require, a Java package),
and the validation match's worker compiles it, its errors becoming the rejection's reason.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from arena.botspec import NATIVE, BotSpecError, allowed_runtimes, stage_bot
from config.errors import ActionError

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
SCRIPT_SUFFIXES = (".py", ".js", ".pl")
FILENAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
CHUNK = 1024 * 1024
UPLOAD_HELP = "a script (.py, .js, .pl or #!), a source file (.cpp, .rs, .go, Main.java) or a .zip of the bot's folder"


class UploadRejected(ActionError):
    """An upload that cannot become a version; the message says what is wrong and how to fix it."""

    def __init__(self, message: str, field: str | None = "file"):
        super().__init__(message, field)


@dataclass(frozen=True)
class CheckedUpload:
    data: bytes
    sha256: str
    filename: str
    entry: list[str]
    runtime: str
    language: str = ""  # cpp, rust, go, java: sent as source, compiled by the validation's worker

    @property
    def size(self) -> int:
        return len(self.data)


def max_upload_bytes() -> int:
    return settings.UPLOAD_MAX_MB * 1024 * 1024


def read_limited(chunks, limit: int) -> bytes:
    """All the bytes of an upload, refusing it as soon as it passes ``limit`` (never reads the rest)."""
    parts, total = [], 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise UploadRejected(f"the file is larger than the limit of {limit // (1024 * 1024)} MiB")
        parts.append(chunk)
    return b"".join(parts)


def check_upload(filename: str, data: bytes) -> CheckedUpload:
    limit = max_upload_bytes()
    if len(data) > limit:
        raise UploadRejected(f"the file is {len(data) / 2**20:.1f} MiB; the limit is {limit // 2**20} MiB")
    if not data:
        raise UploadRejected("the file is empty")
    name = _clean_filename(filename, data)
    with tempfile.TemporaryDirectory(prefix="kozyr-upload-") as tmp:
        source = Path(tmp) / name
        source.write_bytes(data)
        if not name.lower().endswith(".zip"):
            os.chmod(source, 0o644)  # an upload carries no mode bits: a #! script is recognised by its first line
        try:
            spec = stage_bot(source, Path(tmp) / "staged", label=name)
        except BotSpecError as err:
            raise UploadRejected(_without_label(str(err), name)) from None
        if spec.runtime == NATIVE and spec.language is None:  # a source bot's binary is built by a worker
            check_native(Path(spec.directory) / spec.command[0].removeprefix("./"))
    runtimes = allowed_runtimes()
    if spec.runtime not in (*runtimes, NATIVE):
        raise UploadRejected(f"the bot needs {spec.runtime!r}, which the workers do not have; runtimes: "
                             f"{', '.join(runtimes)} (or a static binary)")
    return CheckedUpload(data=data, sha256=hashlib.sha256(data).hexdigest(), filename=name,
                         entry=list(spec.command), runtime=spec.runtime or NATIVE,
                         language=spec.language or "")


def _clean_filename(filename: str, data: bytes) -> str:
    base = os.path.basename((filename or "").replace("\\", "/")).strip()
    if data.startswith(ZIP_MAGIC) and not base.lower().endswith(".zip"):
        base = (Path(base).stem or "bot") + ".zip"
    if not base:
        raise UploadRejected("the file has no name; name it main.py, bot.js, bot.cpp, bot.zip, …")
    if not FILENAME_RULE.match(base):
        raise UploadRejected(f"invalid file name {base[:60]!r}: use letters, digits, '_', '.', '+', '-' "
                             f"(at most 100 characters)")
    if base.lower().endswith(".zip") and not data.startswith(ZIP_MAGIC):
        raise UploadRejected(f"{base} is not a zip file (it does not start like one)")
    return base


def _without_label(message: str, name: str) -> str:
    """botspec says "bot 'PATH' …"; on the site the file's name says it."""
    return message.replace(f"bot {name!r}", name, 1)


# ELF e_machine of the machines the workers run on, by platform.machine()
ELF_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183}


def check_native(path: Path) -> None:
    """A binary must be built for the workers' processor (the ELF header's e_machine)."""
    import platform

    head = path.read_bytes()[:20]
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return
    order = "little" if head[5] == 1 else "big"
    machine = int.from_bytes(head[18:20], order)
    wanted = ELF_MACHINES.get(platform.machine().lower())
    if wanted is not None and machine != wanted:
        raise UploadRejected(f"{path.name} is a binary for another processor (ELF machine {machine}); the workers "
                             f"run {platform.machine()}: build it for that, or send a script")
