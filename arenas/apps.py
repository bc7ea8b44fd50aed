from django.apps import AppConfig


class ArenasConfig(AppConfig):
    name = "arenas"
    verbose_name = "Arenas"

    def ready(self) -> None:
        # An arena game's finish counts in its arena: the receiver recounts in the finish's transaction.
        import arenas.receivers  # noqa: F401
