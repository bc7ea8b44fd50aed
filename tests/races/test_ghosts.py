"""Racing a ghost: a finished game's stored events replayed at their own pace, with the same progress
and standings as a human racer, and the spoiler rule for daily deals."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from accounts.models import Player
from games.errors import GameNotFound
from games.models import Game
from games.races import services
from games.races.errors import SpoilerWithheld
from games.races.models import Room
from games.races.selectors import ghost_line_at, ghost_timeline, room_view
from games.services import game_finish, game_move, game_start

from .conftest import NOON, later

pytestmark = pytest.mark.django_db

START = later(1 + services.COUNTDOWN_SECONDS)


@pytest.fixture
def ghost_game(friend: Player, winning_game: dict[str, Any]) -> Game:
    """The friend's win on the winning deal: a move a second, the last one 95 s after the deal."""
    game, _ = game_start(player=friend, mode="code", code=winning_game["deal_code"], now=NOON)
    moves = winning_game["moves"]
    for index, move in enumerate(moves):
        at = NOON + datetime.timedelta(seconds=95 - (len(moves) - 1 - index))
        game_move(game_id=game.pk, player=friend, move=move, now=at)
    return Game.objects.get(pk=game.pk)


def ghost_race(host: Player, ghost_game: Game) -> Room:
    room = services.room_create(host=host, ghost_game_id=ghost_game.pk, now=NOON)
    services.race_start(code=room.code, player=host, now=later(1))
    services.race_advance(code=room.code, now=START)
    return Room.objects.get(pk=room.pk)


def ghost_entry(room: Room, at: datetime.datetime) -> dict[str, Any]:
    view = room_view(room=Room.objects.get(pk=room.pk), now=at)
    return next(entry for entry in view["racers"] if entry["ghost"])


def test_a_ghost_sits_in_the_lobby_without_naming_its_game(host, ghost_game):
    room = services.room_create(host=host, ghost_game_id=ghost_game.pk, now=NOON)
    entry = ghost_entry(room, later(1))
    assert entry["nickname"] == "Friend" and entry["ready"] and entry["game"] is None and entry["line"] is None


def test_the_race_is_on_the_ghosts_deal(host, ghost_game):
    room = ghost_race(host, ghost_game)
    assert room.deal_id == ghost_game.deal_id
    assert Game.objects.get(race_code=room.code, player=host).deal_id == ghost_game.deal_id


def test_the_ghost_stands_where_its_game_stood_that_long_after_its_start(host, ghost_game, winning_game):
    room = ghost_race(host, ghost_game)
    first_move_at = 95 - 50  # the 51 moves came a second apart, the last at 95 s
    before = ghost_entry(room, START + datetime.timedelta(seconds=first_move_at - 1))
    assert before["piles"] == 52 and before["status"] == "playing" and before["game"] == ghost_game.pk
    three = ghost_entry(room, START + datetime.timedelta(seconds=first_move_at + 2.5))
    assert three["piles"] == 49 and three["line"] == winning_game["moves"][:3] and three["v"] == 4
    done = ghost_entry(room, START + datetime.timedelta(seconds=100))
    assert done["status"] == "finished" and done["piles"] == 1


def test_the_ghost_is_placed_by_its_own_result(host, ghost_game):
    room = ghost_race(host, ghost_game)
    game = Game.objects.get(race_code=room.code, player=host)
    game_finish(game_id=game.pk, player=host, moves=[], now=START + datetime.timedelta(seconds=60))
    table = room_view(room=Room.objects.get(pk=room.pk), now=START + datetime.timedelta(seconds=61))["standings"]
    assert [(entry["nickname"], entry["ghost"], entry["won"], entry["seconds"]) for entry in table] == [
        ("Friend", True, True, 95),
        ("Hostess", False, False, 60),
    ]


def test_a_ghost_of_a_line_finished_whole_moves_pile_by_pile(host, friend, winning_game):
    # Five moves played, then the whole winning line sent at 60 s, as a finish over the API does.
    moves = winning_game["moves"]
    game, _ = game_start(player=friend, mode="code", code=winning_game["deal_code"], now=NOON)
    for index, move in enumerate(moves[:5], start=1):
        game_move(game_id=game.pk, player=friend, move=move, now=NOON + datetime.timedelta(seconds=index))
    game_finish(game_id=game.pk, player=friend, moves=moves, now=NOON + datetime.timedelta(seconds=60))
    steps = ghost_timeline(game=Game.objects.get(pk=game.pk))
    assert [step.event["v"] for step in steps] == list(range(1, len(steps) + 1))  # heard one by one
    assert [step.event["kind"] for step in steps] == ["start"] + ["move"] * 50 + ["finish"]
    assert [step.event["piles"] for step in steps[6:]] == list(range(46, 0, -1))
    assert all(5 < step.offset < 60 for step in steps[6:-1]) and steps[-1].offset == 60
    assert ghost_line_at(steps, 30.0).piles < 47  # halfway through the line, not still at the fifth move
    assert ghost_line_at(steps, 61.0).line == moves


def test_a_ghost_slower_than_the_time_limit_is_cut_there(host, ghost_game):
    room = services.room_create(host=host, ghost_game_id=ghost_game.pk, time_limit=60, now=NOON)
    services.race_start(code=room.code, player=host, now=later(1))
    services.race_advance(code=room.code, now=START)
    game = Game.objects.get(race_code=room.code, player=host)
    game_finish(game_id=game.pk, player=host, moves=[], now=START + datetime.timedelta(seconds=10))
    table = room_view(room=Room.objects.get(pk=room.pk), now=START + datetime.timedelta(seconds=70))["standings"]
    ghost = next(entry for entry in table if entry["ghost"])
    assert not ghost["won"] and ghost["seconds"] == 60 and ghost["piles"] == 52 - (60 - 44)


def test_a_game_still_being_played_cannot_be_a_ghost(host, friend):
    own, _ = game_start(player=host, mode="new", now=NOON)
    with pytest.raises(services.RaceError, match="still being played"):
        services.room_create(host=host, ghost_game_id=own.pk, now=NOON)


def test_someone_elses_game_in_play_is_no_game_the_host_can_see(host, friend):
    game, _ = game_start(player=friend, mode="new", now=NOON)
    with pytest.raises(GameNotFound, match="no game"):  # not "still being played": that would tell
        services.room_create(host=host, ghost_game_id=game.pk, now=NOON)


def finished_daily(player: Player, day: datetime.date) -> Game:
    now = datetime.datetime.combine(day, datetime.time(12), tzinfo=datetime.UTC)
    daily, _ = game_start(player=player, mode="daily", now=now)
    return game_finish(game_id=daily.pk, player=player, moves=[], now=now + datetime.timedelta(seconds=20))


def test_someone_elses_daily_is_a_ghost_only_once_its_day_is_over(host, friend, today):
    daily = finished_daily(friend, today)
    noon = datetime.datetime.combine(today, datetime.time(13), tzinfo=datetime.UTC)
    with pytest.raises(SpoilerWithheld):
        services.room_create(host=host, ghost_game_id=daily.pk, now=noon)
    room = services.room_create(host=host, ghost_game_id=daily.pk, now=noon + datetime.timedelta(days=1))
    assert ghost_entry(room, noon)["nickname"] == "Friend"


def test_nobody_else_comes_into_a_room_racing_a_ghost_of_todays_daily(host, friend, today):
    own = finished_daily(host, today)
    noon = datetime.datetime.combine(today, datetime.time(13), tzinfo=datetime.UTC)
    room = services.room_create(host=host, ghost_game_id=own.pk, now=noon)
    with pytest.raises(SpoilerWithheld):
        services.race_join(code=room.code, player=friend, now=noon)


def test_the_host_sets_and_drops_a_ghost_in_the_lobby(room, host, ghost_game):
    services.race_ghost(code=room.code, player=host, game_id=ghost_game.pk, now=later(1))
    assert ghost_entry(room, later(2))["nickname"] == "Friend"
    services.race_ghost(code=room.code, player=host, game_id=None, now=later(3))
    assert not any(entry["ghost"] for entry in room_view(room=room, now=later(4))["racers"])


def test_the_host_cannot_race_their_own_daily_of_today_while_someone_else_is_seated(lobby, host, today):
    own = finished_daily(host, today)
    noon = datetime.datetime.combine(today, datetime.time(13), tzinfo=datetime.UTC)

    with pytest.raises(SpoilerWithheld, match="stays hidden from Friend"):
        services.race_ghost(code=lobby.code, player=host, game_id=own.pk, now=noon)

    assert not any(entry["ghost"] for entry in room_view(room=Room.objects.get(pk=lobby.pk), now=noon)["racers"])
