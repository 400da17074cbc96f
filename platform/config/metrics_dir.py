"""Request metrics summed over every process of the web server.

gunicorn serves with several processes, and a scrape reaches one of them: each process's own counters
would make every scrape a different process's story. So a web process (config/wsgi.py, before Django
loads django-prometheus) puts prometheus_client in its multiprocess mode: every process writes its
counters to a file in a shared folder, and /metrics sums them (web/metrics.py). The folder is
``KOZYR_VAR_DIR/run/metrics`` unless ``PROMETHEUS_MULTIPROC_DIR`` names another.

Files of processes that are gone are removed when the web server starts: gunicorn imports the site once,
in its master, before it starts its workers (``--preload``, as deploy/supervisord.conf and the image's
entry point run it), so counters start from zero with each start of the server and only grow while it
runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV = "PROMETHEUS_MULTIPROC_DIR"


def share_between_processes(folder: Path) -> Path | None:
    """The folder now in use, or None when this process already counts on its own (prometheus_client was
    imported before multiprocess mode could be chosen: a test process, ``runserver``)."""
    if "prometheus_client" in sys.modules and not multiprocess():
        return None
    path = Path(os.environ.setdefault(ENV, str(folder)))
    path.mkdir(parents=True, exist_ok=True)
    for file in path.glob("*.db"):
        pid = file.stem.rpartition("_")[2]
        if pid.isdigit() and not alive(int(pid)):
            file.unlink(missing_ok=True)
    return path


def multiprocess() -> bool:
    """Is prometheus_client counting in shared files in this process?"""
    if "prometheus_client" not in sys.modules:
        return False
    from prometheus_client import values

    return bool(getattr(values.ValueClass, "_multiprocess", False))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
