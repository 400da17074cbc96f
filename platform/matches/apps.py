from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        from matches import signals  # noqa: F401  (worker start-up checks)
