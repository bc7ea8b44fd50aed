"""The pages' "Race this game as a ghost" button: on a finished game's replay page and on its game page
(the after-game panel) for whoever may race it, and nowhere the server would refuse the room it asks
for (someone else's daily before its day is over, a game still being played)."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games.models import Game
from games.races.models import Room
from games.races.selectors import ghost_open
from games.services import game_finish, game_move, game_start

pytestmark = pytest.mark.django_db

_GHOST_FORM = re.compile(
    r'<form method="post" action="/race" class="race-form ghost-race-form">'
    r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]+">\s*'
    r'<input type="hidden" name="ghost" value="(\d*)">\s*'
    r'<button type="submit" class="btn [^"]*" data-testid="race-ghost">'
)


def ghost_form(client: Client, path: str) -> int | None:
    """The game id the page's ghost button would race (its form posts it to /race with the CSRF token),
    or None when the page has no such button."""
    response = client.get(path)
    assert response.status_code == 200
    found = _GHOST_FORM.findall(response.content.decode())
    assert len(found) <= 1
    return int(found[0]) if found else None


def finished(player: Player, *, mode: str = "code", day: datetime.date | None = None, **start: Any) -> Game:
    now = timezone.now() if day is None else datetime.datetime.combine(day, datetime.time(12), tzinfo=datetime.UTC)
    game, _ = game_start(player=player, mode=mode, now=now, **start)
    return game_finish(game_id=game.pk, player=player, moves=[], now=now + datetime.timedelta(seconds=20))


def races_it(client: Client, game: Game) -> bool:
    """Whether the server opens a room racing `game` for this client (the button's own request)."""
    rooms = Room.objects.count()
    response = client.post("/race", {"ghost": str(game.pk)})
    assert (response.status_code == 302) == (Room.objects.count() == rooms + 1)
    return response.status_code == 302


@pytest.fixture
def code_game(other_player: Player, winning_game: dict[str, Any]) -> Game:
    """Grace's finished game on a shared deal, three moves in."""
    game, _ = game_start(player=other_player, mode="code", code=winning_game["deal_code"], now=timezone.now())
    for move in winning_game["moves"][:3]:
        game_move(game_id=game.pk, player=other_player, move=move, now=timezone.now())
    return game_finish(game_id=game.pk, player=other_player, moves=winning_game["moves"][:3], now=timezone.now())


def test_someone_elses_finished_game_offers_its_ghost_on_its_replay_and_game_pages(client, code_game):
    assert ghost_form(client, f"/games/{code_game.pk}/replay") == code_game.pk
    assert ghost_form(client, f"/games/{code_game.pk}") == code_game.pk
    assert races_it(client, code_game)


def test_a_visitor_is_offered_the_ghost_too_and_the_room_makes_them_a_guest_host(code_game):
    visitor = Client()
    assert ghost_form(visitor, f"/games/{code_game.pk}/replay") == code_game.pk
    assert ghost_form(visitor, f"/games/{code_game.pk}") == code_game.pk
    assert races_it(visitor, code_game)
    room = Room.objects.get()
    assert room.host is not None and room.host != code_game.player


def test_the_game_pages_ghost_button_sits_in_the_after_game_panel(client, code_game):
    page = client.get(f"/games/{code_game.pk}").content.decode()
    result = page[page.index('data-testid="result"') :]
    assert 'data-testid="race-ghost"' in result[: result.index("</section>")]


def test_someone_elses_daily_of_a_day_not_over_offers_no_ghost(client, other_player, today):
    daily = finished(other_player, mode="daily", day=today)
    for reader in (client, Client()):
        assert ghost_form(reader, f"/games/{daily.pk}/replay") is None
        assert ghost_form(reader, f"/games/{daily.pk}") is None
    assert not races_it(client, daily)


def test_the_player_who_played_todays_daily_is_offered_its_ghost(other_client, other_player, today):
    daily = finished(other_player, mode="daily", day=today)
    assert ghost_form(other_client, f"/games/{daily.pk}/replay") == daily.pk
    assert ghost_form(other_client, f"/games/{daily.pk}") == daily.pk
    assert races_it(other_client, daily)


def test_a_past_days_daily_is_offered_to_everyone_once_its_day_is_over(client, other_player, today):
    daily = finished(other_player, mode="daily", day=today - datetime.timedelta(days=1))
    assert ghost_form(client, f"/games/{daily.pk}/replay") == daily.pk
    assert ghost_form(Client(), f"/games/{daily.pk}") == daily.pk
    assert races_it(client, daily)


def test_a_game_still_being_played_offers_no_ghost_to_anyone_else(client, other_player):
    playing, _ = game_start(player=other_player, mode="new", now=timezone.now())
    assert ghost_form(client, f"/games/{playing.pk}/replay") is None
    assert ghost_form(client, f"/games/{playing.pk}") is None
    assert not races_it(client, playing)


def test_the_players_own_game_in_play_has_the_button_only_in_its_after_game_panel(other_client, other_player):
    playing, _ = game_start(player=other_player, mode="new", now=timezone.now())
    assert ghost_form(other_client, f"/games/{playing.pk}/replay") is None  # refused until it is finished
    assert not races_it(other_client, playing)
    # The game page's panel shows once the game is over, when the ghost is the player's to race.
    assert ghost_form(other_client, f"/games/{playing.pk}") == playing.pk
    game_finish(game_id=playing.pk, player=other_player, moves=[], now=timezone.now())
    assert races_it(other_client, playing)


def test_the_pages_rule_is_the_rooms_rule(client, player, other_player, today):
    """ghost_open, which the pages ask, says yes exactly where opening the room succeeds."""
    yesterday = today - datetime.timedelta(days=1)
    games = [
        finished(other_player, mode="new"),
        finished(other_player, mode="daily", day=today),
        finished(other_player, mode="daily", day=yesterday),
        game_start(player=other_player, mode="new", now=timezone.now())[0],
        finished(player, mode="daily", day=today),
    ]
    offered = [ghost_open(game=game, player=player, today=today) for game in games]
    assert offered == [True, False, True, False, True]
    assert [races_it(client, game) for game in games] == offered


def test_the_profile_page_tells_its_script_whose_games_and_which_day_it_is(client, player, other_player, today):
    mine = client.get(f"/players/{player.nickname}").content.decode()
    theirs = client.get(f"/players/{other_player.nickname}").content.decode()
    template = '<template data-role="ghost-race" data-mine="{}" data-today="{}">'
    assert template.format("true", today.isoformat()) in mine
    assert template.format("false", today.isoformat()) in theirs
    assert 'data-testid="race-ghost"' in theirs  # the form profile.js copies into each row
