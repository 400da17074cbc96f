"""Ladder fills run side by side (two beat processes, an operator's mistake) hold their depth exactly: never more
than LADDER_QUEUE_DEPTH duplicate sets waiting per preset, and no fewer once the fills are done. Real threads on
real PostgreSQL, each with its own connection and transactions; and real processes on the embedded SQLite."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest
from django.db import connection, connections, transaction

from arena.games import all_presets
from ladder.matchmaking import FILL_LOCK_SPACE, _fill_lock, fill_ladder, waiting_sets
from matches.models import Match
from tests.support.polling import wait_until

REPO = Path(__file__).resolve().parents[3]
DEPTH = 3
FILLERS = 4


def fill_together(rounds_seed: int) -> list[int]:
    """fill_ladder in FILLERS threads started at the same instant; what each one queued."""
    start = threading.Barrier(FILLERS)
    created, errors = [0] * FILLERS, []

    def fill(k: int) -> None:
        try:
            start.wait()
            created[k] = fill_ladder(random.Random(rounds_seed * 100 + k))
        except BaseException as err:  # re-raised in the test's thread
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=fill, args=(k,)) for k in range(FILLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return created


@pytest.mark.django_db(transaction=True)
def test_concurrent_fills_hold_the_depth_in_duplicate_sets_on_every_preset(house_bots, settings):
    settings.LADDER_QUEUE_DEPTH = DEPTH
    waiting = Match.objects.filter(kind="ladder", status__in=["queued", "running"])
    for round_number in range(3):
        before = waiting.count()
        created = fill_together(round_number)
        for preset in all_presets():
            assert waiting_sets(preset) == DEPTH, (round_number, preset, waiting_sets(preset))
        assert sum(created) == waiting.count() - before  # what the fillers say they queued is what waits
        assert fill_ladder(random.Random(7)) == 0  # full
        # Workers take some: one set per preset finished, another half played (one rotation running).
        for preset in all_presets():
            sets = list(dict.fromkeys(waiting.filter(preset=preset).order_by("pk")
                                      .values_list("duplicate_set", flat=True)))
            Match.objects.filter(duplicate_set=sets[0]).update(status="finished")
            first = Match.objects.filter(duplicate_set=sets[1]).order_by("rotation").first()
            Match.objects.filter(pk=first.pk).update(status="running")
        assert all(waiting_sets(p) == DEPTH - 1 for p in all_presets())


@pytest.mark.django_db(transaction=True)
def test_a_fill_skips_a_preset_another_transaction_is_filling(house_bots, settings):
    """The lock is per preset and taken without waiting: a filler that finds it held moves on."""
    settings.LADDER_QUEUE_DEPTH = 1
    other = connections.create_connection("default")  # another process's transaction, filling bura
    try:
        other.set_autocommit(False)
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [FILL_LOCK_SPACE, zlib.crc32(b"bura") - 2**31])
        fill_ladder(random.Random(1))
        assert waiting_sets("bura") == 0 and waiting_sets("kozel") == 1
        with transaction.atomic():
            assert not _fill_lock("bura") and _fill_lock("kozel")
        other.rollback()
        fill_ladder(random.Random(2))
        assert waiting_sets("bura") == 1
    finally:
        other.close()


FILL_ON_SQLITE = """
import django, os, random, sys, time
django.setup()
from ladder.matchmaking import fill_ladder
open(sys.argv[2] + "." + sys.argv[1], "w").close()  # ready
while not os.path.exists(sys.argv[2]):  # every filler starts at once
    time.sleep(0.005)
print(fill_ladder(random.Random(int(sys.argv[1]))))
"""
COUNT_ON_SQLITE = """
import django, json
django.setup()
from arena.games import all_presets
from ladder.matchmaking import waiting_sets
print(json.dumps({preset: waiting_sets(preset) for preset in all_presets()}))
"""


@pytest.mark.slow
def test_concurrent_fills_hold_the_depth_on_the_embedded_sqlite(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "KOZYR_VAR_DIR": str(tmp_path / "var"),
           "DATABASE_URL": f"sqlite:///{tmp_path / 'kozyr.sqlite3'}", "CELERY_BROKER_URL": "memory://",
           "KOZYR_LADDER_QUEUE_DEPTH": str(DEPTH)}
    manage = [sys.executable, str(REPO / "manage.py")]
    for command in (["migrate", "--verbosity", "0"], ["house_bots"]):
        done = subprocess.run(manage + command, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    go = tmp_path / "go"
    fillers = [subprocess.Popen([sys.executable, "-c", FILL_ON_SQLITE, str(k), str(go)], cwd=REPO / "platform",
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for k in range(FILLERS)]
    wait_until(lambda: all(Path(f"{go}.{k}").exists() for k in range(FILLERS)), 120,
               "every filler to start Django and wait for the go")
    go.touch()
    outputs = [filler.communicate(timeout=300) for filler in fillers]
    assert all(filler.returncode == 0 for filler in fillers), [err for _, err in outputs]
    done = subprocess.run([sys.executable, "-c", COUNT_ON_SQLITE], cwd=REPO / "platform", env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == dict.fromkeys(all_presets(), DEPTH)
    assert sum(int(out) for out, _ in outputs) > 0
