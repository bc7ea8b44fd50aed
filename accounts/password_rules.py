"""Django's password rules, where the site words one itself.

Django 5.2 words the minimum length's refusal anew ("at least %d characters") and its Persian catalog
has no translation of the new words, so a Persian player would read that one refusal in English.
"""

from __future__ import annotations

from django.contrib.auth import password_validation
from django.utils.translation import ngettext

from accordion_site.languages import local_number


class MinimumLengthValidator(password_validation.MinimumLengthValidator):
    """Django's rule, its refusal worded in the site's catalogs, the count in the reader's digits."""

    def get_error_message(self) -> str:
        return ngettext(
            "This password is too short: it needs at least %(least)s character.",
            "This password is too short: it needs at least %(least)s characters.",
            self.min_length,
        ) % {"least": local_number(self.min_length)}
