"""The episodes API (public matches out of embargo, cursor paging, filters) and `arena episodes` against a live
site: bulk download, resume, and every replay checked against its hash."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest

from arena import cli, data
from bots import blobs
from bots.actions import house_version


def test_it_lists_public_matches_out_of_embargo_newest_first_through_a_cursor(api, played, db,
                                                                              django_assert_max_num_queries):
    ladder = played()
    played(rotations=1)  # the other rotation is still to play: neither is listed
    validation = played(kind="validation")
    with django_assert_max_num_queries(2):  # the page, then every seat of it with its bot and owner
        api.get("/api/v1/episodes/", {"page_size": 50})
    page = api.get("/api/v1/episodes/", {"page_size": 1}).json()
    assert [m["id"] for m in page["results"]] == [ladder[1].pk] and "cursor=" in page["next"]
    rest = api.get(page["next"]).json()
    assert [m["id"] for m in rest["results"]] == [ladder[0].pk] and rest["next"] is None
    row = rest["results"][0]
    assert row["replay_sha256"] == ladder[0].replay_sha256 and row["ended_by"] == "rules"
    assert [s["bot"] for s in row["seats"]] == ["greedy-bura", "random-bura"]
    assert {"owner", "remote", "version", "rank"} <= set(row["seats"][0]) and row["seats"][0]["remote"] is False
    replay = api.get(row["replay_url"])
    assert hashlib.sha256(b"".join([replay.content])).hexdigest() == row["replay_sha256"]
    assert not {m.pk for m in validation} & {m["id"] for m in page["results"] + rest["results"]}


def test_it_filters_by_bot_version_preset_and_date(api, played, db):
    november = played()
    december = played([house_version("bura", "greedy-p50"), house_version("bura", "random")],
                       when=datetime(2026, 12, 2, tzinfo=UTC))
    ids = lambda answer: {m["id"] for m in answer.json()["results"]}  # noqa: E731
    assert ids(api.get("/api/v1/episodes/", {"bot": "GREEDY-BURA"})) == {m.pk for m in november}
    assert ids(api.get("/api/v1/episodes/", {"bot": "random-bura", "version": 1})) == {
        m.pk for m in november + december}
    assert ids(api.get("/api/v1/episodes/", {"since": "2026-12-01"})) == {m.pk for m in december}
    assert ids(api.get("/api/v1/episodes/", {"until": "2026-12-01", "preset": "bura"})) == {m.pk for m in november}
    assert ids(api.get("/api/v1/episodes/", {"preset": "kozel"})) == set()
    for query, field in (({"bot": "nobody"}, "bot"), ({"bot": "greedy-bura", "version": 9}, "version"),
                         ({"version": 1}, "version"), ({"preset": "poker"}, "preset"),
                         ({"since": "yesterday"}, "since")):
        answer = api.get("/api/v1/episodes/", query)
        assert answer.status_code == 400 and field in answer.json()["error"]["fields"], query


@pytest.mark.django_db(transaction=True)
def test_arena_episodes_downloads_resumes_and_checks_every_hash(live_server, played, tmp_path, capsys,
                                                                monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    matches = played() + played()
    out = tmp_path / "episodes"
    argv = ["episodes", "--bot", "greedy-bura", "--since", "2026-11-01", "--out", str(out), "--site", live_server.url]
    assert cli.main([*argv, "--limit", "3"]) == 0
    assert "3 matches" in capsys.readouterr().out and len(list(out.glob("*.json.gz"))) == 3
    # Interrupted: one file is half written under its final name (as by a crash of another program), one gone.
    first, second = sorted(out.glob("*.json.gz"))[:2]
    first.write_bytes(first.read_bytes()[:20])
    second.unlink()
    assert cli.main(argv) == 0
    said = capsys.readouterr().out
    assert "4 matches" in said and "3 downloaded, 1 already there" in said
    for match in matches:
        saved = out / f"bura-{match.pk}.json.gz"
        assert hashlib.sha256(saved.read_bytes()).hexdigest() == match.replay_sha256
    rows = [json.loads(line) for line in (out / "episodes.ndjson").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == sorted(m.pk for m in matches)
    assert len(list(data.load(out))) == 8  # the folder is training data as it is: two seats a match
    assert not list(out.glob("*.part"))


@pytest.mark.django_db(transaction=True)
def test_arena_episodes_refuses_a_replay_whose_bytes_do_not_match_and_saves_nothing(live_server, played, tmp_path,
                                                                                     capsys, monkeypatch, settings):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    older, newer = played()
    real = blobs.get
    # Storage hands out other bytes than the list's hash promises for one match (a damaged copy, a proxy).
    monkeypatch.setattr(blobs, "get", lambda kind, sha: b"tampered" if sha == older.replay_sha256 else real(kind, sha))
    out = tmp_path / "episodes"
    assert cli.main(["episodes", "--preset", "bura", "--out", str(out), "--site", live_server.url, "--quiet"]) == 2
    assert f"the replay of match {older.pk} does not match its SHA-256" in capsys.readouterr().err
    assert [p.name for p in out.glob("bura-*")] == [f"bura-{newer.pk}.json.gz"]


def test_arena_episodes_says_what_is_wrong_with_its_arguments(tmp_path, capsys):
    assert cli.main(["episodes", "--version", "2", "--out", str(tmp_path), "--site", "http://127.0.0.1:9"]) == 2
    assert "--version needs --bot" in capsys.readouterr().err
    assert cli.main(["episodes", "--since", "last week", "--out", str(tmp_path)]) == 2
    assert "is not a date" in capsys.readouterr().err
    assert cli.main(["episodes", "--out", str(tmp_path), "--site", "http://127.0.0.1:9"]) == 2
    assert "cannot reach http://127.0.0.1:9" in capsys.readouterr().err
