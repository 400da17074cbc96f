"""The resources one test process owns, so that pytest-xdist's processes never share one.

- PostgreSQL: pytest-django names each process's test database itself (``test_kozyr_gw1``); processes started
  by a test get that name through ``database_url()``.
- Redis: the suite's own server (tests/start-services.sh starts it on ``KOZYR_TEST_REDIS_PORT``, 6390 by default,
  with enough databases), where each test process has a block of databases, one per purpose. Tests flush
  their own databases freely: no other process, and no other Redis user on the machine, is in them.
- Ports are asked of the kernel (``free_port``); folders come from pytest's ``tmp_path``, which xdist already
  keeps apart.
- Sandbox uids: a process given a sandbox state folder of its own keeps its uid leases there, where no other
  process sees them, so it gets a block of uids no other process leases (``private_sandbox_env``). Otherwise
  two of them could run bots as one uid: one bot's processes count against the other's RLIMIT_NPROC, and a
  restarted worker's sweep of its uid kills the other's bot.
"""

from __future__ import annotations

import itertools
import os
import re
import socket
from pathlib import Path

# One database each: the broker of real workers, the web server's broker and cache, the live relay, the
# soak's broker and relay, and a spare for a test that needs a second broker.
PURPOSES = ("broker", "web", "live", "soak", "soak-relay", "spare")
DATABASES = 256  # tests/start-services.sh starts the server with this many: room for 41 xdist processes and one more
PORT = int(os.environ.get("KOZYR_TEST_REDIS_PORT", "6390"))


def process_index() -> int:
    """0 without xdist, else 1 + the number of this xdist worker (gw0 is 1, gw1 is 2, …): a process that runs
    without xdist (a single test run by hand, a bench, anything started without PYTEST_XDIST_WORKER) never names
    the resources of one that runs under it."""
    found = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    return 1 + int(found.group(1)) if found else 0


def redis_url(purpose: str) -> str:
    """This test process's Redis database for ``purpose`` (one of PURPOSES) on the suite's own server."""
    number = process_index() * len(PURPOSES) + PURPOSES.index(purpose)
    if number >= DATABASES:
        raise RuntimeError(f"test process {process_index()} has no Redis database left: the suite's server has "
                           f"{DATABASES} (run fewer xdist processes)")
    return f"redis://127.0.0.1:{PORT}/{number}"


def free_port() -> int:
    """A port nobody listens on now (the kernel's choice, so two test processes do not pick the same)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url() -> str:
    """This test process's PostgreSQL test database as a URL, for the processes a test starts."""
    from django.db import connection

    database = connection.settings_dict
    return f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


# Every process of the suite sharing the default sandbox state folder leases from the default range
# (60000-60999, sandbox/uids.py); private state folders get blocks above it, apart per test process.
PRIVATE_UIDS_BASE = 62000
PRIVATE_UIDS_PER_FOLDER = 100
PRIVATE_FOLDERS_PER_PROCESS = 10
_private_folders = itertools.count()


def private_sandbox_env(folder: Path) -> dict[str, str]:
    """The environment of a process whose sandbox keeps its state in ``folder``: that folder, and a block of
    uids of its own (the next of this test process's blocks; ten of them, taken in turn)."""
    slot = next(_private_folders) % PRIVATE_FOLDERS_PER_PROCESS
    low = PRIVATE_UIDS_BASE + (process_index() * PRIVATE_FOLDERS_PER_PROCESS + slot) * PRIVATE_UIDS_PER_FOLDER
    return {"KOZYR_SANDBOX_STATE_DIR": str(folder), "KOZYR_SANDBOX_UIDS": f"{low}-{low + PRIVATE_UIDS_PER_FOLDER - 1}"}
