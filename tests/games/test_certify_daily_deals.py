"""`manage.py certify_daily_deals`: the coming days' daily deals are ready before anyone asks for them."""

from __future__ import annotations

import datetime
import io

import pytest
from django.core.management import CommandError, call_command

from games import engine
from games.models import Deal
from tests.api_client import start

pytestmark = pytest.mark.django_db


def certify(*args: str) -> str:
    """Run the command; return what it printed."""
    output = io.StringIO()
    call_command("certify_daily_deals", *args, stdout=output)
    return output.getvalue()


def stored_daily_dates() -> list[datetime.date]:
    return list(
        Deal.objects.filter(daily_date__isnull=False).order_by("daily_date").values_list("daily_date", flat=True)
    )


def test_each_coming_day_gets_a_stored_deal_with_a_winning_line(today):
    certify("--days", "3")
    assert stored_daily_dates() == [today + datetime.timedelta(days=offset) for offset in range(3)]
    assert all(engine.replay(deal.cards, deal.solution).won for deal in Deal.objects.all())


def test_by_default_a_week_is_certified_from_today(today):
    certify()
    assert stored_daily_dates() == [today + datetime.timedelta(days=offset) for offset in range(7)]


def test_todays_players_get_the_deal_certified_ahead_of_time(client, today):
    certify("--days", "1")
    assert start(client, mode="daily")["deal"] == Deal.objects.get(daily_date=today).cards


def test_it_says_what_it_did_for_each_date(today):
    output = certify("--days", "2")
    tomorrow = today + datetime.timedelta(days=1)
    assert f"{today}: certified" in output and f"{tomorrow}: certified" in output


def test_running_it_again_keeps_the_stored_deals_and_says_so(today):
    certify("--days", "2")
    stored = list(Deal.objects.order_by("pk").values_list("pk", "cards", "solution"))
    output = certify("--days", "2")
    assert list(Deal.objects.order_by("pk").values_list("pk", "cards", "solution")) == stored
    assert output.count("already certified") == 2


def test_fewer_than_one_day_is_refused():
    with pytest.raises(CommandError, match="at least 1"):
        certify("--days", "0")
