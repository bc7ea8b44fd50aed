"""How a race ends and who won: every racer finished or gone, or the time limit; winners by server
time, then fewer piles, then the higher score; places kept for profiles."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from games.errors import GameError
from games.models import Game
from games.races import services
from games.races.models import Racer, Room
from games.races.selectors import player_race_stats, room_view
from games.selectors import game_winnable
from games.services import game_finish, game_hint, game_move

from .conftest import later

pytestmark = pytest.mark.django_db

START = later(3 + services.COUNTDOWN_SECONDS)


def after_start(seconds: float):  # type: ignore[no-untyped-def]
    return later(3 + services.COUNTDOWN_SECONDS + seconds)


def race_game(room: Room, player: Player) -> Game:
    return Game.objects.get(race_code=room.code, player=player)


def finish(room: Room, player: Player, moves: list[Any], seconds: float) -> None:
    game_finish(game_id=race_game(room, player).pk, player=player, moves=moves, now=after_start(seconds))


def standings(room: Room) -> list[dict[str, Any]]:
    view = room_view(room=Room.objects.get(pk=room.pk), now=after_start(700))
    assert view["standings"] is not None, view["state"]
    return view["standings"]


@pytest.fixture
def four_racing(lobby: Room, host: Player, third: Player) -> tuple[Room, list[Player]]:
    fourth = Player.objects.create(nickname="Fourth")
    for player in (third, fourth):
        services.race_join(code=lobby.code, player=player, now=later(1))
        services.race_ready(code=lobby.code, player=player, ready=True, now=later(2))
    services.race_start(code=lobby.code, player=host, now=later(3))
    services.race_advance(code=lobby.code, now=START)
    friend = Player.objects.get(nickname="Friend")
    return Room.objects.get(pk=lobby.pk), [host, friend, third, fourth]


def test_the_race_goes_on_while_one_racer_still_plays(racing, host):
    finish(racing, host, [], 30)
    assert Room.objects.get(pk=racing.pk).state == Room.State.RACING


def test_winners_come_first_by_server_time_then_fewer_piles_then_the_rest(four_racing, winning_game):
    room, (host, friend, third, fourth) = four_racing
    line = winning_game["moves"]
    finish(room, host, line, 100)
    finish(room, friend, line, 90)
    finish(room, third, line[:47], 50)  # 5 piles
    finish(room, fourth, line[:49], 60)  # 3 piles
    table = standings(room)
    assert [entry["nickname"] for entry in table] == ["Friend", "Hostess", "Fourth", "Third"]
    assert [entry["place"] for entry in table] == [1, 2, 3, 4]
    assert table[0] | {"racer": 0, "player": 0, "game": 0} == {
        "place": 1,
        "racer": 0,
        "player": 0,
        "nickname": "Friend",
        "ghost": False,
        "won": True,
        "seconds": 90,
        "piles": 1,
        "score": 510 + 500 + 1200 - 90,
        "game": 0,
        "left": False,
    }


def test_equal_results_share_a_place(racing, host, friend, winning_game):
    finish(racing, host, winning_game["moves"][:10], 40)
    finish(racing, friend, winning_game["moves"][:10], 80)
    assert [entry["place"] for entry in standings(racing)] == [1, 1]


def test_the_time_limit_ends_the_games_still_played_as_they_stand(racing, host, friend, winning_game):
    game = race_game(racing, host)
    for index, move in enumerate(winning_game["moves"][:6]):
        game_move(game_id=game.pk, player=host, move=move, now=after_start(10 + index))
    finish(racing, friend, winning_game["moves"][:3], 20)
    services.race_advance(code=racing.code, now=after_start(599))
    assert Room.objects.get(pk=racing.pk).state == Room.State.RACING
    news = services.race_advance(code=racing.code, now=after_start(601))
    assert "finished" in news.kinds
    ended = race_game(racing, host)
    assert ended.status == Game.Status.FINISHED and ended.piles == 46 and ended.seconds == 600
    assert [(entry["nickname"], entry["piles"]) for entry in standings(racing)] == [("Hostess", 46), ("Friend", 49)]


def test_a_racer_who_leaves_mid_race_ends_their_game_and_keeps_a_place(racing, host, friend, winning_game):
    game = race_game(racing, friend)
    game_move(game_id=game.pk, player=friend, move=winning_game["moves"][0], now=after_start(5))
    services.race_leave(code=racing.code, player=friend, now=after_start(8))
    assert race_game(racing, friend).status == Game.Status.FINISHED
    assert Room.objects.get(pk=racing.pk).state == Room.State.RACING
    finish(racing, host, [], 30)
    table = standings(racing)
    assert [(entry["nickname"], entry["left"]) for entry in table] == [("Friend", True), ("Hostess", False)]


def test_the_race_ends_when_the_last_racer_leaves(racing, host, friend):
    finish(racing, host, [], 30)
    services.race_leave(code=racing.code, player=friend, now=after_start(40))
    assert Room.objects.get(pk=racing.pk).state == Room.State.FINISHED


def test_places_are_stored_for_profiles_and_only_first_against_someone_is_a_win(racing, host, friend, winning_game):
    finish(racing, host, winning_game["moves"], 100)
    finish(racing, friend, [], 30)
    assert player_race_stats(player=host) == {"played": 1, "won": 1}
    assert player_race_stats(player=friend) == {"played": 1, "won": 0}
    assert Racer.objects.get(player=host).place == 1


def test_a_racer_gets_no_hint_and_no_still_winnable_check(racing, host):
    game = race_game(racing, host)
    with pytest.raises(GameError, match="no hints in a race"):
        game_hint(game_id=game.pk, player=host, accept_unranked=True, now=after_start(5))
    with pytest.raises(GameError, match="in a race"):
        game_winnable(game_id=game.pk, player=host, today=after_start(5).date())


def test_a_players_profile_page_shows_their_races_played_and_won(racing, host, friend, winning_game):
    finish(racing, host, winning_game["moves"], 100)
    finish(racing, friend, [], 30)
    html = Client().get(f"/players/{host.nickname}").content.decode()
    assert 'data-races-played="1" data-races-won="1"' in html


def test_a_race_alone_is_played_but_not_won(room, host):
    services.race_start(code=room.code, player=host, now=later(1))
    services.race_advance(code=room.code, now=later(1 + services.COUNTDOWN_SECONDS))
    game = Game.objects.get(race_code=room.code)
    game_finish(game_id=game.pk, player=host, moves=[], now=later(30))
    assert player_race_stats(player=host) == {"played": 1, "won": 0}


def test_race_games_stay_off_the_daily_board_and_unranked(racing):
    assert not Game.objects.filter(race_code=racing.code, ranked=True).exists()
    assert not Game.objects.filter(race_code=racing.code, deal__daily_date__isnull=False).exists()
