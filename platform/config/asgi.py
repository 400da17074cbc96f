"""The web server's entry point (gunicorn with uvicorn's worker: ``gunicorn config.asgi``).

The site speaks ASGI so that one port serves both the pages and the remote bots' websockets: a websocket to
``/api/remote/connect/`` is an `arena connect` connection (matches/relay_socket.py), held by a coroutine rather
than a worker process; everything else is Django. As config/wsgi.py: request metrics shared by every process
(config/metrics_dir.py) before Django loads; after, before any query, the web process's bounded pool of
database connections and its statement timeout (config/database.py).
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.conf import settings

from config.metrics_dir import share_between_processes

share_between_processes(settings.VAR_DIR / "run" / "metrics")

from django.core.asgi import get_asgi_application  # noqa: E402

from config.database import limit_statements, pool_connections  # noqa: E402

django_application = get_asgi_application()
pool_connections(settings.DB_POOL_MAX, settings.DB_CONNECT_TIMEOUT)
limit_statements(settings.WEB_STATEMENT_TIMEOUT)

from matches import relay_socket  # noqa: E402  (the apps are loaded now)


async def application(scope, receive, send):
    if scope["type"] == "websocket":
        if scope["path"] == relay_socket.PATH:
            return await relay_socket.serve(scope, receive, send)
        await receive()  # the handshake; refused below with a 403
        return await send({"type": "websocket.close", "code": 1008})
    if scope["type"] == "lifespan":  # nothing to start or stop: say so, as the server asks
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                return await send({"type": "lifespan.shutdown.complete"})
    return await django_application(scope, receive, send)
