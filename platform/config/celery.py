"""The Celery app of the platform. Workers: ``celery -A config worker -Q maintenance,tournament,…``."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("kozyr")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
