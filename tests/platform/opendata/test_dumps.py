"""Dumps: what goes in (public, out of embargo, consenting), what comes out (replays, index, manifest), and a
crash that leaves nothing listed."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from datetime import UTC, date, datetime

import pyarrow.parquet as pq
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from arena.replay import rebuild
from bots import blobs
from bots.actions import do_create_bot, house_version
from bots.models import Bot
from matches.models import Match
from opendata import build, tasks
from opendata.models import Dump
from ratings.models import RatingSnapshot, Refit
from tests.platform.opendata.conftest import NOVEMBER

DECEMBER = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
MONTH = date(2026, 11, 1)


def build_november(now=DECEMBER) -> Dump:
    dumps = tasks.due(now)
    assert [(d.preset, d.month) for d in dumps] == [("bura", MONTH)]
    assert build.build(dumps[0].pk) == "ready"
    return Dump.objects.get(pk=dumps[0].pk)


def read(name: str) -> bytes:
    with default_storage.open(name, "rb") as handle:
        return handle.read()


def test_it_dumps_every_public_match_as_replay_lines_with_an_index_and_manifest(played, db):
    ladder = played()
    challenge = played(kind="challenge")
    dump = build_november()
    assert dump.status == Dump.Status.READY and dump.matches == 4
    lines = gzip.decompress(read(dump.replays_name)).decode().splitlines()
    assert len(lines) == 4
    for line in lines:
        rebuild(json.loads(line))  # every line is a whole replay that re-runs through the engine
    index = pq.read_table(io.BytesIO(read(dump.index_name))).to_pylist()
    assert sorted(r["match_id"] for r in index) == sorted(m.pk for m in ladder + challenge)
    assert [r["line"] for r in index] == [1, 2, 3, 4]
    by_id = {m.pk: m for m in ladder + challenge}
    for row, line in zip(index, lines, strict=True):
        match = by_id[row["match_id"]]
        stored = blobs.get("replays", match.replay_sha256)
        assert row["replay_sha256"] == match.replay_sha256 == hashlib.sha256(stored).hexdigest()
        assert json.loads(line)["seed"] == match.seed and row["kind"] == match.kind
        assert json.loads(row["rules"])["match"] == "deals:1" and row["ended_by"] == "rules"
        assert [s["bot"] for s in row["seats"]] == [s.version.bot.name for s in match.seats.order_by("seat")]
        assert all(s["owner"] for s in row["seats"]) and not any(s["remote"] for s in row["seats"])
        assert row["finished"] == NOVEMBER
    manifest = json.loads(read(dump.manifest_name))
    assert manifest["matches"] == 4 and manifest["month"] == "2026-11" and manifest["preset"] == "bura"
    files = {f["kind"]: f for f in manifest["files"]}
    assert files["replays"]["sha256"] == hashlib.sha256(read(dump.replays_name)).hexdigest() == dump.replays_sha256
    assert files["index"]["sha256"] == hashlib.sha256(read(dump.index_name)).hexdigest() == dump.index_sha256
    assert files["replays"]["size"] == dump.replays_size == len(read(dump.replays_name))
    assert dump.manifest_sha256 == hashlib.sha256(read(dump.manifest_name)).hexdigest()
    assert tasks.due(DECEMBER) == []  # built once: a month's dump is not built again


def test_it_leaves_out_validation_matches_embargoed_deals_and_opted_out_bots(played, alice, db):
    kept = played()
    embargoed = played(rotations=1)  # the deal's other rotation is still queued
    quiet = do_create_bot(alice, game="bura", name="quiet-bot")
    from bots.models import BotVersion
    version = BotVersion.objects.create(bot=quiet, number=1, builtin="greedy", entry=[], runtime="builtin",
                                        status=BotVersion.Status.READY)
    quiet.current_version = version
    quiet.save()
    opted = played([version, house_version("bura", "random")])
    validation = played(kind="validation")
    Bot.objects.filter(pk=quiet.pk).update(open_data=False)  # after the matches: the choice is read at build time
    # The month is over, but a deal is still in play: the dump waits for it (within the grace period)...
    assert tasks.due(datetime(2026, 12, 2, tzinfo=UTC)) == []
    # ...and after the grace, is built without it, counting what it left out.
    dump = build_november(now=datetime(2026, 12, 30, tzinfo=UTC))
    index = pq.read_table(io.BytesIO(read(dump.index_name))).to_pylist()
    assert {r["match_id"] for r in index} == {m.pk for m in kept}
    assert not {m.pk for m in embargoed + opted + validation} & {r["match_id"] for r in index}
    assert dump.withheld == {"embargo": 1, "consent": 2}
    assert "stderr" not in gzip.decompress(read(dump.replays_name)).decode().replace('"stderr_tail":[]', "")


def test_a_rating_at_the_time_is_the_last_refit_before_the_match_ended(played, db):
    greedy = house_version("bura", "greedy")
    refit = Refit.objects.create(preset="bura", matches=1, rated=1, seconds=0.1)
    for when, rating in ((datetime(2026, 11, 1, tzinfo=UTC), 1400.0), (datetime(2026, 11, 10, tzinfo=UTC), 1450.0),
                         (datetime(2026, 11, 20, tzinfo=UTC), 1600.0)):
        RatingSnapshot.objects.create(refit=refit, version=greedy, bot=greedy.bot, preset="bura", at=when,
                                      rating=rating, low=rating - 50, high=rating + 50, games=10)
    played()
    dump = build_november()
    for row in pq.read_table(io.BytesIO(read(dump.index_name))).to_pylist():
        ratings = {s["bot"]: s["rating"] for s in row["seats"]}
        assert ratings == {greedy.bot.name: 1450.0, "random-bura": None}


def test_a_build_that_fails_halfway_leaves_nothing_listed_and_the_next_one_finishes(played, db, monkeypatch,
                                                                                     client):
    played()
    dump = tasks.due(DECEMBER)[0]
    real = build._store
    calls = []

    def fails_second(local, name):
        calls.append(name)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(local, name)

    monkeypatch.setattr(build, "_store", fails_second)
    with pytest.raises(OSError):
        build.build(dump.pk, owner="worker-1")
    dump.refresh_from_db()
    assert dump.status == Dump.Status.BUILDING and not dump.replays_name and not dump.lease_owner
    assert not default_storage.exists(calls[0])  # the replay file it had stored is gone again
    assert b"2026-11" not in client.get("/data/").content
    assert client.get("/data/bura/2026-11/replays/").status_code == 404
    monkeypatch.setattr(build, "_store", real)
    assert build.build(dump.pk, owner="worker-2") == "ready"  # its claim was given back: no wait
    dump.refresh_from_db()
    assert dump.attempt == 2 and dump.replays_name.startswith("opendata/bura/2026-11/attempt-2/")


def test_a_killed_build_holds_its_dump_until_its_lease_expires_then_its_files_are_removed(played, db, client):
    played()
    dump = tasks.due(DECEMBER)[0]
    assert build.claim(dump.pk, "worker-1")  # then the process is killed, having stored a file
    default_storage.save("opendata/bura/2026-11/attempt-1/kozyr-bura-2026-11.jsonl.gz", ContentFile(b"half"))
    assert build.build(dump.pk, owner="worker-2") == "busy"
    assert b"2026-11" not in client.get("/data/").content
    Dump.objects.filter(pk=dump.pk).update(lease_expires=DECEMBER)  # the lease has run out
    assert build.build(dump.pk, owner="worker-2") == "ready"
    dump.refresh_from_db()
    assert dump.attempt == 2 and default_storage.listdir("opendata/bura/2026-11")[0] == ["attempt-2"]
    assert build.build(dump.pk, owner="worker-3") == "busy"  # ready: nothing to do


def test_the_data_page_lists_each_dump_with_its_files_sizes_and_counts(played, db, client):
    played()
    dump = build_november()
    page = client.get("/data/").content.decode()
    assert "2026-11" in page and "kozyr-bura-2026-11.jsonl.gz" in page and "kozyr-bura-2026-11.index.parquet" in page
    assert ">2<" in page or " 2 " in page
    got = client.get("/data/bura/2026-11/replays/")
    body = b"".join(got.streaming_content)
    assert got.status_code == 200 and hashlib.sha256(body).hexdigest() == dump.replays_sha256
    listing = client.get("/data/manifest.json").json()["dumps"]
    assert listing[0]["matches"] == 2 and {f["kind"] for f in listing[0]["files"]} == {"replays", "index", "manifest"}
    sums = client.get("/data/SHA256SUMS").content.decode().splitlines()
    assert f"{dump.index_sha256}  kozyr-bura-2026-11.index.parquet" in sums
    assert client.get("/data/bura/2026-13/index/").status_code == 404
    assert client.get("/data/bura/2026-11/secrets/").status_code == 404
    assert client.get("/data/kozel/2026-11/index/").status_code == 404


def test_the_beat_job_queues_the_due_builds_and_a_month_still_running_waits(played, db, monkeypatch):
    played()
    queued = []
    monkeypatch.setattr(tasks.build_dump, "apply_async", lambda args, **kw: queued.append(args[0]))
    monkeypatch.setattr(tasks.timezone, "now", lambda: datetime(2026, 11, 30, tzinfo=UTC))
    assert tasks.build_due() == 0  # November is not over
    monkeypatch.setattr(tasks.timezone, "now", lambda: DECEMBER)
    assert tasks.build_due() == 1 and queued == [Dump.objects.get().pk]
    assert tasks.build_dump(queued[0]) == "ready"
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 2


def test_a_replay_stored_with_a_seats_stderr_enters_the_dump_without_it(played, db):
    """A site older than store_replay's stripping stored bots' stderr tails in replays: never published."""
    match = played()[0]
    replay = json.loads(gzip.decompress(blobs.get("replays", match.replay_sha256)))
    replay["verdicts"][1]["stderr_tail"] = ["my hand: AS KS", "thinking..."]
    leaky = gzip.compress(json.dumps(replay, separators=(",", ":")).encode(), mtime=0)
    Match.objects.filter(pk=match.pk).update(replay_sha256=blobs.put("replays", leaky), replay_size=len(leaky))
    dump = build_november()
    text = gzip.decompress(read(dump.replays_name)).decode()
    assert "my hand" not in text and "thinking" not in text
    for line in text.splitlines():
        rebuild(json.loads(line))
    assert dump.withheld["stderr_removed_from"] == 1


def test_beat_schedules_the_open_data_job_by_a_task_the_workers_know(settings):
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: every installed app's tasks
    entry = settings.CELERY_BEAT_SCHEDULE["build-open-data"]
    assert entry["task"] in app.tasks and "opendata.tasks.build_dump" in app.tasks
    assert entry["options"]["queue"] == "maintenance" and entry["options"]["expires"] < entry["schedule"]
