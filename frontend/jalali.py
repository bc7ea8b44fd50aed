"""Gregorian → Solar Hijri (Jalali) dates for the templates: the same arithmetic over the calendar's
33-year cycles as `toJalali` in static/js/locale_format.js, so a page drawn by the server and a page
drawn by a script name a day alike."""

from __future__ import annotations

import datetime

from accordion_site.languages import persian_digits

JALALI_MONTHS = (
    "فروردین",
    "اردیبهشت",
    "خرداد",
    "تیر",
    "مرداد",
    "شهریور",
    "مهر",
    "آبان",
    "آذر",
    "دی",
    "بهمن",
    "اسفند",
)
# Day count of the Gregorian months before each month, in a common year.
_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def to_jalali(day: datetime.date) -> tuple[int, int, int]:
    """The Solar Hijri (year, month, day) of a Gregorian date."""
    year = 0 if day.year <= 1600 else 979
    years_from_epoch = day.year - (621 if day.year <= 1600 else 1600)
    leap_year = years_from_epoch + 1 if day.month > 2 else years_from_epoch
    days = (
        365 * years_from_epoch
        + (leap_year + 3) // 4
        - (leap_year + 99) // 100
        + (leap_year + 399) // 400
        - 80
        + day.day
        + _DAYS_BEFORE_MONTH[day.month - 1]
    )
    year += 33 * (days // 12053)
    days %= 12053
    year += 4 * (days // 1461)
    days %= 1461
    if days > 365:
        year += (days - 1) // 365
        days = (days - 1) % 365
    month = 1 + days // 31 if days < 186 else 7 + (days - 186) // 30
    day_of_month = 1 + (days % 31 if days < 186 else (days - 186) % 30)
    return year, month, day_of_month


def from_jalali(year: int, month: int, day_of_month: int) -> datetime.date:
    """The Gregorian date of a Solar Hijri (year, month, day); ValueError for a day the calendar does not
    have (31 Mehr, 30 Esfand of a common year, …). Found from 1 Farvardin, which falls on 19 to 22 March of
    Gregorian year `year` + 621, so it cannot drift from to_jalali."""
    if not (1 <= month <= 12 and 1 <= day_of_month <= 31 and 1 <= year <= 9000 - 622):
        raise ValueError(f"no Solar Hijri date {year}-{month}-{day_of_month}")
    around = datetime.date(year + 621, 3, 19)
    starts = [around + datetime.timedelta(days=step) for step in range(4)]
    first = next((start for start in starts if to_jalali(start) == (year, 1, 1)), None)
    if first is None:
        raise ValueError(f"no Solar Hijri year {year}")
    days_before_month = 31 * (month - 1) if month <= 7 else 186 + 30 * (month - 7)
    found = first + datetime.timedelta(days=days_before_month + day_of_month - 1)
    if to_jalali(found) != (year, month, day_of_month):
        raise ValueError(f"no Solar Hijri date {year}-{month}-{day_of_month}")
    return found


def jalali_text(day: datetime.date) -> str:
    """«۹ آذر ۱۴۰۵»."""
    year, month, day_of_month = to_jalali(day)
    return persian_digits(f"{day_of_month} {JALALI_MONTHS[month - 1]} {year}")
