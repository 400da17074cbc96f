"""The ASGI entry point: as config/wsgi.py, with the web process's statement timeout (config/database.py)."""

import os

from django.core.asgi import get_asgi_application

from config.database import limit_statements

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()

from django.conf import settings  # noqa: E402

limit_statements(settings.WEB_STATEMENT_TIMEOUT)
