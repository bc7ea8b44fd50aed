"""Dates the server prints: in Persian the Solar Hijri date first with the Gregorian beside it, in
Persian digits; in English the Gregorian date alone."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client

from frontend.jalali import from_jalali, to_jalali


@pytest.mark.parametrize(
    ("gregorian", "jalali"),
    [
        (datetime.date(2024, 3, 20), (1403, 1, 1)),  # Nowruz 1403
        (datetime.date(2025, 3, 21), (1404, 1, 1)),  # Nowruz 1404
        (datetime.date(2025, 3, 20), (1403, 12, 30)),  # 30 Esfand 1403, a leap year's last day
        (datetime.date(1979, 2, 11), (1357, 11, 22)),  # 22 Bahman 1357
        (datetime.date(2026, 11, 30), (1405, 9, 9)),
    ],
)
def test_known_days_convert_to_their_solar_hijri_dates(gregorian: datetime.date, jalali: tuple[int, int, int]) -> None:
    assert to_jalali(gregorian) == jalali


def test_every_day_from_2000_to_2040_follows_the_day_before_it() -> None:
    day, last = datetime.date(2000, 1, 1), datetime.date(2040, 12, 31)
    previous = to_jalali(day)
    while day < last:
        day += datetime.timedelta(days=1)
        year, month, day_of_month = to_jalali(day)
        next_in_month = (previous[0], previous[1], previous[2] + 1)
        next_month = (previous[0], previous[1] + 1, 1)
        next_year = (previous[0] + 1, 1, 1)
        assert (year, month, day_of_month) in (next_in_month, next_month, next_year), day
        # Months 1 to 6 have 31 days, 7 to 11 have 30, Esfand 29 or 30.
        assert day_of_month <= (31 if month <= 6 else 30), day
        previous = (year, month, day_of_month)


@pytest.mark.django_db
def test_the_daily_board_shows_the_solar_hijri_date_beside_the_gregorian_in_persian(client: Client) -> None:
    page = client.get("/daily/2026-11-30", headers={"accept-language": "fa"}).content.decode()
    assert "۹ آذر ۱۴۰۵ (۳۰ نوامبر ۲۰۲۶)" in page


@pytest.mark.django_db
def test_the_daily_board_shows_the_gregorian_date_in_english(client: Client) -> None:
    page = client.get("/daily/2026-11-30", headers={"accept-language": "en"}).content.decode()
    assert "30 November 2026" in page
    assert "آذر" not in page


@pytest.mark.django_db
def test_a_profile_in_persian_says_since_when_in_both_calendars(client: Client, player) -> None:
    player.created_at = datetime.datetime(2026, 11, 30, 12, tzinfo=datetime.UTC)
    player.save(update_fields=["created_at"])
    page = client.get(f"/players/{player.nickname}", headers={"accept-language": "fa"}).content.decode()
    assert "۹ آذر ۱۴۰۵ (۳۰ نوامبر ۲۰۲۶)" in page


def test_every_solar_hijri_day_from_2000_to_2040_leads_back_to_its_gregorian_day() -> None:
    day = datetime.date(2000, 1, 1)
    while day <= datetime.date(2040, 12, 31):
        assert from_jalali(*to_jalali(day)) == day
        day += datetime.timedelta(days=1)


@pytest.mark.parametrize("missing", [(1405, 7, 31), (1404, 12, 30), (1405, 13, 1), (1405, 0, 1)])
def test_a_day_the_solar_hijri_calendar_lacks_is_refused(missing: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match="no Solar Hijri"):
        from_jalali(*missing)


@pytest.mark.django_db
def test_the_persian_date_picker_opens_the_days_board_and_refuses_a_missing_day(client: Client) -> None:
    response = client.get("/daily", {"jy": "1405", "jm": "9", "jd": "9"})
    assert response.status_code == 302 and response["Location"] == "/daily/2026-11-30"
    assert client.get("/daily", {"jy": "1405", "jm": "7", "jd": "31"}).status_code == 404
    assert client.get("/daily", {"jy": "soon", "jm": "7", "jd": "1"}).status_code == 404
