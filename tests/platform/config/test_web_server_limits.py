"""The web server's own limits, on the real server (deploy/supervisord.conf's command: gunicorn, the uvicorn
worker config.web_worker.WebWorker, two processes): whose word about the client's address counts, and how long a
request may take to send its headers (config/web_worker.py; docs/operations.md, "The web server")."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import orjson
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from config.web_worker import HEADERS_WITHIN_SECONDS
from tests.support.polling import wait_until
from tests.support.web_server import WebServer

pytestmark = pytest.mark.slow

PASSWORD = "a-long-password-1"


@pytest.fixture
def server(transactional_db, tmp_path):
    """The web server with no trusted proxy (the local default, said explicitly)."""
    web = WebServer(tmp_path, KOZYR_TRUSTED_PROXIES="0")
    yield web
    web.stop()


def make_user(username: str):
    """A user whose password the server (with the site's real hashers) can check, quickly."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    from accounts.models import User

    user = User.objects.create_user(username=username)
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "kozyr-test-salt", iterations=1000)
    user.save(update_fields=["password"])
    return user


def token_login(base: str, username: str, password: str, forwarded: str) -> int:
    request = urllib.request.Request(f"{base}/api/v1/auth/token/", method="POST", data=json.dumps(
        {"username": username, "password": password, "name": "cli"}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def test_a_rotated_x_forwarded_for_from_the_host_still_meets_the_log_in_limit(server):
    """The report: from 127.0.0.1, each guess with a new X-Forwarded-For, and uvicorn took each header for the
    client, so the per-address limit never counted two guesses alike. KOZYR_TRUSTED_PROXIES=0: none counts."""
    make_user("keeper")
    answers = [token_login(server.base, "keeper", f"guess-{i}", f"198.51.{i}.{i}") for i in range(12)]
    assert answers == [401] * 10 + [429] * 2, answers
    assert token_login(server.base, "keeper", PASSWORD, "192.0.2.200") == 429


def closed(connection: socket.socket) -> bool:
    """Whether the server has closed this connection (it never answers a request it never got)."""
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_a_request_whose_headers_never_finish_is_closed(server):
    """Slowloris: a request line and half a header then nothing, a connection that sends nothing at all, and one
    that trickles a header byte after byte, are all closed by the server; meanwhile it serves others."""
    address = ("127.0.0.1", server.port)
    partial, silent, trickling = (socket.create_connection(address) for _ in range(3))
    partial.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    trickling.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    stop = threading.Event()

    def trickle() -> None:
        deadline = time.monotonic() + 6 * HEADERS_WITHIN_SECONDS  # bounded, whatever happens
        while not stop.wait(0.5) and time.monotonic() < deadline:
            try:
                trickling.sendall(b"a")
            except OSError:
                return

    sender = threading.Thread(target=trickle, daemon=True)
    sender.start()
    try:
        wait_until(lambda: closed(partial) and closed(silent) and closed(trickling), 4 * HEADERS_WITHIN_SECONDS,
                   lambda: f"the server to close them (partial, silent, trickling: {closed(partial)}, "
                         f"{closed(silent)}, {closed(trickling)})")
        with urllib.request.urlopen(f"{server.base}/api/v1/games/", timeout=30) as answer:
            assert answer.status == 200
    finally:
        stop.set()
        sender.join(timeout=10)
        for connection in (partial, silent, trickling):
            connection.close()


def test_past_its_connections_a_process_answers_503(transactional_db, tmp_path):
    """gunicorn's --worker-connections is the uvicorn worker's limit (one process here, allowed 3 connections):
    with two connections open, a third one's request is turned away, and served again once they close."""
    server = WebServer(tmp_path, "--workers", "1", "--worker-connections", "3")
    held = []
    try:
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(2)]
        wait_until(lambda: status(f"{server.base}/api/v1/games/") == 503, 30, "a 503 past the connections allowed")
        for connection in held:
            connection.close()
        wait_until(lambda: status(f"{server.base}/api/v1/games/") == 200, 30, "a 200 once they closed")
    finally:
        for connection in held:
            connection.close()
        server.stop()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def test_a_websocket_outlives_the_header_deadline(server):
    """The deadline is for a request's headers: a remote bot's connection, upgraded, lives on past it."""
    from bots.actions import do_create_bot
    from bots.remote import do_make_remote_version

    bot = do_create_bot(make_user("far"), game="bura", name="far-away")
    _, token = do_make_remote_version(bot)
    frames = 0
    with connect(f"ws://127.0.0.1:{server.port}/api/remote/connect/?bot={bot.name}", open_timeout=60,
                 additional_headers={"Authorization": f"Bearer {token}"}) as socket_:
        until = time.monotonic() + 2 * HEADERS_WITHIN_SECONDS
        while time.monotonic() < until:
            with contextlib.suppress(TimeoutError):
                frame = orjson.loads(socket_.recv(timeout=1))
                frames += 1
                assert frame["type"] != "error", frame
                if frame["type"] == "ping":
                    socket_.send(orjson.dumps({"type": "pong", "id": frame["id"]}).decode())
        try:
            socket_.ping().wait(30)  # still open: the server answers
        except ConnectionClosed as gone:
            pytest.fail(f"the server closed the bot's connection: {gone}")
    assert frames > 0
