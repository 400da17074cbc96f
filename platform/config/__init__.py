"""Kozyr's Django project configuration. The Celery app loads with Django so tasks can be queued."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
