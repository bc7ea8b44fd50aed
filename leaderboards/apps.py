from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"

    def ready(self) -> None:
        # Connects the receivers that keep the boards' read model in step with the games.
        from . import receivers  # noqa: F401
