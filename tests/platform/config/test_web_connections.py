"""A web process holds at most KOZYR_DB_POOL_MAX PostgreSQL connections, whatever the traffic
(config/database.py; docs/operations.md, "Database connections").

Under ASGI every request runs in a thread of its own; with persistent connections each such thread kept one,
so bursts of concurrent requests grew the idle connections without bound until the server refused everyone
("too many clients already"). The real web server (deploy/supervisord.conf's command: gunicorn, the uvicorn
worker, two processes) takes bursts of concurrent anonymous GETs over pages, the API and the remote bots'
websocket, while pg_stat_activity is watched.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.platform.config.test_settings import manage
from tests.support.web_server import REPO, WebServer, database_url, free_port

pytestmark = pytest.mark.slow

POOL_MAX = 3
PROCESSES = 2  # supervisord.conf's --workers
BURSTS, AT_ONCE = 5, 16
# Not /healthz: its database check opens a connection of its own, outside the pool (the test below).
PAGES = ["/", "/bots/", "/tournaments/", "/games/bura/", "/docs/", "/live/playing/", "/api/v1/games/",
         "/api/v1/presets/", "/api/v1/bots/", "/api/v1/matches/", "/api/v1/tournaments/", "/api/v1/leaderboards/bura/",
         "/metrics"]


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def remote_refusal(port: int) -> int:
    """A remote bot's connection with an unknown token: the socket's end looks the token up (relay_socket.db)."""
    with connect(f"ws://127.0.0.1:{port}/api/remote/connect/?bot=nobody", open_timeout=60,
                 additional_headers={"Authorization": "Bearer kzr_unknown"}) as socket:
        socket.recv(timeout=60)  # the error frame
        with contextlib.suppress(ConnectionClosed):  # then the close, whose code is what we came for
            socket.recv(timeout=60)
        return socket.protocol.close_code


class ConnectionWatch:
    """The most connections the site's database had at once, polled from another database's session."""

    def __init__(self, database: str, own_pid: int):
        self.database, self.own_pid = database, own_pid
        self.seen: list[int] = []
        self.stop = threading.Event()
        self.monitor = psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def count(self) -> int:
        return self.monitor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> %s",
                                    [self.database, self.own_pid]).fetchone()[0]

    def _watch(self) -> None:
        while not self.stop.wait(0.02):
            self.seen.append(self.count())

    def close(self) -> int:
        self.stop.set()
        self.thread.join(timeout=10)
        self.seen.append(self.count())
        self.monitor.close()
        return max(self.seen)


def test_bursts_of_requests_never_take_more_connections_than_the_pools_hold(db, tmp_path):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own_pid = cursor.fetchone()[0]
    server = WebServer(tmp_path, KOZYR_DB_POOL_MAX=str(POOL_MAX))
    watch = ConnectionWatch(connection.settings_dict["NAME"], own_pid)
    try:
        answers, closes = [], []
        with concurrent.futures.ThreadPoolExecutor(AT_ONCE + 2) as pool:
            for burst in range(BURSTS):
                urls = [f"{server.base}{PAGES[(burst * AT_ONCE + i) % len(PAGES)]}" for i in range(AT_ONCE)]
                sockets = [pool.submit(remote_refusal, server.port) for _ in range(2)]
                answers += pool.map(status, urls)
                closes += [socket.result() for socket in sockets]
            answers += map(status, [f"{server.base}{page}" for page in PAGES * 2])  # one after another too
    finally:
        most = watch.close()
        server.stop()
    assert all(code < 500 for code in answers), [code for code in answers if code >= 500]
    assert closes == [4001] * len(closes), closes  # "unknown token": the socket's database calls answered
    assert 0 < most <= POOL_MAX * PROCESSES, f"{most} connections at once; the pools hold {POOL_MAX * PROCESSES}"


def test_healthz_answers_ok_while_the_pool_is_busy(db, tmp_path):
    """/healthz checks the database on a connection of its own: a pool busy with a burst is not a database
    that is down (its check has a 1 s deadline; a borrowed connection could take longer to come)."""
    server = WebServer(tmp_path, KOZYR_DB_POOL_MAX="1")
    try:
        with concurrent.futures.ThreadPoolExecutor(AT_ONCE * 2) as pool:
            health = [pool.submit(status, f"{server.base}/healthz") for _ in range(AT_ONCE)]
            pages = list(pool.map(status, [f"{server.base}{PAGES[i % len(PAGES)]}" for i in range(AT_ONCE)]))
            checks = [answer.result() for answer in health]
    finally:
        server.stop()
    assert checks == [200] * len(checks), checks
    assert all(code < 500 for code in pages), pages


class DatabaseLink:
    """The web server's road to PostgreSQL through bench/tcp_proxy.py: cut (every open connection dies with the
    process, as on a network partition or a restarted server) and laid again on the same port."""

    def __init__(self, port: int):
        self.port, self.proc = port, None
        self.lay()

    def lay(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(REPO / "bench" / "tcp_proxy.py"), "--listen",
                                      f"127.0.0.1:{self.port}", "--to", "127.0.0.1:5432"], stdout=subprocess.PIPE)
        assert b"listening" in self.proc.stdout.readline()

    def cut(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def test_the_site_answers_at_once_when_its_database_is_back(db, tmp_path):
    """The web tier's database went away and came back: the pool checks a connection before it hands it to a
    request, so no request is served a dead one and answers 500 once the database is there again."""
    from django.db import connection

    link = DatabaseLink(free_port())
    server = WebServer(tmp_path, KOZYR_DB_POOL_MAX="2",
                       DATABASE_URL=f"postgres://postgres@127.0.0.1:{link.port}/{connection.settings_dict['NAME']}")
    try:
        warm = [status(f"{server.base}{page}") for page in PAGES[:6] * 2]
        link.cut()
        # Away long enough for the pool's reconnection backoff to grow past a request's wait (5 s here); the
        # requests meanwhile fail, as they must.
        away_until = time.monotonic() + 20
        while time.monotonic() < away_until:
            status(f"{server.base}/api/v1/bots/")
        link.lay()
        after = [status(f"{server.base}{page}") for page in PAGES[:6] * 2]
    finally:
        server.stop()
        link.cut()
    assert all(code < 500 for code in warm), warm
    assert all(code < 500 for code in after), after


SETTINGS_AND_TIMEOUTS = """
import {module}
from django.db import connection
database = connection.settings_dict
timeouts = []
for _ in range(2):  # a pooled connection is handed back between requests and keeps its statement timeout
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        timeouts.append(cursor.fetchone()[0])
    connection.close()
print(database["OPTIONS"].get("pool", {{}}).get("max_size"), database["CONN_MAX_AGE"], *timeouts)
"""


@pytest.mark.parametrize(("module", "expected"), [("config.asgi", "5 0 20s 20s"), ("config.celery", "None 60 0 0")])
def test_only_the_web_process_takes_its_connections_from_a_pool(db, tmp_path, module, expected):
    """Workers and beat keep one persistent connection per process (a prefork child runs one task at a time)
    and no statement timeout; the web process borrows from its pool, and every borrowed connection has one."""
    done = manage("shell", "--verbosity", "0", "-c", SETTINGS_AND_TIMEOUTS.format(module=module), tmp_path=tmp_path,
                  CELERY_BROKER_URL="memory://", DATABASE_URL=database_url(),
                  KOZYR_DB_POOL_MAX="5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == expected
