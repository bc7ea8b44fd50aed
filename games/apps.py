from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        # Connects the receivers that answer what accounts asks of games.
        from . import receivers  # noqa: F401
