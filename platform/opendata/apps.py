from django.apps import AppConfig


class OpenDataConfig(AppConfig):
    name = "opendata"
    verbose_name = "Open data"
