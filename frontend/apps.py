from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """The pages and the board: Django templates plus plain ES modules, no build step."""

    name = "frontend"
    verbose_name = "Front end"

    def ready(self) -> None:
        from django.core import checks

        from accordion_site.storage import check_static_files_collected

        # The pages name their static files through collectstatic's manifest (accordion_site/storage.py).
        checks.register(check_static_files_collected, checks.Tags.staticfiles, deploy=True)
