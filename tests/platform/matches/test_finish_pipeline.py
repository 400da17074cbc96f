"""The finish pipeline (settings.MATCH_HOOKS, docs/matches.md "The finish pipeline"): its order, and that a
step runs only for the kinds of match it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from matches import hooks
from matches.models import Match

DOC = Path(__file__).resolve().parents[3] / "docs" / "matches.md"


def documented_steps() -> list[str]:
    section = DOC.read_text().split("## The finish pipeline", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| \d+ \| `([\w.]+)` \|", section, flags=re.M)


def test_the_pipeline_runs_in_the_order_this_document_lists():
    assert documented_steps() == settings.MATCH_HOOKS
    assert [f"{type(h).__module__}.{type(h).__qualname__}" for h in hooks.pipeline()] == settings.MATCH_HOOKS


def test_the_validation_comes_first_and_its_next_release_last():
    # The lock order: the owner's row before everything, the held matches released after everything.
    assert settings.MATCH_HOOKS[0] == "matches.validation.ValidationResult"
    assert settings.MATCH_HOOKS[-1] == "matches.validation.ReleaseNextValidation"


@pytest.fixture
def ran(monkeypatch):
    """Every step that runs, by name, instead of what it does."""
    calls: list[tuple[str, str]] = []
    for hook in hooks.pipeline():
        name = type(hook).__name__
        for part in ("lock", "finished", "failed"):
            monkeypatch.setattr(hook, part, lambda *args, _n=name, _p=part: calls.append((_n, _p)))
    return calls


@pytest.mark.parametrize("kind", Match.Kind.values)
def test_a_step_never_runs_for_a_kind_it_does_not_name(kind, ran):
    match = Match(kind=kind, preset="bura")
    hooks.run_lock(match)
    hooks.run_finished(match, [])
    hooks.run_failed(match)
    expected = [type(h).__name__ for h in hooks.pipeline() if not h.kinds or kind in h.kinds]
    for part in ("lock", "finished", "failed"):
        assert [name for name, p in ran if p == part] == expected, part
    assert expected, f"no step handles {kind} matches"


def test_every_step_names_kinds_that_exist():
    for hook in hooks.pipeline():
        assert set(hook.kinds) <= set(Match.Kind.values), type(hook).__name__


class NotAHook:
    pass


def test_a_setting_that_names_something_else_is_refused_by_name():
    with override_settings(MATCH_HOOKS=[f"{__name__}.NotAHook"]), pytest.raises(TypeError, match="NotAHook"):
        hooks.pipeline()
    assert len(hooks.pipeline()) == len(settings.MATCH_HOOKS)  # the real list is back after the override
