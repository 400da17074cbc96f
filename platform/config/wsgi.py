"""The web server's entry point (gunicorn config.wsgi). Before Django loads: request metrics shared by every
gunicorn process (config/metrics_dir.py). After: the web process's statement timeout (config/database.py)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.conf import settings

from config.metrics_dir import share_between_processes

share_between_processes(settings.VAR_DIR / "run" / "metrics")

from django.core.wsgi import get_wsgi_application  # noqa: E402

from config.database import limit_statements  # noqa: E402

application = get_wsgi_application()
limit_statements(settings.WEB_STATEMENT_TIMEOUT)
