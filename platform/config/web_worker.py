"""gunicorn's worker class for the site: uvicorn's, with the limits a remote bot connection lives under.

A websocket message is at most one protocol line with its envelope (api/remote_socket.py: anything longer is
refused there; this stops uvicorn buffering 16 MiB first), and the server pings each socket so a connection
whose other end vanished without a word is noticed and its seats' grace period starts.
"""

from uvicorn_worker import UvicornWorker


class WebWorker(UvicornWorker):
    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "ws_max_size": 512 * 1024, "ws_ping_interval": 10.0,
                     "ws_ping_timeout": 20.0, "lifespan": "on", "server_header": False}
