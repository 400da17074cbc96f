#!/usr/bin/env python3
"""The web container's health check: GET one path from gunicorn inside the container; exit 0 on a 200.

    healthcheck.py /healthz [PORT]

The request is the one a reverse proxy would send: a Host from ALLOWED_HOSTS (Django refuses others)
and ``X-Forwarded-Proto: https`` (production redirects plain HTTP to HTTPS). Redirects are not followed:
a 301 is a failure, with the reason printed. Standard library only (the image has no curl).
"""

from __future__ import annotations

import http.client
import os
import sys

TIMEOUT_SECONDS = 8


def host_header(allowed_hosts: str) -> str:
    """A name Django accepts: the first ALLOWED_HOSTS entry, made concrete ('.example.org', '*')."""
    for entry in allowed_hosts.split(","):
        entry = entry.strip()
        if entry == "*":
            return "localhost"
        if entry:
            return entry.lstrip(".")
    return "localhost"


def check(path: str, port: int, host: str) -> str | None:
    """None when the site answers 200, else the one-line reason."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_SECONDS)
    try:
        connection.request("GET", path, headers={"Host": host, "X-Forwarded-Proto": "https",
                                                 "Accept": "application/json"})
        response = connection.getresponse()
        response.read()
    except OSError as error:
        return f"GET {path} on port {port}: {error}"
    finally:
        connection.close()
    if response.status != 200:
        location = response.getheader("Location")
        return f"GET {path} (Host: {host}) answered {response.status}" + (f" -> {location}" if location else "")
    return None


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2 or not argv[0].startswith("/"):
        print("usage: healthcheck.py /PATH [PORT]", file=sys.stderr)
        return 2
    port = int(argv[1]) if len(argv) == 2 else 8000
    problem = check(argv[0], port, host_header(os.environ.get("ALLOWED_HOSTS", "")))
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
