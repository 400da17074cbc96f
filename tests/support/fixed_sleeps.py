"""`make lint`'s check for fixed sleeps in tests: a ``time.sleep`` (or Playwright's ``wait_for_timeout``) in a
block that is followed, in that block, by an ``assert`` with no poll in between. Such a test guesses how long
the machine needs: on a busy machine it fails, on a quiet one it wastes the time. Wait for the thing itself
(``tests.support.polling``), or say why a sleep is the point of the test with ``# sleep-ok: <why>`` on the sleep's line.

    python -m tests.support.fixed_sleeps [paths...]   (tests/ by default; exit status 1 when one is found)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

POLLS = {"wait_until", "holds_for", "wait_for_function", "wait_for_selector", "wait_for_url", "wait_for_event",
         "wait_for_load_state", "expect"}


def _calls(node: ast.AST) -> set[str]:
    names = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            target = inner.func
            names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def _is_sleep(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    target = statement.value.func
    if isinstance(target, ast.Attribute):  # time.sleep(…), or Playwright's page.wait_for_timeout(…)
        return (target.attr == "sleep" and isinstance(target.value, ast.Name) and target.value.id == "time") \
            or target.attr == "wait_for_timeout"
    return isinstance(target, ast.Name) and target.id == "sleep"


def _blocks(tree: ast.AST):
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def fixed_sleeps(source: str, filename: str = "<test>") -> list[int]:
    """The line numbers of the sleeps in ``source`` that an assert follows without a poll."""
    lines = source.splitlines()
    found = []
    for block in _blocks(ast.parse(source, filename)):
        for index, statement in enumerate(block):
            if not _is_sleep(statement) or "sleep-ok:" in lines[statement.lineno - 1]:
                continue
            for later in block[index + 1:]:
                if isinstance(later, ast.While | ast.For) or _calls(later) & POLLS:
                    break
                if any(isinstance(inner, ast.Assert) for inner in ast.walk(later)):
                    found.append(statement.lineno)
                    break
    return sorted(found)


def main(argv: list[str]) -> int:
    roots = [Path(arg) for arg in argv] or [Path("tests")]
    files = sorted(f for root in roots for f in ([root] if root.is_file() else root.rglob("test_*.py")))
    bad = [(path, line) for path in files for line in fixed_sleeps(path.read_text(), str(path))]
    for path, line in bad:
        print(f"{path}:{line}: a fixed sleep before an assert: poll for what it waits for "
              f"(tests/support/polling.py), or mark the line '# sleep-ok: <why>'")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
