"""`make lint`'s fixed-sleep check (tests/support/fixed_sleeps.py): a sleep that an assert follows with no poll
in between is found; a poll, a loop, a sleep that is the point (marked) and a sleep after the last assert are
not. And the suite itself has none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.fixed_sleeps import fixed_sleeps

ROOT = Path(__file__).resolve().parents[1]

FOUND = '''
import time
def test_it():
    start()
    time.sleep(2)
    x = state()
    assert x == 1
'''
PLAYWRIGHT = '''
def test_page(page):
    page.click("button")
    page.wait_for_timeout(300)
    assert page.title()
'''
POLLED = '''
import time
def test_it():
    time.sleep(0.1)
    wait_until(lambda: state() == 1, 10, "the state")
    assert state() == 1
'''
IN_A_LOOP = '''
import time
def test_it():
    while not ready():
        time.sleep(0.1)
    assert state() == 1
'''
MARKED = '''
import time
def test_it():
    time.sleep(8)  # sleep-ok: an outage longer than the grace
    assert state() == 1
'''
AFTER = '''
import time
def test_it():
    assert state() == 1
    time.sleep(1)
'''


def test_a_sleep_before_an_assert_is_found():
    assert fixed_sleeps(FOUND) == [5]
    assert fixed_sleeps(PLAYWRIGHT) == [4]


def test_polls_loops_marks_and_trailing_sleeps_are_not():
    for source in (POLLED, IN_A_LOOP, MARKED, AFTER):
        assert fixed_sleeps(source) == [], source


def lint(path: Path) -> subprocess.CompletedProcess:
    """The check as make lint runs it: a process of its own (CPython 3.11.7's parser can refuse a deep file with
    "AST constructor recursion depth mismatch" in a process whose recursion state another test disturbed)."""
    return subprocess.run([sys.executable, "-m", "tests.support.fixed_sleeps", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_command_names_each_one_and_fails(tmp_path):
    (tmp_path / "test_slow.py").write_text(FOUND)
    done = lint(tmp_path)
    assert done.returncode == 1
    assert f"{tmp_path / 'test_slow.py'}:5: a fixed sleep before an assert" in done.stdout


def test_the_suite_has_none():
    done = lint(ROOT / "tests")
    assert done.returncode == 0, done.stdout
