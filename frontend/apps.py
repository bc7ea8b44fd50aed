from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """The pages and the board: Django templates plus plain ES modules, no build step."""

    name = "frontend"
    verbose_name = "Front end"
