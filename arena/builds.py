"""Bots that arrive as source: C++, Rust, Go and Java, compiled inside the sandbox before they play.

A staged folder whose entry point is a source file (``main.cpp``, ``main.rs`` or a ``Cargo.toml``,
``main.go``, ``Main.java``; docs/protocol.md, "Bots in compiled languages") is *built*: its files are copied
into the sandbox's private /tmp, the compiler runs there under BUILD_LIMITS with no network and nothing of
any other bot, and what it produced comes back as a tar on the sandbox's stdout. The tar is unpacked into the
staged folder's ``.kozyr-build/``, and the bot then runs from there like any native binary (or with ``java``).

A build is kept by its key (the language, the compiler's promise, the flags and every source file's hash):
the same sources are compiled once per cache. A build's products are capped (``Caps``: bytes and files, 32 MiB
and 2,000 by default): the compiler may write no file past the byte cap, the driver refuses products over
either cap before packing them, the tar read back stops at the cap, and ``unpack`` checks the tar's members
against the caps before writing anything, so a build (or a stored blob) never expands past them anywhere.

A compiler's refusal, or products over a cap, is the bot's: ``BuildFailed`` carries the compiler's last
lines, and the seat crashes at launch with them (the players' ``BotCannotStart``). A sandbox that could not run
the compiler at all is the machine's (``BuildError`` as ``InfrastructureError``).

Like botspec, this is arena's glue on the way to a sandbox: the referee, the players and the games never
import it.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import tarfile
import threading
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import sandbox
from arena.players import BotCannotStart, InfrastructureError
from sandbox import runtimes

NATIVE = "native"  # the runtime of an ELF binary: nothing but the kernel
BUILD_DIR = ".kozyr-build"  # inside the staged bot: what its build produced (reserved, refused in uploads)
BUILD_FORMAT = 1  # part of every key: a change to how builds are made makes every build a new one
BUILD_LIMITS = sandbox.Limits(memory_mb=2048, processes=128, cpu_seconds=120, wall_seconds=300, open_files=1024,
                              file_size_mb=512, tmp_mb=2048)
MAX_OUTPUT_BYTES = 32 * 1024 * 1024  # a build's products, packed (the tar) and unpacked alike: Caps' defaults
MAX_OUTPUT_FILES = 2000  # files and folders among them (the same as an upload may hold)
MAX_LOG_BYTES = 256 * 1024  # the compiler's messages kept (its last ones: the errors come last)
SHOWN_LOG_LINES = 40  # of which the author sees this many in the verdict's reason
# Java bots run on one core with a heap the default sandbox memory (256 MiB) holds with the JVM's own needs.
JAVA_RUN = ("java", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1", "-Xss8m", "-Xmx128m",
            "-XX:MaxMetaspaceSize=64m", "-XX:ReservedCodeCacheSize=32m", "-cp", f"{BUILD_DIR}/classes", "Main")
NATIVE_RUN = (f"./{BUILD_DIR}/main",)


class BuildError(InfrastructureError):
    """The sandbox could not run the compiler at all: not the bot's fault."""


class BuildFailed(BotCannotStart):
    """The compiler refused the bot (or the build passed a limit): one line, and the compiler's last lines."""


@dataclass(frozen=True)
class Caps:
    """The most a build's products may hold: bytes (the tar, and the files it unpacks to) and files and
    folders. A build's key does not include them: a cached build is checked against the caps of the day."""

    max_bytes: int = -1  # -1: MAX_OUTPUT_BYTES as it is when used (tests lower the module's value)
    max_files: int = -1  # -1: MAX_OUTPUT_FILES

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_bytes", MAX_OUTPUT_BYTES if self.max_bytes < 0 else self.max_bytes)
        object.__setattr__(self, "max_files", MAX_OUTPUT_FILES if self.max_files < 0 else self.max_files)
        if self.max_bytes < 1 or self.max_files < 1:
            raise ValueError(f"build caps must be positive: {self}")

    def over(self, label: str, found: str, log_lines: list[str] | None = None) -> BuildFailed:
        """The bot's failure for products over a cap: the cap passed, then what was found."""
        return BuildFailed(f"the {label} build produced more than {_size(self.max_bytes)}, the cap on a build's "
                           f"products: {found}", log_lines or ())

    def over_files(self, label: str, found_bytes: int, found_files: int) -> BuildFailed:
        """The failure for products over either cap, with the sizes found (the files' cap named when it was it)."""
        found = f"{_size(found_bytes)} in {found_files} file{'s' if found_files != 1 else ''}"
        if found_files > self.max_files:
            return BuildFailed(f"the {label} build produced more than {self.max_files} files and folders, the cap "
                               f"on a build's products: {found}")
        return self.over(label, found)


@dataclass(frozen=True)
class Language:
    name: str  # cpp, rust, go, java
    label: str  # what authors call it
    compiler: str  # the toolchain command (sandbox.runtimes.TOOLCHAINS)
    sources: tuple[str, ...]  # suffixes of the files compiled
    command: tuple[str, ...]  # the compiler's fixed arguments; {out} is the products' folder, the files follow


LANGUAGES: dict[str, Language] = {language.name: language for language in (
    Language("cpp", "C++", "g++", (".cpp", ".cc", ".cxx"),
             ("g++", "-std=c++20", "-O2", "-pipe", "-fmax-errors=20", "-I.", "-o", "{out}/main")),
    Language("rust", "Rust", "rustc", (".rs",),
             ("rustc", "-O", "-C", "strip=symbols", "-C", "debuginfo=0", "--crate-type", "bin", "--crate-name", "bot",
              "-o", "{out}/main")),
    # GOPATH mode (GO111MODULE=off in the build's environment): the standard library only, and no go.mod lock,
    # which the sandbox's seccomp filter refuses.
    Language("go", "Go", "go", (".go",), ("go", "build", "-trimpath", "-o", "{out}/main", ".")),
    Language("java", "Java", "javac", (".java",),
             ("javac", "-J-XX:-UsePerfData", "-J-XX:+UseSerialGC", "-J-Xmx768m", "--release", "17", "-encoding",
              "UTF-8", "-proc:none", "-implicit:class", "-d", "{out}/classes")),
)}
ENTRY_FILES = (("main.cpp", "cpp"), ("main.cc", "cpp"), ("main.cxx", "cpp"), ("Cargo.toml", "rust"),
               ("main.rs", "rust"), ("main.go", "go"), ("Main.java", "java"))


@dataclass(frozen=True)
class Plan:
    """How one staged bot is built: the language, the compiler's arguments, and the command it then runs."""

    language: Language
    arguments: tuple[str, ...]  # after the language's fixed ones: the files (C++, Java), edition and root (Rust)
    run: tuple[str, ...]
    runtime: str  # NATIVE, or "java"

    @property
    def compile_command(self) -> tuple[str, ...]:
        return (*self.language.command, *self.arguments)


def detect(directory: Path, label: str) -> Plan | None:
    """The build plan of a staged folder whose entry point is a source file, None if it has none. Raises
    ValueError (one line, what to fix) for a source bot that cannot be built here."""
    directory = Path(directory)
    if (directory / BUILD_DIR).exists():
        raise ValueError(f"{BUILD_DIR} is reserved for the platform's build of the bot; leave it out")
    found = next((lang for name, lang in ENTRY_FILES if (directory / name).is_file()), None)
    if found is None:
        return None
    language = LANGUAGES[found]
    if language.name == "cpp":
        files = _sources(directory, language)
        return Plan(language, tuple(files), NATIVE_RUN, NATIVE)
    if language.name == "rust":
        entry, edition = _rust_crate(directory)
        return Plan(language, ("--edition", edition, entry), NATIVE_RUN, NATIVE)
    if language.name == "go":
        _check_go_module(directory)
        if any(path.suffix == ".go" and path.parent != directory for path in _walk(directory)):
            raise ValueError("Go bots are one package: put every .go file at the bot's top level (package main)")
        return Plan(language, (), NATIVE_RUN, NATIVE)
    main = (directory / "Main.java").read_text("utf-8", "replace")
    declared = re.search(r"(?m)^\s*package\s+([\w.]+)\s*;", main)
    if declared:
        raise ValueError(f"Main.java declares package {declared.group(1)}; the entry class Main must be in the default "
                         f"package (no package line)")
    return Plan(language, tuple(_sources(directory, language)), JAVA_RUN, "java")


def key(directory: Path, plan: Plan) -> str:
    """The build's identity: the same sources built the same way give the same key."""
    digest = hashlib.sha256()
    for part in (f"kozyr-build {BUILD_FORMAT}", runtimes.TOOLCHAINS[plan.language.compiler], *plan.compile_command):
        digest.update(part.encode() + b"\0")
    for path in sorted(_walk(directory)):
        relative = path.relative_to(directory).as_posix()
        digest.update(relative.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def cached(directory: Path, plan: Plan, cache: Path | None) -> bool:
    """Whether ``cache`` holds this build already."""
    return cache is not None and (Path(cache) / f"{key(directory, plan)}.tar").is_file()


def build(directory: Path, plan: Plan, *, backend: str, cache: Path | None = None, caps: Caps | None = None) -> float:
    """Build the staged bot in ``directory`` (its products land in ``directory/.kozyr-build``), from ``cache``
    when that holds this build's key. Returns the seconds the compiler took (0 from the cache). Raises
    BuildFailed (the bot's fault) or BuildError (the machine's)."""
    directory = Path(directory)
    caps = caps or Caps()
    build_key = key(directory, plan)
    cached = None if cache is None else Path(cache) / f"{build_key}.tar"
    if cached is not None and cached.is_file():
        unpack(cached.read_bytes(), directory, caps, label=plan.language.label)
        return 0.0
    started = time.monotonic()
    products = compile_in_sandbox(directory, plan, backend, caps=caps)
    seconds = time.monotonic() - started
    unpack(products, directory, caps, label=plan.language.label)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(products)
        os.replace(partial, cached)  # atomic: another process building the same key wrote the same bytes
    return seconds


def compile_in_sandbox(directory: Path, plan: Plan, backend: str, limits: sandbox.Limits = BUILD_LIMITS,
                       caps: Caps | None = None) -> bytes:
    """Run the compiler on a copy of the bot inside the sandbox; the tar of its products, within ``caps``."""
    caps = caps or Caps()
    command = ["python3", "-I", "-S", "-c", DRIVER, str(caps.max_bytes), str(caps.max_files), *plan.compile_command]
    env = {"GOCACHE": "/tmp/.gocache", "GOPATH": "/tmp/.gopath", "GO111MODULE": "off", "GOPROXY": "off",
           "GOFLAGS": "", "CGO_ENABLED": "0", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off"}
    try:
        proc = sandbox.start(command, directory, limits, backend=backend, allow_unsafe=backend == "unsafe",
                             env=env)
    except (sandbox.SandboxError, OSError) as err:
        raise BuildError(f"the sandbox could not start the {plan.language.label} compiler: {err}") from None
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None  # sandbox.start always gives both pipes
    log = _Tail(proc.stderr)
    log.start()
    output = bytearray()
    too_large = False
    # The driver refuses products over the caps before packing them; this is the host's own bound on what it
    # reads, whatever the sandbox writes: reading stops at the cap, and finish() kills the build.
    while chunk := stdout.read(1 << 16):
        if len(output) + len(chunk) > caps.max_bytes:
            too_large = True
            proc.mark_output_truncated()
            break
        output += chunk
    # stdin is closed only now: the container backend's stdin is a FIFO whose far end the container opens as
    # it starts, and closing ours first would leave that open waiting until the wall limit.
    stdin.close()
    report = proc.finish()
    log.join(timeout=10)
    lines = log.lines()
    label = plan.language.label
    if report.outcome == "sandbox_failure" or report.exit_code == DRIVER_FAILED:
        raise BuildError(f"the sandbox failed while compiling the {label} bot: {report.detail}"
                         f"{'; ' + lines[-1] if lines else ''}")
    if too_large:
        raise caps.over(label, "the sandbox wrote more than that, and was stopped", lines)
    if report.exit_code == DRIVER_TOO_LARGE:
        found = _too_large_line(lines)
        if found is None:
            raise caps.over(label, "the build's products were refused before they were packed", lines)
        raise caps.over_files(label, *found)
    if (report.outcome == "runtime_error" and caps.max_bytes < limits.file_size_mb * 2**20
            and any(FILE_LIMIT.search(line) for line in lines)):
        # The driver starts the compiler with RLIMIT_FSIZE just past the byte cap (when that is below the
        # sandbox's own file-size limit): a linker writing a larger binary is stopped there (SIGXFSZ, or
        # EFBIG), and every toolchain says so in these words.
        raise caps.over(label, "the compiler was stopped writing a file larger than that", lines)
    if report.outcome == "runtime_error" or (report.outcome == "ok" and not output):
        raise BuildFailed(f"the {label} compiler refused the bot{_first_error(lines)}", lines)
    if report.outcome != "ok":
        raise BuildFailed(f"the {label} build ended: {report.detail} (build limits: {limits_text(limits)})", lines)
    return bytes(output)


def limits_text(limits: sandbox.Limits) -> str:
    return (f"{limits.cpu_seconds:g} s of CPU, {limits.wall_seconds:g} s in all, {limits.memory_mb} MiB of memory, "
            f"{limits.tmp_mb} MiB of files")


def unpack(products: bytes, directory: Path, caps: Caps | None = None, *, label: str = "bot's") -> None:
    """The build's tar into ``directory/.kozyr-build``: regular files and folders only, nothing outside it, and
    nothing at all when its members add up to more than ``caps`` (checked before anything is written: a blob
    in storage, or a cache, is not trusted to be the size it was when it was made)."""
    caps = caps or Caps()
    target = Path(directory) / BUILD_DIR
    shutil.rmtree(target, ignore_errors=True)
    if len(products) > caps.max_bytes:
        raise caps.over(label, f"its tar is {_size(len(products))}")
    try:
        with tarfile.open(fileobj=io.BytesIO(products), mode="r:") as archive:
            members = archive.getmembers()
            # A member's size is what it unpacks to (a sparse member's too, however little the tar holds).
            unpacked = sum(member.size for member in members if member.isfile())
            if len(members) > caps.max_files or unpacked > caps.max_bytes:
                raise caps.over_files(label, unpacked, len(members))
            target.mkdir()
            archive.extractall(target, members=members, filter="data")
        odd = next((path for path in target.rglob("*") if path.is_symlink() or not (path.is_file() or path.is_dir())),
                   None)
        if odd is not None:
            raise BuildError(f"the build left {odd.name!r}, which is neither a file nor a folder")
    except (tarfile.TarError, OSError) as err:
        shutil.rmtree(target, ignore_errors=True)
        raise BuildError(f"the build's products could not be unpacked: {err}") from None
    except BuildError:
        shutil.rmtree(target, ignore_errors=True)
        raise


def _size(count: int) -> str:
    """Bytes as people read them; a whole number of MiB or KiB (a cap) without decimals."""
    for unit, name in ((2**20, "MiB"), (2**10, "KiB")):
        if count >= unit:
            return f"{count // unit} {name}" if count % unit == 0 else f"{count / unit:.1f} {name}"
    return f"{count} bytes"


def _too_large_line(lines: list[str]) -> tuple[int, int] | None:
    """(bytes, files) from the driver's last line when it refused the products: the last such line is its own
    (a compiler's messages, which a bot's source can shape, all come before it)."""
    for line in reversed(lines):
        found = re.fullmatch(r"kozyr build: products over the caps: (\d+) bytes in (\d+) files", line.strip())
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def _first_error(lines: list[str]) -> str:
    """The compiler's first error: a line saying "error", else the first naming a place (Go says
    ``main.go:3:8: cannot find package``), else its first line."""
    errors = [line for line in lines if re.search(r"\berror\b", line, re.IGNORECASE)]
    errors = errors or [line for line in lines if re.match(r"\s*[\w./-]+:\d+(:\d+)?:", line)] or lines[:1]
    return f": {errors[0].strip()[:300]}" if errors else ""


def _walk(directory: Path) -> list[Path]:
    return [path for path in Path(directory).rglob("*")
            if path.is_file() and BUILD_DIR not in path.relative_to(directory).parts]


def _sources(directory: Path, language: Language) -> list[str]:
    return sorted(path.relative_to(directory).as_posix() for path in _walk(directory)
                  if path.suffix in language.sources)


def _rust_crate(directory: Path) -> tuple[str, str]:
    """(the crate root, the edition): ``main.rs`` alone, or a Cargo package with no dependencies."""
    manifest = directory / "Cargo.toml"
    if not manifest.is_file():
        return "main.rs", "2021"
    try:
        cargo = tomllib.loads(manifest.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"Cargo.toml is not valid TOML: {err}") from None
    for table in ("dependencies", "build-dependencies", "dev-dependencies"):
        if cargo.get(table):
            names = ", ".join(sorted(cargo[table]))[:200]
            raise ValueError(f"Cargo.toml lists {table} ({names}); bots build with Rust's standard library only, "
                             f"with no crates (nothing is downloaded)")
    package = cargo.get("package") or {}
    if (directory / "build.rs").exists() or package.get("build"):
        raise ValueError("Cargo.toml has a build script (build.rs); build scripts are not run: remove it")
    if (cargo.get("lib") or {}).get("proc-macro"):
        raise ValueError("Cargo.toml declares a proc-macro crate; a bot is a binary crate")
    if not (directory / "src" / "main.rs").is_file():
        raise ValueError("Cargo.toml is there but src/main.rs is not; a bot is a binary crate with src/main.rs")
    edition = str(package.get("edition", "2015"))
    if edition not in ("2015", "2018", "2021"):
        raise ValueError(f"Cargo.toml asks for edition {edition!r}; Rust 1.63 knows 2015, 2018 and 2021")
    return "src/main.rs", edition


def _check_go_module(directory: Path) -> None:
    module = directory / "go.mod"
    if module.is_file() and re.search(r"(?m)^\s*require\b", module.read_text("utf-8", "replace")):
        raise ValueError("go.mod requires modules; Go bots build with the standard library only (nothing is "
                         "downloaded): remove the require lines")


class _Tail(threading.Thread):
    """The compiler's messages, read while it runs (a full pipe would stall it); the last MAX_LOG_BYTES kept."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self._stream = stream
        self._data = bytearray()

    def run(self) -> None:
        while chunk := self._stream.read(1 << 16):
            self._data += chunk
            if len(self._data) > 2 * MAX_LOG_BYTES:
                del self._data[:-MAX_LOG_BYTES]

    def lines(self) -> list[str]:
        text = bytes(self._data[-MAX_LOG_BYTES:]).decode("utf-8", "replace")
        return [line for line in text.splitlines() if line.strip()]


# The build driver, run by the sandbox's python3: copy the bot (read-only where it lies) into the private
# /tmp, compile there with the language's fixed command, write the products as a tar on stdout. It is given
# no shell: the bot image has none. The compiler's messages go to stderr; its exit status is the driver's.
# Its first two arguments are the caps (bytes, files and folders): the compiler runs with RLIMIT_FSIZE one
# byte past the byte cap, so no file it writes grows past it (a 120-byte source asking for a 200 MiB binary
# is stopped at the cap, not after), and products over either cap are refused before they are packed.
DRIVER = r'''
import io, os, resource, shutil, subprocess, sys, tarfile, tempfile
max_bytes, max_files = int(sys.argv[1]), int(sys.argv[2])
try:
    source, products = tempfile.mkdtemp(prefix="src-"), tempfile.mkdtemp(prefix="out-")
    for folder, subfolders, files in os.walk("."):
        subfolders[:] = [name for name in subfolders if name != ".kozyr-build"]
        os.makedirs(os.path.join(source, folder), exist_ok=True)
        for name in files:
            shutil.copyfile(os.path.join(folder, name), os.path.join(source, folder, name))
    os.mkdir(os.path.join(products, "classes"))
    command = [part.replace("{out}", products) for part in sys.argv[3:]]
except OSError as err:
    print(f"kozyr build: could not copy the bot into /tmp: {err}", file=sys.stderr)
    sys.exit(70)


def cap_file_size():
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    cap = max_bytes + 1 if hard == resource.RLIM_INFINITY else min(max_bytes + 1, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))


code = subprocess.run(command, cwd=source, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                      preexec_fn=cap_file_size).returncode
if code:
    sys.exit(code if code not in (70, 71) else 1)
entries = [name for name in sorted(os.listdir(products))
           if not (os.path.isdir(os.path.join(products, name)) and not os.listdir(os.path.join(products, name)))]
size, count = 0, 0
for name in entries:
    path = os.path.join(products, name)
    count += 1
    if not os.path.isdir(path):
        size += os.lstat(path).st_size
    for folder, subfolders, files in os.walk(path):
        count += len(subfolders) + len(files)
        size += sum(os.lstat(os.path.join(folder, file)).st_size for file in files)
packed = io.BytesIO()
if size <= max_bytes and count <= max_files:
    with tarfile.open(fileobj=packed, mode="w") as archive:
        for name in entries:
            archive.add(os.path.join(products, name), arcname=name)
if size > max_bytes or count > max_files or len(packed.getvalue()) > max_bytes:
    print(f"kozyr build: products over the caps: {max(size, len(packed.getvalue()))} bytes in {count} files",
          file=sys.stderr)
    sys.exit(71)
sys.stdout.buffer.write(packed.getvalue())
'''
DRIVER_FAILED = 70  # the driver's own failure (it could not copy the bot): the machine's, not the bot's
DRIVER_TOO_LARGE = 71  # the driver refused products over the caps: the bot's
# How toolchains report a file stopped at RLIMIT_FSIZE: strsignal(SIGXFSZ) (collect2, rustc, go) or
# strerror(EFBIG) (a writer that ignores the signal, as the JVM does).
FILE_LIMIT = re.compile(r"file size limit exceeded|file too large", re.IGNORECASE)


def default_cache() -> Path:
    """Where ``arena play`` keeps builds between runs."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kozyr" / "builds"
