"""Real Celery worker processes for the end-to-end tests: this test process's Redis database as the broker, its
test database, the cut-able database proxy."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import psutil
import redis
from celery import Celery
from kombu import Connection

from config.celery_settings import QUEUE_ORDER
from tests.support import marks
from tests.support.resources import redis_url

REPO = Path(__file__).resolve().parents[2]
REDIS_URL = redis_url("broker")
QUEUES = ",".join(QUEUE_ORDER)  # the site's own order, highest priority first


def flush_broker() -> None:
    redis.Redis.from_url(REDIS_URL).flushdb()


_sender = Celery("kozyr-test-sender")
_sender.config_from_object("config.celery_settings", namespace="CELERY")  # the site's queues and exchanges


def publish_to_redis(match_id: int, queue: str, retry: bool = False) -> None:
    """matches.actions.publish, to the test's Redis (the test process's own broker setting is memory://)."""
    from config.celery_settings import MATCH_PRIORITY, RETRY_PRIORITY

    with Connection(REDIS_URL) as connection:
        _sender.send_task("matches.tasks.play_match", args=[match_id], queue=queue, connection=connection,
                          priority=RETRY_PRIORITY if retry else MATCH_PRIORITY)


class Worker:
    """A worker process: by default the site's every queue in one prefork process, as a one-process site runs;
    ``queues``, ``pool`` and ``concurrency`` as a production site splits them (deploy/supervisord.conf)."""

    def __init__(self, name: str, env: dict[str, str], log: Path, *, queues: str = QUEUES, pool: str = "prefork",
                 concurrency: int = 1):
        marks.require("workers", "a worker")
        self.name, self.log_path = name, log
        self.log = open(log, "wb")  # noqa: SIM115  (the worker writes to it until stop())
        command = [str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker", "--queues", queues,
                   "--concurrency", str(concurrency), "--pool", pool, "--hostname", f"{name}@%h", "--loglevel", "INFO",
                   "--without-heartbeat", "--without-mingle", "--without-gossip"]
        self.proc = subprocess.Popen(command, cwd=REPO / "platform", env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"worker {self.name} exited: {self.output()[-3000:]}")
            if "ready." in self.output():
                return
            time.sleep(0.2)
        raise AssertionError(f"worker {self.name} not ready: {self.output()[-3000:]}")

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and pool children), as an OOM killer or a power cut would."""
        with_children = self.descendants()
        os.killpg(self.proc.pid, signal.SIGKILL)
        for child in with_children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.log.close()


class DatabaseProxy:
    """A TCP proxy in front of PostgreSQL that the test can cut, to make the database vanish for a while."""

    def __init__(self, target=("127.0.0.1", 5432)):
        self.target = target
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.up = threading.Event()
        self.up.set()
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up.is_set():
                client.close()
                continue
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.up.clear()
        with self.lock:
            for s in self.sockets:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
            self.sockets.clear()

    def restore(self) -> None:
        self.up.set()

    def close(self) -> None:
        self.cut()
        self.listener.close()
