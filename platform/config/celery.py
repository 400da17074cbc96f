"""The Celery app of the platform. Workers: ``celery -A config worker -Q tournament,validation,…``."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("kozyr")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _filesystem_broker_folders() -> None:
    """The embedded broker keeps its messages in var/broker; every process must agree on the folder."""
    from django.conf import settings

    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        return
    folder = settings.VAR_DIR / "broker"
    (folder / "processed").mkdir(parents=True, exist_ok=True)
    (folder / "control").mkdir(parents=True, exist_ok=True)
    options = dict(app.conf.broker_transport_options or {})
    options.update({"data_folder_in": str(folder), "data_folder_out": str(folder),
                    "processed_folder": str(folder / "processed"), "store_processed": False,
                    "control_folder": str(folder / "control"),
                    "polling_interval": 0.05})  # the filesystem is polled: keep a new match's wait short
    app.conf.broker_transport_options = options


_filesystem_broker_folders()
app.autodiscover_tasks()
