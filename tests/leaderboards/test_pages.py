"""The pages: a day's board (today's at /daily), a game's replay, and the way to them from the home page."""

from __future__ import annotations

import datetime

import pytest

pytestmark = pytest.mark.django_db


def test_the_home_page_links_to_todays_board(visitor):
    page = visitor.get("/").content.decode()
    assert 'href="/daily" data-testid="todays-board"' in page


def test_daily_is_todays_board(visitor, today):
    response = visitor.get("/daily")
    assert response.status_code == 200
    assert f'data-date="{today.isoformat()}"' in response.content.decode()


def test_a_past_day_has_its_own_page_with_the_days_around_it(visitor, today):
    day = today - datetime.timedelta(days=3)
    page = visitor.get(f"/daily/{day.isoformat()}").content.decode()
    assert f'data-date="{day.isoformat()}"' in page
    assert f'href="/daily/{(day - datetime.timedelta(days=1)).isoformat()}"' in page
    assert f'href="/daily/{(day + datetime.timedelta(days=1)).isoformat()}"' in page


def test_todays_page_has_no_next_day(visitor):
    assert 'data-testid="next-day"' not in visitor.get("/daily").content.decode()


def test_the_date_picker_leads_to_the_days_own_address(visitor):
    response = visitor.get("/daily", {"date": "2026-11-01"})
    assert response.status_code == 302 and response["Location"] == "/daily/2026-11-01"


@pytest.mark.parametrize(
    "path", ["/daily/2026-13-01", "/daily/yesterday", "/daily/\uff12\uff10\uff12\uff16-11-30", "/daily?date=a/b"]
)
def test_a_page_for_something_that_is_not_a_date_is_a_404(visitor, path):
    assert visitor.get(path).status_code == 404


def test_a_day_not_begun_says_so(visitor, today):
    page = visitor.get(f"/daily/{(today + datetime.timedelta(days=1)).isoformat()}").content.decode()
    assert 'data-testid="not-begun"' in page and 'data-testid="board"' not in page


def test_a_finished_game_has_a_replay_page(finish_daily, visitor):
    game = finish_daily("ada", moves=2)
    response = visitor.get(f"/games/{game.pk}/replay")
    assert response.status_code == 200 and f'data-game-id="{game.pk}"' in response.content.decode()


def test_a_replay_of_no_game_is_a_404(visitor):
    assert visitor.get("/games/987654/replay").status_code == 404
