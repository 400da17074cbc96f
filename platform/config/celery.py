"""The Celery app of the platform. Workers: ``celery -A config worker -Q maintenance,tournament,…``."""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("kozyr")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def pool_a_threaded_workers_connections(sender=None, **_) -> None:
    """A worker of threads (the ``open`` queue's: many matches waiting on people and remote bots at once) takes
    its PostgreSQL connections from a bounded pool, as a web process does (config/database.py): a thread holds
    one only while it queries, so its concurrency never turns into as many server connections."""
    pool = getattr(sender, "pool_cls", None)
    name = pool if isinstance(pool, str) else f"{getattr(pool, '__module__', '')}.{getattr(pool, '__name__', '')}"
    if "thread" not in name:
        return
    from django.conf import settings

    from config.database import pool_connections

    pool_connections(settings.DB_POOL_MAX, settings.DB_CONNECT_TIMEOUT)
    logging.getLogger(__name__).info("a worker of threads: at most %s database connections, pooled",
                                     settings.DB_POOL_MAX)
