"""Static files in production: WhiteNoise's compressed copies under hashed names, with the imports
inside the page modules rewritten to those hashed names too. Without that, only the module a page
names was hashed; the modules it imports were fetched by their plain names, cached for a minute, and
after an upgrade a browser could run new and old modules together.

Pages find those hashed names in the manifest `collectstatic` writes (staticfiles.json in STATIC_ROOT):
a file missing from it makes every page that names the file answer 500. So a production process
refuses to start, and `manage.py check --deploy` fails, until `collectstatic` has run for this code."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.contrib.staticfiles.apps import StaticFilesConfig
from django.contrib.staticfiles.finders import get_finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from whitenoise.storage import CompressedManifestStaticFilesStorage

FIX = "Run `python manage.py collectstatic --noinput` (after every upgrade too)."


class ModuleStaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True


def _source_names() -> set[str]:
    """The names `collectstatic` gives the static files it finds, as the manifest keys them."""
    ignore: list[str] = StaticFilesConfig.ignore_patterns
    names = set()
    for finder in get_finders():
        for path, source in finder.list(ignore):
            prefix = getattr(source, "prefix", None)
            names.add((os.path.join(prefix, path) if prefix else path).replace(os.sep, "/"))
    return names


def uncollected_static_files() -> str | None:
    """Why the pages could not name their static files, or None: always None where static files are
    served as they are (DEVELOPMENT), without a manifest."""
    storage = staticfiles_storage
    if not isinstance(storage, ManifestFilesMixin):
        return None
    manifest = os.path.join(settings.STATIC_ROOT, storage.manifest_name)
    if storage.read_manifest() is None:
        return f"The static files are not collected: {manifest} is missing, so every page would answer 500."
    collected, _ = storage.load_manifest()
    missing = sorted(_source_names() - collected.keys())
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        return (
            f"The collected static files are out of date: {manifest} lacks {missing[0]}{more}, so the pages "
            "that use them would answer 500."
        )
    return None


def require_collected_static_files() -> None:
    """Refuse to serve (ImproperlyConfigured, naming the fix) while the pages could not name their
    static files."""
    problem = uncollected_static_files()
    if problem:
        raise ImproperlyConfigured(f"{problem} {FIX}")


def check_static_files_collected(
    *, app_configs: Sequence[AppConfig] | None, databases: Sequence[str] | None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """`manage.py check --deploy`: the same question as a production process asks when it starts."""
    problem = uncollected_static_files()
    return [checks.Error(problem, hint=FIX, id="accordion.E001")] if problem else []
