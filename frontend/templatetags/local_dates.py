"""{{ day|local_date }}: a calendar date in the page's language. In Persian the Solar Hijri date comes
first with the Gregorian date beside it, in Persian digits («۹ آذر ۱۴۰۵ (۳۰ نوامبر ۲۰۲۶)»); in English
the Gregorian date («30 November 2026»). {{ day|local_date:"short" }} abbreviates the Gregorian month
(«30 Nov 2026»), as the page scripts' formatDate does, for the chips."""

from __future__ import annotations

import datetime

from django import template
from django.utils import translation
from django.utils.dateformat import format as date_format

from accordion_site.languages import persian_digits
from frontend.jalali import jalali_text

register = template.Library()


@register.filter
def local_date(day: datetime.date, length: str = "long") -> str:
    gregorian = date_format(day, "j M Y" if length == "short" else "j F Y")  # month names in the active language
    if translation.get_language() != "fa":
        return gregorian
    return f"{jalali_text(day)} ({persian_digits(gregorian)})"
