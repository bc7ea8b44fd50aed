"""{{ count|local_number }}: a whole number in the page's digits (Persian digits on a Persian page), as the
page scripts' localDigits writes it, for the numbers a page shows before its script runs."""

from __future__ import annotations

from django import template

from accordion_site import languages

register = template.Library()


@register.filter
def local_number(value: int) -> str:
    return languages.local_number(value)
