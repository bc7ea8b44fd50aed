"""`makemessages` for both catalogues (templates and Python, page JavaScript) over the project's own
files only, so `make messages` and the test that guards the Persian catalogue see the same strings."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

# Everything that is not the site's own code: tools, tests, collected copies, packaging metadata and
# the catalogues themselves.
IGNORED = [
    ".venv",
    "node_modules",
    "staticfiles",
    "tests",
    "frontend/tests",
    "bench",
    "docs",
    "locale",
    "build",
    "*.egg-info",
]
DOMAINS = ["django", "djangojs"]


class Command(BaseCommand):
    help = "Update every language's .po files (locale/) from the templates, Python and page JavaScript."

    def handle(self, *args: Any, **options: Any) -> None:
        languages = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
        for domain in DOMAINS:
            call_command(
                "makemessages",
                locale=languages,
                domain=domain,
                ignore_patterns=IGNORED,
                no_obsolete=True,
                symlinks=True,  # the catalogue test runs over a tree of links to the project's folders
                verbosity=options["verbosity"],
            )
