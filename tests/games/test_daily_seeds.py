"""The daily deal comes from the date and the server's secret; each day's seed is committed to before
the day and published after it, so any past deal can be reproduced and checked."""

from __future__ import annotations

import datetime
import hashlib
import io

import pytest
from django.core.management import call_command

from games import engine
from games.engine.deals import shuffled_deck
from games.models import Deal
from games.services import deal_for_date
from tests.leaderboards.conftest import get

pytestmark = pytest.mark.django_db


def seed_of(client, date: datetime.date) -> dict:
    status, answer = get(client, f"/api/leaderboards/daily/{date.isoformat()}/seed")
    assert status == 200, answer
    return answer


def test_the_served_deal_is_not_the_one_the_old_public_seed_gave(today):
    served = deal_for_date(date=today).cards
    assert all(served != shuffled_deck(f"daily:{today.isoformat()}:{attempt}") for attempt in range(3))


def test_another_secret_gives_another_seed_and_another_deal(today):
    served = deal_for_date(date=today)
    other_seed = engine.daily_seed(today, secret="not the server's secret, but long enough")
    assert other_seed != served.seed and engine.daily_deal(today, other_seed) != served.cards


def test_todays_seed_is_not_published_but_its_commitment_is(client, today):
    deal = deal_for_date(date=today)
    answer = seed_of(client, today)
    assert answer == {
        "date": today.isoformat(), "commitment": hashlib.sha256(deal.seed.encode()).hexdigest(), "seed": None,
        "attempt": None,
    }  # fmt: skip


def test_a_past_days_published_seed_matches_its_commitment_and_reproduces_its_deal(client, today):
    yesterday = today - datetime.timedelta(days=1)
    deal = deal_for_date(date=yesterday)
    answer = seed_of(client, yesterday)
    assert hashlib.sha256(answer["seed"].encode()).hexdigest() == answer["commitment"]
    reproduced = engine.certified_daily_deal(yesterday, answer["seed"])
    assert (list(reproduced.cards), reproduced.attempt) == (deal.cards, answer["attempt"])


def test_coming_days_are_committed_to_once_certified_ahead(client, today):
    call_command("certify_daily_deals", "--days", "2", stdout=io.StringIO())
    tomorrow = today + datetime.timedelta(days=1)
    answer = seed_of(client, tomorrow)
    assert answer["seed"] is None
    assert answer["commitment"] == engine.seed_commitment(Deal.objects.get(daily_date=tomorrow).seed)
    assert seed_of(client, today + datetime.timedelta(days=30))["commitment"] is None


def test_a_past_day_nobody_played_still_has_its_seed_published(client, settings):
    long_ago = datetime.date(2020, 1, 1)
    answer = seed_of(client, long_ago)
    assert answer["seed"] == engine.daily_seed(long_ago, secret=settings.DAILY_SECRET)
    assert not Deal.objects.filter(daily_date=long_ago).exists()
