"""The race's flow as racers live it: the countdown starts by itself once everyone present is ready (the
host may start earlier), the room says whom it waits for, each finisher's place shows at once, and a
rematch starts when everyone present agrees or the host confirms it; and a race its racers all closed
ends, leaving the live list."""

from __future__ import annotations

import pytest

from games.models import Game
from games.races import services
from games.races.errors import NotHost, NotRacer, WrongState
from games.races.models import Racer, Room
from games.races.selectors import RACE_AWAY_SECONDS, race_abandoned_at, room_view
from games.services import game_finish
from games.watching.selectors import live_games

from .conftest import NOON, later


def view(room: Room, seconds: float = 60) -> dict:
    return room_view(room=Room.objects.get(pk=room.pk), now=later(seconds))


def state(room: Room) -> str:
    return Room.objects.get(pk=room.pk).state


def seat(room: Room, player) -> int:
    return Racer.objects.get(room=room, round=Room.objects.get(pk=room.pk).round, player=player).pk


@pytest.fixture
def three_present(room, host, friend, third, sockets) -> Room:
    """The host's lobby with the friend and a third racer, every room socket open, nobody ready yet."""
    for player in (host, friend, third):
        sockets.open(room, player)
        services.race_join(code=room.code, player=player, now=later(1))
    return room


def test_the_room_waits_for_the_racers_present_who_are_not_ready_and_names_them(three_present, friend, third):
    assert view(three_present)["waiting"] == [seat(three_present, friend), seat(three_present, third)]
    services.race_ready(code=three_present.code, player=friend, ready=True, now=later(2))
    assert view(three_present)["waiting"] == [seat(three_present, third)]
    assert state(three_present) == Room.State.LOBBY


def test_the_countdown_starts_by_itself_when_the_last_racer_present_is_ready(three_present, host, friend, third):
    services.race_ready(code=three_present.code, player=friend, ready=True, now=later(2))
    news = services.race_ready(code=three_present.code, player=third, ready=True, now=later(3))
    stored = Room.objects.get(pk=three_present.pk)
    assert stored.state == Room.State.COUNTDOWN and "countdown" in news.kinds
    assert stored.starts_at == later(3 + services.COUNTDOWN_SECONDS)
    assert view(three_present)["waiting"] == []
    assert sorted(entry["player"] for entry in view(three_present)["racers"]) == sorted([host.pk, friend.pk, third.pk])


def test_a_racer_who_is_not_ready_and_closes_the_tab_no_longer_holds_up_the_start(
    three_present, host, friend, third, sockets
):
    services.race_ready(code=three_present.code, player=friend, ready=True, now=later(2))
    sockets.close(three_present, third, later(4))
    services.race_presence(code=three_present.code, now=later(4))
    assert state(three_present) == Room.State.COUNTDOWN
    assert sorted(entry["player"] for entry in view(three_present)["racers"]) == sorted([host.pk, friend.pk])


def test_a_racer_who_is_not_ready_and_leaves_no_longer_holds_up_the_start(three_present, friend, third):
    services.race_ready(code=three_present.code, player=friend, ready=True, now=later(2))
    services.race_leave(code=three_present.code, player=third, now=later(3))
    assert state(three_present) == Room.State.COUNTDOWN


def test_a_host_alone_waits_for_nobody_but_does_not_start_by_themselves(room, host, sockets):
    sockets.open(room, host)
    services.race_join(code=room.code, player=host, now=later(1))
    assert state(room) == Room.State.LOBBY and view(room)["waiting"] == []


def test_the_host_starts_early_and_the_racers_not_ready_watch_the_round(three_present, host, friend, third):
    services.race_ready(code=three_present.code, player=friend, ready=True, now=later(2))
    services.race_start(code=three_present.code, player=host, now=later(3))
    assert state(three_present) == Room.State.COUNTDOWN
    assert sorted(entry["player"] for entry in view(three_present)["racers"]) == sorted([host.pk, friend.pk])


def finish(room: Room, player, moves, seconds: float) -> None:
    game = Game.objects.get(race_code=room.code, player=player)
    game_finish(game_id=game.pk, player=player, moves=moves, now=later(seconds))


def test_each_finisher_s_place_shows_at_once_and_the_standings_fill_in(racing, host, friend, winning_game):
    assert view(racing, 10)["standings"] == []  # the race is on, nobody is done
    finish(racing, friend, [], 20)
    so_far = view(racing, 21)
    assert so_far["state"] == Room.State.RACING
    assert [(entry["player"], entry["place"]) for entry in so_far["standings"]] == [(friend.pk, 1)]
    finish(racing, host, winning_game["moves"], 30)
    final = view(racing, 31)
    assert final["state"] == Room.State.FINISHED
    assert [(entry["player"], entry["place"]) for entry in final["standings"]] == [(host.pk, 1), (friend.pk, 2)]


@pytest.fixture
def finished(racing, host, friend, sockets) -> Room:
    """The race over, both racers' room sockets open."""
    for player in (host, friend):
        sockets.open(racing, player)
        services.race_join(code=racing.code, player=player, now=later(10))
        finish(racing, player, [], 20)
    assert state(racing) == Room.State.FINISHED
    return racing


def test_a_rematch_asked_by_a_racer_waits_for_the_others_present_and_shows_who_agreed(finished, host, friend):
    services.race_rematch(code=finished.code, player=friend, confirm=False, now=later(30))
    shown = view(finished, 31)
    assert shown["state"] == Room.State.FINISHED
    assert {entry["player"]: entry["rematch"] for entry in shown["racers"]} == {host.pk: False, friend.pk: True}
    services.race_rematch(code=finished.code, player=host, confirm=False, now=later(32))
    stored = Room.objects.get(pk=finished.pk)
    assert stored.round == 2 and stored.state == Room.State.COUNTDOWN  # everyone agreed: everyone is ready


def test_the_host_confirms_a_rematch_nobody_else_agreed_to(finished, host, friend):
    services.race_rematch(code=finished.code, player=host, confirm=True, now=later(30))
    shown = view(finished, 31)
    assert shown["round"] == 2 and shown["state"] == Room.State.LOBBY
    assert shown["waiting"] == [seat(finished, friend)]


def test_a_racer_who_closed_the_tab_does_not_hold_up_the_rematch(finished, host, friend, sockets):
    sockets.close(finished, friend, later(25))
    services.race_presence(code=finished.code, now=later(25))
    services.race_rematch(code=finished.code, player=host, confirm=False, now=later(30))
    stored = Room.objects.get(pk=finished.pk)
    assert stored.round == 2 and stored.state == Room.State.LOBBY


def test_only_the_host_confirms_a_rematch(finished, friend):
    with pytest.raises(NotHost):
        services.race_rematch(code=finished.code, player=friend, confirm=True, now=later(30))
    assert Room.objects.get(pk=finished.pk).round == 1


def test_a_watcher_cannot_ask_for_a_rematch(finished, third):
    with pytest.raises(NotRacer):
        services.race_rematch(code=finished.code, player=third, confirm=False, now=later(30))


def test_no_rematch_before_the_race_is_over(racing, friend):
    with pytest.raises(WrongState):
        services.race_rematch(code=racing.code, player=friend, confirm=False, now=later(30))
    assert not Racer.objects.get(room=racing, player=friend).rematch


def test_nobody_marks_ready_after_the_countdown_started(lobby, host, friend):
    services.race_start(code=lobby.code, player=host, now=NOON)
    with pytest.raises(WrongState):
        services.race_ready(code=lobby.code, player=friend, ready=False, now=later(1))


def live(room: Room, seconds: float) -> set[int]:
    """The room's games in the live list at later(seconds)."""
    listed = {game.id for game in live_games(now=later(seconds))}
    return listed & set(Game.objects.filter(race_code=room.code).values_list("pk", flat=True))


def test_a_race_whose_racers_all_closed_the_tab_ends_and_leaves_the_live_list(racing, host, friend, sockets):
    for player in (host, friend):
        sockets.open(racing, player)
        services.race_join(code=racing.code, player=player, now=later(10))
    assert len(live(racing, 15)) == 2
    for player in (host, friend):
        sockets.close(racing, player, later(20))
    services.race_presence(code=racing.code, now=later(20))
    due = later(20 + RACE_AWAY_SECONDS)
    assert race_abandoned_at(room=Room.objects.get(pk=racing.pk)) == due

    services.race_advance(code=racing.code, now=later(19 + RACE_AWAY_SECONDS))  # a reload comes back in time
    assert state(racing) == Room.State.RACING
    services.race_advance(code=racing.code, now=due)
    assert state(racing) == Room.State.FINISHED
    assert not Game.objects.filter(race_code=racing.code, status=Game.Status.PLAYING).exists()
    assert live(racing, 21 + RACE_AWAY_SECONDS) == set()


def test_a_race_goes_on_while_one_racer_is_present(racing, host, friend, sockets):
    for player in (host, friend):
        sockets.open(racing, player)
        services.race_join(code=racing.code, player=player, now=later(10))
    sockets.close(racing, host, later(20))
    services.race_presence(code=racing.code, now=later(20))
    assert race_abandoned_at(room=Room.objects.get(pk=racing.pk)) is None
    services.race_advance(code=racing.code, now=later(20 + 2 * RACE_AWAY_SECONDS))
    assert state(racing) == Room.State.RACING
