"""Disk I/O is limited per bot where the machine has a blkio (v1) or io (v2) cgroup controller."""

from __future__ import annotations

import json
import os

import pytest

from sandbox import Limits, guarantees
from tests.sandbox.conftest import read_until

BIG_SYSTEM_FILE = "/usr/bin/node"  # ~100 MB, readable inside every sandbox


def test_a_bot_reading_the_disk_directly_is_held_to_its_disk_limit(launch, backend):
    if backend != "bwrap":
        pytest.skip("the bwrap backend's cgroups (the container backend: --device-read-bps, see test_container*)")
    if "disk_io" not in guarantees.available_mechanisms():
        pytest.skip("no blkio or io cgroup controller here: disk I/O is not limited (said in the report)")
    assert os.path.getsize(BIG_SYSTEM_FILE) > 8 << 20
    proc = launch("disk_reader.py", BIG_SYSTEM_FILE, "6", limits=Limits(disk_mb_per_second=1, wall_seconds=60))
    result = json.loads(read_until(proc, lines=1, seconds=50))
    assert result["read_mb"] >= 6
    assert result["seconds"] >= 3, result  # 6 MiB at 1 MiB/s, less the first slice's burst
    report = proc.finish(grace_seconds=1)
    assert report.limits["disk_mb_per_second"]["mechanism"].startswith("cgroup")
