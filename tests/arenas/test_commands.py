"""manage.py schedule_arenas and end_arenas."""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.models import Player
from arenas import services
from arenas.models import Arena
from games.models import Game

from .conftest import current_game

pytestmark = pytest.mark.django_db


def run(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


def test_schedule_makes_the_hourly_and_daily_arenas_once(settings: object) -> None:
    run("schedule_arenas", "--hours", "24")
    hourly = Arena.objects.filter(kind=Arena.Kind.HOURLY)
    daily = Arena.objects.filter(kind=Arena.Kind.DAILY)
    assert hourly.count() == 24 and daily.count() == 1
    assert {arena.minutes for arena in hourly} == {10} and daily.get().minutes == 30
    assert all(arena.starts_at.minute == 0 and arena.starts_at > timezone.now() for arena in hourly)
    assert "0 arenas created" in run("schedule_arenas", "--hours", "24")
    assert Arena.objects.count() == 25


def test_schedule_refuses_a_bad_number_of_hours() -> None:
    with pytest.raises(Exception, match="hours"):
        run("schedule_arenas", "--hours", "0")


def test_end_arenas_closes_the_arenas_that_are_over(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    Arena.objects.filter(pk=live_arena.pk).update(ends_at=timezone.now() - datetime.timedelta(seconds=1))
    assert f"{live_arena.code}: closed" in run("end_arenas")
    assert current_game(live_arena, player).status == Game.Status.FINISHED
    assert "0 arenas closed" in run("end_arenas")
