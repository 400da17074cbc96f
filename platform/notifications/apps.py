from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # The events that come from below without a match's end: a bot suspended (bots' signal) and a
        # tournament started or finished (its row saved with a new status).
        from notifications import receivers  # noqa: F401
