"""`make lint`'s fixed-sleep check (tests/support/fixed_sleeps.py): a sleep that an assert follows with no poll
in between is found; a poll, a loop, a sleep that is the point (marked) and a sleep after the last assert are
not. And the suite itself has none."""

from __future__ import annotations

from pathlib import Path

from tests.support.fixed_sleeps import fixed_sleeps, main

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


def test_the_command_names_each_one_and_fails(tmp_path, capsys):
    (tmp_path / "test_slow.py").write_text(FOUND)
    assert main([str(tmp_path)]) == 1
    assert f"{tmp_path / 'test_slow.py'}:5: a fixed sleep before an assert" in capsys.readouterr().out


def test_the_suite_has_none(capsys):
    assert main([str(Path(__file__).parent)]) == 0, capsys.readouterr().out
