from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from bots.signals import current_version_changed
        from ratings.hooks import follow_current_version

        current_version_changed.connect(follow_current_version, dispatch_uid="ratings.follow_current_version")
