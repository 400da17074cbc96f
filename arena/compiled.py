"""Compiled engines: the game engines' modules built with mypyc, used only while their source is unchanged.

Training runs millions of deals, so the engines' hot paths (legal actions, apply, observation) are
compiled to C with mypyc from the very same Python source: same code, same outputs (the golden digests
and every rules test run against the compiled build), several times fewer instructions. The Python
source stays the reference and the fallback:

* ``arena engines build`` (run by ``make``) compiles every family of ``FAMILIES`` into
  ``build/engines/<family>/`` beside a manifest of the sources' SHA-256 digests.
* ``install()`` (run when ``arena`` is imported, before any engine module) puts a finder in front of the
  import system that loads a family's compiled modules only when its manifest matches this interpreter
  and every one of its sources byte for byte. A family edited since its build runs as Python; nothing
  stale ever runs.
* ``KOZYR_ENGINES`` chooses: ``auto`` (the default: compiled where built and current), ``python``
  (never compiled: coverage, debugging), ``compiled`` (an import of a family that is not built and
  current fails, naming why: what benchmarks and the compiled test run ask for).

A family's modules are compiled as one group (one shared library), because they call each other
natively: a group is used whole or not at all.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from functools import partial
from pathlib import Path

FAMILIES: dict[str, tuple[str, ...]] = {
    "bura": ("arena.cards", "arena.games.bura.ranking", "arena.games.bura.combos", "arena.games.bura.scoring",
             "arena.games.bura.views", "arena.games.bura.state", "arena.bots.bura"),
    "kozel": ("arena.games.kozel.scoring", "arena.games.kozel.views", "arena.games.kozel.state"),
    "burraco": ("arena.games.burraco.scoring", "arena.games.burraco.melds", "arena.games.burraco.views",
                "arena.games.burraco.state"),
}

MODES = ("auto", "python", "compiled")
ARENA = Path(__file__).resolve().parent
# A checkout builds beside its sources (build/ is ignored by git); an installed arena into its environment.
_DEFAULT_DIR = (ARENA.parent / "build" / "engines" if (ARENA.parent / "pyproject.toml").is_file()
                else Path(sys.prefix) / "kozyr-engines")
BUILD_DIR = Path(os.environ.get("KOZYR_ENGINES_DIR") or _DEFAULT_DIR)
MANIFEST = "manifest.json"


def mode() -> str:
    chosen = os.environ.get("KOZYR_ENGINES", "").strip() or "auto"
    if chosen not in MODES:
        raise ValueError(f"KOZYR_ENGINES must be one of {', '.join(MODES)}, not {chosen!r}")
    return chosen


def source_of(module: str) -> Path:
    return ARENA.parent.joinpath(*module.split(".")).with_suffix(".py")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shared_library(family: str) -> str:
    """The module name of a family's shared library (mypyc's group)."""
    return f"kozyr_{family}__mypyc"


def _abi() -> str:
    return f"{sys.implementation.cache_tag}-{sysconfig.get_config_var('SOABI')}"


# ---------------------------------------------------------------------------------------------- loading
def check(family: str, directory: Path | None = None) -> tuple[dict[str, Path] | None, str]:
    """(module name → compiled file, "compiled") when ``family``'s build is current, else (None, why not)."""
    where = (directory or BUILD_DIR) / family
    try:
        manifest = json.loads((where / MANIFEST).read_text())
    except FileNotFoundError:
        return None, "not built (`arena engines build` builds it; `make` runs that)"
    except (OSError, ValueError) as exc:
        return None, f"its manifest {where / MANIFEST} is unreadable ({exc})"
    if manifest.get("abi") != _abi():
        return None, f"built for {manifest.get('abi')}, and this interpreter is {_abi()}"
    if tuple(manifest.get("sources", {})) != FAMILIES[family]:
        return None, "built from another list of modules"
    for module, wanted in manifest["sources"].items():
        try:
            if digest(source_of(module)) != wanted:
                return None, f"{source_of(module).relative_to(ARENA.parent)} changed since the build"
        except OSError as exc:
            return None, f"its source {module} is unreadable ({exc})"
    files = {name: where / relative for name, relative in manifest.get("files", {}).items()}
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing or set(files) != {*FAMILIES[family], shared_library(family)}:
        return None, f"compiled files are missing: {', '.join(missing) or 'see its manifest'}"
    return files, "compiled"


class _CompiledFinder(importlib.abc.MetaPathFinder):
    """Serves the compiled file of a module of a current family; any other import goes on as usual."""

    def __init__(self) -> None:
        self.files: dict[str, Path] = {}
        self.refusals: dict[str, str] = {}  # module → why its family is not compiled (KOZYR_ENGINES=compiled)

    def find_spec(self, fullname, path=None, target=None):
        found = self.files.get(fullname)
        if found is not None:
            return importlib.util.spec_from_file_location(fullname, found)
        why = self.refusals.get(fullname)
        if why is not None:
            raise ImportError(f"KOZYR_ENGINES=compiled, but {fullname} has no current compiled build: {why}")
        return None


_finder = _CompiledFinder()
_status: dict[str, str] = {}


def install() -> None:
    """Put the finder in front of the import system (once); which families it serves is decided now."""
    if _finder in sys.meta_path:
        return
    chosen = mode()
    for family, modules in FAMILIES.items():
        if chosen == "python":
            _status[family] = "python (KOZYR_ENGINES=python)"
            continue
        files, why = check(family)
        if files is not None:
            _finder.files.update(files)
            _status[family] = "compiled"
            continue
        _status[family] = f"python: {why}"
        if chosen == "compiled":
            _finder.refusals.update(dict.fromkeys(modules, why))
    sys.meta_path.insert(0, _finder)


def status() -> dict[str, str]:
    """Family → "compiled", or "python…" with the reason; and whether each compiled module is in use."""
    install()
    return dict(_status)


def is_compiled(module: str) -> bool:
    """Whether the imported module ``module`` is the compiled build (an extension), not the source."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(getattr(loaded, "__loader__", None),
                                             importlib.machinery.ExtensionFileLoader)


# ---------------------------------------------------------------------------------------------- building
def build(families: list[str] | None = None, directory: Path | None = None, *, verbose: bool = False) -> None:
    """Compile ``families`` (default: all) with mypyc into ``directory`` (default ``BUILD_DIR``).

    Each family is built in a scratch directory and moved into place whole, so an import never sees half
    a build. Raises ``RuntimeError`` naming what failed (no C compiler, mypyc's or the compiler's errors)."""
    import shutil
    import tempfile

    directory = directory or BUILD_DIR
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C compiler ({compiler}) on PATH to build the engines with")
    directory.mkdir(parents=True, exist_ok=True)
    for family in families or list(FAMILIES):
        if family not in FAMILIES:
            raise RuntimeError(f"unknown family {family!r}; families: {', '.join(FAMILIES)}")
        modules = FAMILIES[family]
        sources = {module: digest(source_of(module)) for module in modules}
        scratch = Path(tempfile.mkdtemp(prefix=f".{family}-", dir=directory))
        try:
            done = scratch / "done"  # what is kept: the compiled files and the manifest
            _quietly(partial(_compile, family, scratch, done / "out"), scratch / "build.log", verbose=verbose)
            suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
            files = {module: f"out/{module.replace('.', '/')}{suffix}" for module in modules}
            files[shared_library(family)] = f"out/{shared_library(family)}{suffix}"
            absent = [f for f in files.values() if not (done / f).is_file()]
            if absent:
                raise RuntimeError(f"mypyc did not produce {', '.join(absent)}")
            if any(digest(source_of(m)) != d for m, d in sources.items()):
                raise RuntimeError(f"the {family} sources changed during the build; build again")
            (done / MANIFEST).write_text(json.dumps({"abi": _abi(), "sources": sources, "files": files}, indent=1))
            final, old = directory / family, scratch / "old"
            if final.exists():
                final.rename(old)
            done.rename(final)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _compile(family: str, scratch: Path, out: Path) -> None:
    """mypyc's C for one family (one group), compiled by setuptools' build_ext into ``out``."""
    from mypyc.build import mypycify  # (mypy is a development dependency: only building needs it)
    from setuptools import Distribution

    here = Path.cwd()
    os.chdir(ARENA.parent)  # mypyc names modules by their paths from the project's root
    try:
        extensions = mypycify([str(source_of(m).relative_to(ARENA.parent)) for m in FAMILIES[family]],
                              group_name=f"kozyr_{family}", opt_level="3", target_dir=str(scratch / "c"))
        distribution = Distribution({
            "ext_modules": extensions, "script_name": "arena engines build",
            "script_args": ["build_ext", "--build-lib", str(out), "--build-temp", str(scratch / "o")]})
        distribution.parse_command_line()
        distribution.run_commands()
    finally:
        os.chdir(here)


def _quietly(step, log: Path, *, verbose: bool) -> None:
    """Run ``step``; unless ``verbose``, mypyc's and gcc's output goes to ``log``, shown only on failure."""
    if verbose:
        step()
        return
    saved = os.dup(1), os.dup(2)
    try:
        with open(log, "w") as sink:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            try:
                step()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    except (Exception, SystemExit) as exc:  # (mypyc and distutils end a failed build with SystemExit)
        raise RuntimeError(f"building the engines failed ({exc}); the output was:\n"
                           + log.read_text()[-4000:]) from None
    finally:
        os.close(saved[0])
        os.close(saved[1])
