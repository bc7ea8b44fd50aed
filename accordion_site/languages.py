"""Languages on the server: the language a socket speaks (its refusals are worded for people, like a
page's, so a socket chooses its language once, from its handshake, the way LocaleMiddleware chooses a
page's), and Persian digits for the numbers the server writes into text."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import translation

from .handshake import handshake_header


def socket_language(scope: dict[str, Any]) -> str:
    """The language of the handshake's `django_language` cookie, else of its Accept-Language, else the
    site's default: Django's own choice for a request carrying the same cookie and header."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    accept_language = handshake_header(scope, b"accept-language")
    if accept_language is not None:
        request.META["HTTP_ACCEPT_LANGUAGE"] = accept_language
    return translation.get_language_from_request(request)


_PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def persian_digits(text: str) -> str:
    """`text` with its digits 0-9 written as Persian digits."""
    return text.translate(_PERSIAN_DIGITS)


# A figure's separators as Persian writes them: the thousands separator, the decimal point, per cent.
_PERSIAN_SEPARATORS = str.maketrans({",": "\u066c", ".": "\u066b", "%": "\u066a"})


def local_figure(text: str) -> str:
    """A figure written in English ("10,000", "99.95%") as the active language writes it: in Persian its
    digits and separators are Persian (U+066C between thousands, U+066B for the point, U+066A for per cent)."""
    return persian_digits(text).translate(_PERSIAN_SEPARATORS) if translation.get_language() == "fa" else text


def local_number(value: int) -> str:
    """`value` as the active language writes numbers in text: Persian digits in Persian."""
    text = str(value)
    return persian_digits(text) if translation.get_language() == "fa" else text
