"""Disk I/O is limited per container through the engine's --device-read/write-bps/iops (test_disk_io.py
checks bwrap's own cgroup rules)."""

from __future__ import annotations

import json

import pytest

from sandbox import Limits
from sandbox.backends import docker as docker_backend
from tests.sandbox.conftest import finish, read_until

pytestmark = pytest.mark.sandbox_backends("docker", reason="test_disk_io.py checks bwrap's disk limit")


def test_a_container_reading_the_disk_directly_is_held_to_its_disk_limit(launch):
    if not docker_backend.disks():
        pytest.skip("the worker sees no disk behind its filesystems: disk I/O is not limited (said in the report)")
    # /usr/bin/node is ~100 MB in the image; O_DIRECT reads go to the disk whatever the page cache holds.
    proc = launch("disk_reader.py", "/usr/bin/node", "6", limits=Limits(disk_mb_per_second=1, wall_seconds=60))
    result = json.loads(read_until(proc, lines=1, seconds=50))
    assert result["read_mb"] >= 6
    assert result["seconds"] >= 3, result  # 6 MiB at 1 MiB/s, less the first slice's burst
    run = finish(proc, grace=1)
    assert run.report.limits["disk_mb_per_second"]["mechanism"].endswith("--device-read/write-bps/iops (cgroup)")


def test_the_limit_is_named_to_the_engine_for_every_disk(tmp_path):
    argv = docker_backend.run_command(["python3", "bot.py"], tmp_path, Limits(disk_mb_per_second=3,
                                      disk_operations_per_second=200), name="x", deadline=1, env={},
                                      image_name="img", disks=("/dev/vda", "/dev/vdb"))  # fmt: skip
    text = " ".join(argv)
    for disk in ("/dev/vda", "/dev/vdb"):
        for flag in (f"--device-read-bps {disk}:3mb", f"--device-write-bps {disk}:3mb",
                     f"--device-read-iops {disk}:200", f"--device-write-iops {disk}:200"):  # fmt: skip
            assert flag in text
