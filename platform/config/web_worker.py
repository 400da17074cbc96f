"""gunicorn's worker class for the site: uvicorn's, with the limits a public server needs.

- **Who the client is** is the site's business alone: uvicorn's proxy headers are off, so the client address
  Django sees is the connecting one, and ``KOZYR_TRUSTED_PROXIES`` (accounts/limits.py) is the one setting that
  says how much of ``X-Forwarded-For`` to believe. uvicorn's own rule trusted the header from 127.0.0.1 whatever
  that setting said, so a client on the host rotated it past the log-in limits.
- **Headers within HEADERS_WITHIN_SECONDS.** uvicorn times out only an idle kept-alive connection, and
  forgets that on the first byte: a client that trickles a request's headers, or sends nothing at all, held its
  connection for ever (slowloris). A connection whose request line and headers are not all in within this
  many seconds of its opening, or of the previous response's end, is closed.
- **At most ``--worker-connections`` connections per process** (gunicorn's setting, 1000 by default): past it
  uvicorn answers 503 to new requests. Idle kept-alive connections close after ``--keep-alive`` seconds
  (gunicorn's, 2 by default), and a request line and headers longer than h11's 16 KiB answer 400.
- **Websockets.** A message is at most one protocol line with its envelope (matches/relay_socket.py: anything
  longer is refused there; this stops uvicorn buffering 16 MiB first), and the server pings each socket so a
  connection whose other end vanished without a word is noticed and its seats' grace period starts.

docs/operations.md, "The web server", states them; tests/platform/config/test_web_server_limits.py holds them.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn_worker import UvicornWorker

HEADERS_WITHIN_SECONDS = 10


class HeadersDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose next request's headers are late."""

    deadline: asyncio.TimerHandle | None = None
    awaited_after: object = None  # the request cycle that was current when the wait began

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # A pipelined request already read has started a new cycle: its headers are in.
        if not self.transport.is_closing() and self.cycle is not None and self.cycle.response_complete:
            self._await_headers()

    def handle_websocket_upgrade(self, event) -> None:
        self._stop_waiting()  # the socket's protocol owns the connection from here
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._stop_waiting()
        self.awaited_after = self.cycle
        self.deadline = self.loop.call_later(HEADERS_WITHIN_SECONDS, self._headers_overdue)

    def _stop_waiting(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _headers_overdue(self) -> None:
        self.deadline = None
        if self.cycle is self.awaited_after and not self.transport.is_closing():
            self.transport.close()  # no request began since the wait did: nothing to answer


class WebWorker(UvicornWorker):
    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "http": HeadersDeadline, "proxy_headers": False,
                     "ws_max_size": 512 * 1024, "ws_ping_interval": 10.0, "ws_ping_timeout": 20.0, "lifespan": "on",
                     "server_header": False}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.config.limit_concurrency = self.cfg.worker_connections
