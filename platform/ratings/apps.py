from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from matches import ladder
        from matches.actions import FINISH_HOOKS
        from ratings import actions

        FINISH_HOOKS.append(actions.record_ranked_match)
        ladder.live_ratings = actions.live_elo
