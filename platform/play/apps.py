from django.apps import AppConfig


class PlayConfig(AppConfig):
    """The worker's runtime: claiming a match, keeping its lease, playing it in the sandbox, the start-up
    checks of the sandbox and the reaping of orphans. The only app that imports ``sandbox``."""

    name = "play"
    verbose_name = "Play"

    def ready(self) -> None:
        from play import startup  # noqa: F401  (worker start-up checks)
