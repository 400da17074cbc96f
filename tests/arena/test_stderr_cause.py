"""arena.stderr_cause: the exception and its place, read from what real interpreters print when a bot dies."""

from __future__ import annotations

import subprocess
import sys

from arena.stderr_cause import last_error


def died(tmp_path, command: list[str], name: str, source: str, stdin: str = "") -> list[str]:
    (tmp_path / name).write_text(source)
    done = subprocess.run([*command, str(tmp_path / name)], input=stdin, capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    return done.stderr.splitlines()


def test_it_names_a_python_syntax_error_and_its_line(tmp_path):
    lines = died(tmp_path, [sys.executable], "main.py", "import json\n\ndef broken(:\n    pass\n")
    assert last_error(lines) == "SyntaxError: invalid syntax at main.py:3"


def test_it_names_a_python_exception_at_its_innermost_frame(tmp_path):
    source = "import sys\n\ndef act(x):\n    return x['missing']\n\nfor line in sys.stdin:\n    act({})\n"
    lines = died(tmp_path, [sys.executable], "main.py", source, stdin="{}\n")
    assert last_error(lines) == "KeyError: 'missing' at main.py:4"


def test_it_names_a_node_exception_at_its_first_frame(tmp_path):
    source = "const x = 1;\nfunction f() { throw new TypeError('bad move'); }\nf();\n"
    lines = died(tmp_path, ["node"], "main.js", source)
    assert last_error(lines) == "TypeError: bad move at main.js:2"


def test_it_names_java_go_and_plain_lines_and_keeps_it_short():
    java = ['Exception in thread "main" java.lang.IllegalStateException: boom', "\tat Main.act(Main.java:12)",
            "\tat Main.main(Main.java:30)"]
    assert last_error(java) == 'Exception in thread "main" java.lang.IllegalStateException: boom at Main.java:12'
    assert last_error(["panic: runtime error: index out of range", "", "goroutine 1 [running]:"]) == \
        "panic: runtime error: index out of range"
    assert last_error(["reading the table", "giving up: no card to play", "   ", "^^^"]) == "giving up: no card to play"
    assert last_error([]) == ""
    assert len(last_error(["ValueError: " + "x" * 1000])) == 300
