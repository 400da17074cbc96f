"""The frames endpoint under a flood: distinct (start, count) requests leave the cache (Redis, the broker's
server) as it was, a view's frames are computed once and kept in media storage, anonymous readers are
rate-limited per address, and an oversized count is refused naming ``count``.

The cache here is a real Redis (this test process's spare database on the suite's server,
tests/support/resources.py) under a key prefix of this test's own, so only this test's keys are counted and removed."""

from __future__ import annotations

import logging
import threading
import uuid

import pytest
import redis

from accounts import limits
from arena import replay_frames
from tests.support.resources import redis_url
from web import frames_store, replay_views

REDIS_URL = redis_url("spare")
COMPUTED = "frames computed"  # what the module logs once per (replay, view) it computes


@pytest.fixture
def redis_cache(settings):
    """Django's cache on a real Redis; yields a function giving (keys, bytes) of this test's keys."""
    prefix = f"flood-{uuid.uuid4().hex[:12]}"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": REDIS_URL, "KEY_PREFIX": prefix}}
    server = redis.Redis.from_url(REDIS_URL)

    def usage() -> tuple[int, int]:
        keys = list(server.scan_iter(match=f"{prefix}:*", count=1000))
        return len(keys), sum(server.memory_usage(k) or 0 for k in keys)

    usage.server = server
    yield usage
    for key in server.scan_iter(match=f"{prefix}:*", count=1000):
        server.delete(key)


@pytest.fixture
def played(house_bots):
    from bots.actions import house_version
    from matches import actions
    from play.tasks import play_match

    rotations = actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                             versions=[house_version("bura", "greedy"),
                                                       house_version("bura", "random")],
                                             overrides={"match": "deals:2"})
    for rotation in rotations:  # every match of the deal ends: its frames are no longer embargoed
        assert play_match(rotation.pk) == "finished"
    match = rotations[0]
    match.refresh_from_db()
    return match


def computations(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == frames_store.logger.name and COMPUTED in r.getMessage()]


def distinct_queries(steps: int, how_many: int) -> list[dict[str, str]]:
    pairs = [(start, count) for count in range(1, replay_frames.MAX_COUNT + 1) for start in range(steps + 1)]
    chosen = pairs[:: max(1, len(pairs) // how_many)][:how_many]
    assert len(set(chosen)) == how_many
    return [{"seat": ("all", "0")[i % 2], "start": str(s), "count": str(c)} for i, (s, c) in enumerate(chosen)]


def test_it_leaves_redis_bounded_and_computes_each_view_once_under_a_flood(client, played, alice, redis_cache,
                                                                           caplog):
    caplog.set_level(logging.INFO, logger=frames_store.logger.name)
    url = f"/matches/{played.pk}/frames/"
    steps = client.get(url, {"count": "1"}).json()["steps"]
    warm_keys, warm_bytes = redis_cache()
    client.force_login(alice)  # a reader who is not rate-limited: every request of the flood is served
    queries = distinct_queries(steps, 200)
    for query in queries:
        answer = client.get(url, query)
        assert answer.status_code == 200, answer.content[:200]
        body = answer.json()
        start, count = int(query["start"]), int(query["count"])
        assert [f["step"] for f in body["frames"]] == list(range(start, min(steps, start + count - 1) + 1))
    keys, used = redis_cache()
    print(f"redis keys of this test: {warm_keys} -> {keys}; bytes {warm_bytes} -> {used}; "
          f"server used_memory {redis_cache.server.info('memory')['used_memory']}")
    assert keys <= warm_keys + 1 and used <= warm_bytes + 4096, "the flood grew the cache"
    # one computation per view, whatever the number of distinct slices asked
    assert len(computations(caplog)) == 2, computations(caplog)
    stored = _stored_names(played.replay_sha256)
    version = f"v{frames_store.FORMAT}"
    assert sorted(n.rsplit("/", 2)[1] for n in stored if n.endswith("manifest.json")) == [f"{version}-0",
                                                                                          f"{version}-all"]


def _stored_names(sha256: str) -> list[str]:
    from django.core.files.storage import default_storage

    found, folders = [], [frames_store.folder(sha256)]
    while folders:
        folder = folders.pop()
        subfolders, files = default_storage.listdir(folder)
        found += [f"{folder}/{f}" for f in files]
        folders += [f"{folder}/{d}" for d in subfolders]
    return found


def test_a_slice_of_stored_frames_equals_the_engines_own_frames(client, played):
    replay = replay_views.cached_replay(played.replay_sha256)
    steps = len(replay["actions"])
    for seat, label in ((None, "all"), (1, "1")):
        for start, count in ((0, 7), (3, 100), (steps - 2, 50), (99, 2)):
            if start > steps:
                continue
            served = client.get(f"/matches/{played.pk}/frames/", {"seat": label, "start": start, "count": count})
            assert served.status_code == 200
            assert served.json() == replay_frames.frames(replay, seat, start, count)


def test_concurrent_first_views_compute_once(played, caplog):
    caplog.set_level(logging.INFO, logger=frames_store.logger.name)
    sha = played.replay_sha256
    results, errors = [], []

    def read():
        try:
            results.append(replay_views.stored_slice(sha, None, 5, 10))
        except Exception as err:  # a failure in a thread must fail the test, not vanish
            errors.append(err)

    threads = [threading.Thread(target=read) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len({bytes(r) for r in results}) == 1 and len(results) == 6
    assert len(computations(caplog)) == 1, computations(caplog)


class ClockAtAWindowsStart:
    """The limits' clock, held still at the start of a minute: a loop of requests that took long enough to
    cross a window's edge would see the sliding window forget part of what it counted, and pass."""

    @staticmethod
    def time() -> float:
        return 60.0 * 30_000_000


def test_anonymous_readers_are_rate_limited_per_address(client, played, alice, redis_cache, monkeypatch):
    monkeypatch.setattr(limits, "time", ClockAtAWindowsStart)
    url = f"/matches/{played.pk}/frames/"
    limit = replay_views.ANON_READS_PER_MINUTE
    for k in range(limit):
        assert client.get(url, {"start": str(k % 5), "count": "3"}).status_code == 200, k
    refused = client.get(url, {"start": "1", "count": "3"})
    assert refused.status_code == 429
    assert "log in" in refused.json()["error"]["message"] and int(refused["Retry-After"]) >= 1
    assert refused.json()["error"]["code"] == "rate_limited"
    # another address is another reader; a logged-in reader is not limited by address
    assert client.get(url, {"count": "3"}, REMOTE_ADDR="10.0.0.9").status_code == 200
    client.force_login(alice)
    assert client.get(url, {"count": "3"}).status_code == 200
    keys, _ = redis_cache()
    assert keys <= 4, "a counter or two (the current and previous minute) per address, nothing per request"


def test_an_oversized_count_is_refused_naming_count(client, played):
    answer = client.get(f"/matches/{played.pk}/frames/", {"count": str(replay_frames.MAX_COUNT + 1)})
    assert answer.status_code == 400
    assert "count" in answer.json()["error"]["message"]
    assert str(replay_frames.MAX_COUNT) in answer.json()["error"]["message"]


@pytest.fixture(scope="module")
def long_replay():
    from test_replay_frames import local_replay

    return local_replay("burraco-2p")


def stored(replay: dict) -> str:
    import gzip

    import orjson

    from bots import blobs

    return blobs.put("replays", gzip.compress(orjson.dumps(replay)))


def test_slices_across_stored_chunks_equal_the_engines_frames(long_replay, caplog):
    import orjson

    caplog.set_level(logging.INFO, logger=frames_store.logger.name)
    sha = stored(long_replay)
    steps = len(long_replay["actions"])
    assert steps > 2 * frames_store.CHUNK
    for seat in (None, 1):
        for start, count in ((0, 1), (95, 10), (frames_store.CHUNK - 1, replay_frames.MAX_COUNT),
                             (2 * frames_store.CHUNK, 1), (steps - 3, 100), (steps, 5)):
            body = orjson.loads(replay_views.stored_slice(sha, seat, start, count))
            assert body == replay_frames.frames(long_replay, seat, start, count), (seat, start, count)
    assert len(computations(caplog)) == 2
    with pytest.raises(replay_frames.FramesError, match="start"):
        replay_views.stored_slice(sha, None, steps + 1, 5)


def test_a_damaged_stored_chunk_is_computed_again(long_replay, caplog):
    import orjson
    from django.core.files.storage import default_storage

    caplog.set_level(logging.INFO, logger=frames_store.logger.name)
    sha = stored(long_replay)
    first = replay_views.stored_slice(sha, 0, 150, 20)
    damaged = [n for n in _stored_names(sha) if n.endswith("chunk-00001.jsonl.gz")]
    assert len(damaged) == 1
    with default_storage.open(damaged[0], "wb") as handle:
        handle.write(b"not what the manifest says")
    assert replay_views.stored_slice(sha, 0, 150, 20) == first
    assert orjson.loads(first) == replay_frames.frames(long_replay, 0, 150, 20)
    assert len(computations(caplog)) == 2
    assert any("does not match its manifest" in r.getMessage() for r in caplog.records)


@pytest.mark.django_db(transaction=True)
def test_a_request_waiting_for_anothers_computation_holds_no_database_connection(monkeypatch):
    """Under the web process's bounded pool, a wait of up to LOCK_SECONDS must not keep a connection."""
    from django.core.cache import cache
    from django.db import connection

    from bots.models import Bot

    sha, view = uuid.uuid4().hex, "all"
    lock = f"frames-lock:{frames_store.FORMAT}:{sha}:{view}"
    assert cache.add(lock, "another process", 60)
    Bot.objects.exists()  # the request has used the database: its connection is open
    held = []

    def store_and_look(seconds):
        held.append(connection.connection is not None)
        frames_store._compute_and_store(sha, view, lambda: (1, {"steps": 1}, [{"step": 0}]))

    monkeypatch.setattr(frames_store.time, "sleep", store_and_look)
    try:
        frames_store.stored_view(sha, view, lambda: (1, {"steps": 1}, [{"step": 0}]))
    finally:
        cache.delete(lock)
    assert held == [False]
