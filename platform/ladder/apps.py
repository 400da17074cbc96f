from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Ladder"

    def ready(self) -> None:
        from bots.signals import current_version_changed, ladder_standing_changed
        from ladder.hooks import withdraw_on_commit

        current_version_changed.connect(withdraw_on_commit, dispatch_uid="ladder.withdraw_current_version")
        ladder_standing_changed.connect(withdraw_on_commit, dispatch_uid="ladder.withdraw_standing")
