"""A local webhook receiver for the notification tests: it answers as told and keeps what it received."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Endpoint:
    """A local webhook receiver: answers each request with the next of ``answers`` (an HTTP status, or "hang" to
    say nothing for ``hang`` seconds), and keeps what it received."""

    def __init__(self, answers: list, hang: float = 30):
        self.answers, self.hang, self.received = list(answers), hang, []
        self.stop_hanging = threading.Event()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                endpoint.received.append({"at": time.monotonic(), "headers": dict(self.headers), "body": body})
                answer = endpoint.answers.pop(0) if endpoint.answers else 204
                if answer == "hang":
                    endpoint.stop_hanging.wait(endpoint.hang)
                    return
                self.send_response(answer)
                if 300 <= answer < 400:  # a redirect to a page of the same server, which must not be followed
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.stop_hanging.set()
        self.server.shutdown()
