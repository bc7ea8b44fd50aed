from django.apps import AppConfig


class RacesConfig(AppConfig):
    name = "games.races"
    label = "races"
    verbose_name = "Races"

    def ready(self) -> None:
        # A race game's finish is part of its race: the receiver stores it in the same transaction.
        import games.races.receivers  # noqa: F401
