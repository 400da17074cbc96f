from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from matches.actions import FAILURE_HOOKS, FINISH_HOOKS
        from tournaments import running, versiontests

        FINISH_HOOKS.append(running.record_tournament_match)
        FAILURE_HOOKS.append(running.replace_failed_match)
        FINISH_HOOKS.append(versiontests.record_test_match)
        FAILURE_HOOKS.append(versiontests.replace_failed_match)
        # Last: a tournament row comes after every other row in the lock order (docs/matches.md).
        FINISH_HOOKS.append(running.make_room)
        FAILURE_HOOKS.append(running.make_room)
