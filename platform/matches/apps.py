from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        from matches import ladder, signals  # noqa: F401  (the ladder's finish hook, worker start-up checks)
