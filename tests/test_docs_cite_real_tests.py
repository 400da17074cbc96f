"""Every test a document under docs/ (or the README, CONTRIBUTING) cites as proof exists under that name.

Docs cite tests as ``tests/platform/test_x.py::test_name`` (or ``test_x.py::test_name`` once the folder is
clear), followed by more names of the same file: ``*tests/a/test_x.py::test_one, test_two*``. A renamed or
deleted test leaves the promise unproven, so it must fail here."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted([*(REPO / "docs").rglob("*.md"), REPO / "README.md", REPO / "CONTRIBUTING.md"])
CITED_FILE = re.compile(r"((?:tests/)?(?:[\w-]+/)*test_\w+\.py)::\s*(test_\w+)")
NAME = re.compile(r"(?<![\w./-])test_\w+\b(?![.(])")


@cache
def _test_files_by_name() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in (REPO / "tests").rglob("test_*.py"):
        found.setdefault(path.name, []).append(path)
    return found


def defines(path: Path, name: str) -> bool:
    return re.search(rf"^\s*(?:async\s+)?def {re.escape(name)}\(", path.read_text(), flags=re.M) is not None


def citations(doc: Path) -> list[tuple[str | None, str, bool]]:
    """(file as cited, test name) for every citation; a bare test name is looked for in the file cited last
    before it in the document, then in every test file (None: no file cited yet)."""
    cited: list[tuple[str | None, str, bool]] = []  # (file, name, whether the file is named with the test)
    current = None
    for token in re.finditer(rf"{CITED_FILE.pattern}|{NAME.pattern}", doc.read_text()):
        if token.group(1):
            current = token.group(1)
            cited.append((current, token.group(2), True))
        else:
            cited.append((current, token.group(0), False))
    return cited


def resolve(cited: str | None) -> list[Path]:
    if cited is None:
        return [path for paths in _test_files_by_name().values() for path in paths]
    if cited.startswith("tests/"):
        return [REPO / cited] if (REPO / cited).exists() else []
    return [p for p in _test_files_by_name().get(Path(cited).name, []) if p.as_posix().endswith(cited)]


@pytest.mark.parametrize("doc", [d for d in DOCS if d.exists()], ids=lambda d: d.relative_to(REPO).as_posix())
def test_every_cited_test_exists(doc):
    missing = []
    for cited, name, explicit in citations(doc):
        paths = resolve(cited)
        if not any(defines(path, name) for path in paths) and (
                explicit or not any(defines(path, name) for path in resolve(None))):
            missing.append(f"{cited or 'tests/'}::{name}" + ("" if paths else " (no such file)"))
    assert not missing, f"{doc.name} cites tests that do not exist: {', '.join(missing)}"


def test_the_docs_cite_tests_at_all():
    assert sum(len(citations(doc)) for doc in DOCS if doc.exists()) > 20
