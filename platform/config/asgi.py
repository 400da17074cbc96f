"""The web server's entry point (gunicorn with uvicorn's worker: ``gunicorn config.asgi``).

The site speaks ASGI so that one port serves both the pages and the remote bots' websockets: a websocket to
``/api/remote/connect/`` is an `arena connect` connection (api/remote_socket.py), held by a coroutine rather
than a worker process; everything else is Django. As config/wsgi.py: request metrics shared by every process
(config/metrics_dir.py) before Django loads, the web process's statement timeout (config/database.py) after.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.conf import settings

from config.metrics_dir import share_between_processes

share_between_processes(settings.VAR_DIR / "run" / "metrics")

from django.core.asgi import get_asgi_application  # noqa: E402

from config.database import limit_statements  # noqa: E402

django_application = get_asgi_application()
limit_statements(settings.WEB_STATEMENT_TIMEOUT)

from api import remote_socket  # noqa: E402  (the apps are loaded now)


async def application(scope, receive, send):
    if scope["type"] == "websocket":
        if scope["path"] == remote_socket.PATH:
            return await remote_socket.serve(scope, receive, send)
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
