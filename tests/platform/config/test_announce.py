"""`make run`'s terminal: the address and the admin log-in come last, once the site answers (not buried under
start-up lines), and the workers' per-match lines are off by default (one summary line a minute instead)."""

from __future__ import annotations

import configparser
import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from bots.actions import house_version
from matches import actions
from matches.models import Match
from web.management.commands import announce
from web.management.commands.announce import minute_summary

REPO = Path(__file__).resolve().parents[3]


def supervisord_programs() -> dict[str, configparser.SectionProxy]:
    parser = configparser.RawConfigParser(inline_comment_prefixes=None)
    parser.read(REPO / "deploy" / "supervisord.conf")
    return {name.removeprefix("program:"): parser[name] for name in parser.sections() if name.startswith("program:")}


@pytest.mark.django_db(transaction=True)
def test_it_prints_the_address_and_the_admin_password_once_the_site_and_workers_answer(live_server, settings,
                                                                                        tmp_path, monkeypatch):
    settings.VAR_DIR = tmp_path
    (tmp_path / "admin_password").write_text("s3cret-pass\n")
    answers = iter([set(), {"worker"}, {"worker", "maintenance"}])
    monkeypatch.setattr(announce, "workers_answering", lambda: next(answers))
    monkeypatch.setattr(announce.time, "sleep", lambda seconds: None)
    out = io.StringIO()
    call_command("announce", live_server.url, "--once", stdout=out)
    assert next(answers, "asked no more") == "asked no more"  # the banner waited for both kinds of worker
    text = out.getvalue()
    assert f"Kozyr is running at  {live_server.url}/" in text
    assert "user 'admin', password 's3cret-pass'" in text and "${" not in text


def test_the_banner_comes_after_every_other_program_and_the_workers_are_quiet_by_default():
    programs = supervisord_programs()
    priorities = {name: int(section["priority"]) for name, section in programs.items()}
    assert max(priorities, key=priorities.get) == "announce"
    assert all(p < priorities["announce"] for name, p in priorities.items() if name != "announce")
    for name in ("worker", "maintenance", "beat"):
        assert "--loglevel %(ENV_LOG_LEVEL)s" in programs[name]["command"]
    assert "--access-logfile -" not in programs["web"]["command"]  # every request's line goes to a file
    assert "run: export LOG_LEVEL ?= WARNING" in (REPO / "Makefile").read_text()


def test_the_minute_summary_counts_what_happened_since(house_bots):
    match = actions.create_match(kind="ladder", preset="bura", ranked=True,
                                 seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])
    Match.objects.filter(pk=match.pk).update(status="finished", finished=timezone.now())
    line = minute_summary(timezone.now() - timedelta(minutes=1))
    assert line.startswith("kozyr: the last minute: 1 matches finished, 0 failed; now 0 running")
    assert "1 matches finished" not in minute_summary(timezone.now() + timedelta(seconds=1))
