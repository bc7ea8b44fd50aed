"""A room from the lobby to the standings, through its services: who sits, who may do what, when."""

from __future__ import annotations

import datetime

import pytest

from games.models import Game
from games.races import services
from games.races.errors import NotEnoughReady, NotHost, NotRacer, WrongState
from games.races.models import MAX_RACERS, Racer, Room
from games.races.selectors import ARRIVAL_SECONDS, HOST_AWAY_SECONDS, normalize_room_code, room_view
from games.serializers import game_payload

from .conftest import NOON, later

pytestmark = pytest.mark.django_db


def racers(room: Room) -> list[int]:
    return [entry["player"] for entry in room_view(room=Room.objects.get(pk=room.pk), now=later(60))["racers"]]


def test_a_new_room_has_a_short_unambiguous_code_and_the_creator_as_host_and_racer(room, host):
    assert normalize_room_code(room.code) == room.code and len(room.code) == 6
    assert not set(room.code) & set("01IO")
    assert room.host == host and room.state == Room.State.LOBBY
    assert racers(room) == [host.pk]


def test_the_room_code_is_read_whatever_the_case(room, friend):
    joined = services.race_join(code=room.code.lower(), player=friend, now=later(1))
    assert joined.seat is not None and joined.room.pk == room.pk


def test_a_friend_who_joins_the_lobby_takes_a_seat(room, host, friend):
    services.race_join(code=room.code, player=friend, now=later(1))
    assert racers(room) == [host.pk, friend.pk]


def test_a_full_room_seats_eight_and_the_ninth_watches(room, django_user_model):
    from accounts.models import Player

    for index in range(MAX_RACERS - 1):
        player = Player.objects.create(nickname=f"Racer {index}")
        assert services.race_join(code=room.code, player=player, now=later(1)).seat is not None
    late = Player.objects.create(nickname="Latecomer")
    assert services.race_join(code=room.code, player=late, now=later(2)).seat is None
    assert len(racers(room)) == MAX_RACERS


def test_someone_who_comes_after_the_start_watches(racing, third):
    assert services.race_join(code=racing.code, player=third, now=later(10)).seat is None
    assert third.pk not in racers(racing)


def test_a_racer_marks_ready_and_takes_it_back(room, friend):
    services.race_join(code=room.code, player=friend, now=later(1))
    services.race_ready(code=room.code, player=friend, ready=True, now=later(2))
    assert Racer.objects.get(player=friend).ready
    services.race_ready(code=room.code, player=friend, ready=False, now=later(2))
    assert not Racer.objects.get(player=friend).ready


def test_a_watcher_cannot_mark_ready(room, third):
    with pytest.raises(NotRacer):
        services.race_ready(code=room.code, player=third, ready=True, now=later(2))


def test_the_host_cannot_start_while_only_they_are_ready_and_a_friend_is_not(room, host, friend):
    services.race_join(code=room.code, player=friend, now=later(1))
    with pytest.raises(NotEnoughReady):
        services.race_start(code=room.code, player=host, now=later(2))
    assert Room.objects.get(pk=room.pk).state == Room.State.LOBBY


def test_with_two_ready_the_host_starts_a_countdown_to_an_absolute_time(lobby, host):
    news = services.race_start(code=lobby.code, player=host, now=later(3))
    stored = Room.objects.get(pk=lobby.pk)
    assert stored.state == Room.State.COUNTDOWN
    assert stored.starts_at == later(3 + services.COUNTDOWN_SECONDS)
    assert "countdown" in news.kinds


def test_a_host_alone_can_start_since_everyone_is_ready(room, host):
    services.race_start(code=room.code, player=host, now=later(1))
    assert Room.objects.get(pk=room.pk).state == Room.State.COUNTDOWN


def test_racers_who_are_not_ready_at_the_start_watch_the_round(lobby, host, third):
    services.race_join(code=lobby.code, player=third, now=later(2))
    services.race_start(code=lobby.code, player=host, now=later(3))
    assert racers(lobby) == [host.pk, lobby.racers.get(player__nickname="Friend").player_id]


def test_only_the_host_starts(lobby, friend):
    with pytest.raises(NotHost):
        services.race_start(code=lobby.code, player=friend, now=later(3))


def test_the_host_kicks_a_racer_before_the_start_and_they_cannot_sit_again(lobby, host, friend):
    services.race_kick(code=lobby.code, player=host, target=friend.pk, now=later(3))
    assert racers(lobby) == [host.pk]
    assert services.race_join(code=lobby.code, player=friend, now=later(4)).seat is None
    assert racers(lobby) == [host.pk]


def test_a_racer_who_is_not_host_cannot_kick(lobby, host, friend):
    with pytest.raises(NotHost):
        services.race_kick(code=lobby.code, player=friend, target=host.pk, now=later(3))


def test_nobody_is_kicked_after_the_start(racing, host, friend):
    with pytest.raises(WrongState):
        services.race_kick(code=racing.code, player=host, target=friend.pk, now=later(9))


def test_when_the_host_leaves_the_lobby_the_next_racer_becomes_host(lobby, host, friend):
    services.race_leave(code=lobby.code, player=host, now=later(3))
    stored = Room.objects.get(pk=lobby.pk)
    assert stored.host == friend and racers(lobby) == [friend.pk]


def test_when_the_host_leaves_during_the_race_the_next_racer_becomes_host(racing, host, friend):
    services.race_leave(code=racing.code, player=host, now=later(20))
    assert Room.objects.get(pk=racing.pk).host == friend


def host_closes_every_socket(room: Room, host, friend, sockets, *, friend_connected: bool = True) -> None:
    """Both racers' room sockets open, the friend not ready in a lobby (so it waits for the host); then
    the host's socket closes at later(10)."""
    if room.state == Room.State.LOBBY:
        services.race_ready(code=room.code, player=friend, ready=False, now=later(2))
    for player in (host, friend) if friend_connected else (host,):
        sockets.open(room, player)
        services.race_join(code=room.code, player=player, now=later(2))
    sockets.close(room, host, later(10))
    services.race_presence(code=room.code, now=later(10))


def test_a_host_away_from_the_lobby_hands_the_room_to_a_connected_racer_after_a_while(lobby, host, friend, sockets):
    host_closes_every_socket(lobby, host, friend, sockets)
    away = later(10 + HOST_AWAY_SECONDS)
    assert services.race_advance(code=lobby.code, now=away - datetime.timedelta(seconds=1)).kinds == []
    assert Room.objects.get(pk=lobby.pk).host == host  # a reload, or a short drop, keeps the host
    assert services.race_advance(code=lobby.code, now=away).kinds == ["changed"]
    assert Room.objects.get(pk=lobby.pk).host == friend and racers(lobby) == [host.pk, friend.pk]


def test_a_host_who_comes_back_in_time_keeps_the_room(lobby, host, friend, sockets):
    host_closes_every_socket(lobby, host, friend, sockets)
    sockets.open(lobby, host, "reloaded")
    services.race_join(code=lobby.code, player=host, now=later(20))
    services.race_advance(code=lobby.code, now=later(10 + HOST_AWAY_SECONDS + 60))
    assert Room.objects.get(pk=lobby.pk).host == host


def test_a_host_away_keeps_the_room_while_no_other_racer_is_connected(lobby, host, friend, sockets):
    host_closes_every_socket(lobby, host, friend, sockets, friend_connected=False)
    services.race_advance(code=lobby.code, now=later(10 + HOST_AWAY_SECONDS + 60))
    assert Room.objects.get(pk=lobby.pk).host == host


def test_a_racer_away_from_the_lobby_does_not_hold_up_the_start(room, host, friend, sockets):
    sockets.open(room, friend)
    services.race_join(code=room.code, player=friend, now=later(2))  # not ready
    with pytest.raises(NotEnoughReady):
        services.race_start(code=room.code, player=host, now=later(3))
    sockets.close(room, friend, later(4))
    services.race_presence(code=room.code, now=later(4))
    assert "countdown" in services.race_start(code=room.code, player=host, now=later(5)).kinds
    assert racers(room) == [host.pk]  # the friend watches this round


def test_a_racer_just_seated_holds_up_the_start_until_their_socket_comes(room, host, friend, third, sockets):
    """Opening the link seats the newcomer by `POST /join`, then opens their room socket: the others being
    ready in between does not start the race without them."""
    sockets.open(room, friend)
    services.race_join(code=room.code, player=friend, now=later(1))
    services.race_join(code=room.code, player=third, now=later(2))  # seated; the socket is on its way

    assert "countdown" not in services.race_ready(code=room.code, player=friend, ready=True, now=later(3)).kinds
    newcomer = Racer.objects.get(room=room, player=third)
    assert room_view(room=Room.objects.get(pk=room.pk), now=later(3))["waiting"] == [newcomer.pk]

    sockets.open(room, third)
    services.race_join(code=room.code, player=third, now=later(4))  # the socket's own join
    assert "countdown" in services.race_ready(code=room.code, player=third, ready=True, now=later(5)).kinds
    assert racers(room) == [host.pk, friend.pk, third.pk]


def test_a_racer_seated_whose_socket_never_comes_stops_holding_up_the_start(room, host, friend, third, sockets):
    sockets.open(room, friend)
    services.race_join(code=room.code, player=friend, now=later(1))
    services.race_join(code=room.code, player=third, now=later(2))
    services.race_ready(code=room.code, player=friend, ready=True, now=later(3))

    gone_quiet = later(2 + ARRIVAL_SECONDS)
    assert room_view(room=Room.objects.get(pk=room.pk), now=gone_quiet)["waiting"] == []
    services.race_ready(code=room.code, player=friend, ready=False, now=gone_quiet)
    assert "countdown" in services.race_ready(code=room.code, player=friend, ready=True, now=gone_quiet).kinds
    assert racers(room) == [host.pk, friend.pk]  # the newcomer watches this round


def connected(room: Room) -> dict[int, bool]:
    return {
        entry["player"]: entry["connected"]
        for entry in room_view(room=Room.objects.get(pk=room.pk), now=later(60))["racers"]
    }


def test_a_killed_process_s_sockets_leave_their_seats_by_expiry_and_its_host_hands_the_room_over(
    lobby, host, friend, sockets
):
    """A process killed with sockets open (kill -9, a lost machine) never says they closed: their presence
    expires, and the next look (any process's relay, a join) stores them as away since then."""
    services.race_ready(code=lobby.code, player=friend, ready=False, now=later(1))  # the lobby waits for them
    sockets.open(lobby, friend)
    sockets.open(lobby, host)
    services.race_join(code=lobby.code, player=host, now=later(2))
    assert connected(lobby) == {host.pk: True, friend.pk: True}
    sockets.close(lobby, host, later(8))  # its entry expires, unrenewed

    news = services.race_presence(code=lobby.code, now=later(12))

    assert news.kinds == ["changed"] and connected(lobby) == {host.pk: False, friend.pk: True}
    assert services.race_presence(code=lobby.code, now=later(13)).kinds == []  # every process may ask
    assert services.race_advance(code=lobby.code, now=later(8 + HOST_AWAY_SECONDS)).kinds == ["changed"]
    assert Room.objects.get(pk=lobby.pk).host == friend  # away since its entry expired


def test_a_racer_with_two_sockets_stays_connected_while_one_is_open(lobby, host, sockets):
    sockets.open(lobby, host, "one")
    sockets.open(lobby, host, "two")
    services.race_join(code=lobby.code, player=host, now=later(2))
    sockets.close(lobby, host, later(3), "one")
    services.race_presence(code=lobby.code, now=later(3))
    assert connected(lobby)[host.pk] is True
    sockets.close(lobby, host, later(4), "two")
    services.race_presence(code=lobby.code, now=later(4))
    assert connected(lobby)[host.pk] is False


def test_a_racer_who_leaves_shows_as_gone_not_connected(racing, host, friend, sockets):
    sockets.open(racing, friend)
    services.race_join(code=racing.code, player=friend, now=later(2))
    services.race_leave(code=racing.code, player=friend, now=later(20))
    assert Racer.objects.get(room=racing, player=friend).connected is False


def test_a_host_away_during_the_race_keeps_it_until_the_race_is_over(racing, host, friend, sockets):
    host_closes_every_socket(racing, host, friend, sockets)
    services.race_advance(code=racing.code, now=later(10 + HOST_AWAY_SECONDS))
    assert Room.objects.get(pk=racing.pk).host == host


def test_nothing_is_dealt_before_the_start_signal(lobby, host):
    services.race_start(code=lobby.code, player=host, now=later(3))
    services.race_advance(code=lobby.code, now=later(4))  # the countdown still runs
    stored = Room.objects.get(pk=lobby.pk)
    assert stored.state == Room.State.COUNTDOWN and stored.deal is None
    assert not Game.objects.filter(race_code=lobby.code).exists()


def test_at_the_start_signal_each_racer_gets_an_unranked_race_game_on_the_same_deal(racing, winning_game):
    games = list(Game.objects.filter(race_code=racing.code))
    assert len(games) == 2
    assert {game.deal.code for game in games} == {winning_game["deal_code"]}
    assert all(game.mode == Game.Mode.RACE and not game.ranked for game in games)
    assert not any(game_payload(game, now=later(60))["hints_open"] for game in games)  # no help in a race
    assert all(game.started_at == racing.starts_at for game in games)
    assert racing.state == Room.State.RACING and racing.ends_at == later(3 + services.COUNTDOWN_SECONDS + 600)


def test_a_fresh_deal_is_drawn_when_the_host_picked_none(host, friend):
    room = services.room_create(host=host, now=NOON)
    services.race_start(code=room.code, player=host, now=later(1))
    services.race_advance(code=room.code, now=later(1 + services.COUNTDOWN_SECONDS))
    stored = Room.objects.get(pk=room.pk)
    assert stored.state == Room.State.RACING and stored.deal is not None and stored.deal.code


def test_the_rematch_is_a_new_round_on_a_new_deal_with_the_same_racers(racing, host, friend, winning_game):
    for racer in (host, friend):
        game = Game.objects.get(race_code=racing.code, player=racer)
        from games.services import game_finish

        game_finish(game_id=game.pk, player=racer, moves=[], now=later(30))
    services.race_rematch(code=racing.code, player=host, confirm=True, now=later(40))
    stored = Room.objects.get(pk=racing.pk)
    assert stored.state == Room.State.LOBBY and stored.round == 2 and stored.deal is None
    assert racers(stored) == [host.pk, friend.pk]
    services.race_ready(code=stored.code, player=friend, ready=True, now=later(41))
    services.race_start(code=stored.code, player=host, now=later(42))
    services.race_advance(code=stored.code, now=later(42 + services.COUNTDOWN_SECONDS))
    new_deals = {game.deal.code for game in Game.objects.filter(race_code=stored.code, started_at__gt=later(40))}
    assert len(new_deals) == 1 and new_deals != {winning_game["deal_code"]}


def test_a_rematch_is_asked_for_only_after_the_race(racing, host, friend):
    with pytest.raises(WrongState):
        services.race_rematch(code=racing.code, player=friend, confirm=False, now=later(9))
    with pytest.raises(WrongState):
        services.race_rematch(code=racing.code, player=host, confirm=True, now=later(9))


def test_the_host_sets_the_time_limit_and_picks_a_deal_that_stays_secret(host, friend, winning_game):
    room = services.room_create(host=host, now=NOON)
    services.race_settings(code=room.code, player=host, time_limit=180)
    services.race_settings(code=room.code, player=host, deal_code=winning_game["deal_code"].lower())
    view = room_view(room=Room.objects.get(pk=room.pk), now=later(1))
    assert view["time_limit"] == 180 and view["deal_picked"] and view["deal_code"] is None
    services.race_start(code=room.code, player=host, now=later(2))
    services.race_advance(code=room.code, now=later(2 + services.COUNTDOWN_SECONDS))
    assert Room.objects.get(pk=room.pk).deal.code == winning_game["deal_code"]


def test_an_empty_deal_code_goes_back_to_a_fresh_deal(room, host):
    services.race_settings(code=room.code, player=host, deal_code="")
    assert not room_view(room=Room.objects.get(pk=room.pk), now=later(1))["deal_picked"]


@pytest.mark.parametrize(("settings", "code"), [({"time_limit": 30}, "invalid"), ({"deal_code": "ZZZ"}, "invalid")])
def test_settings_out_of_bounds_are_refused(room, host, settings, code):
    with pytest.raises(services.RaceError) as refusal:
        services.race_settings(code=room.code, player=host, **settings)
    assert refusal.value.code == code


def test_only_the_host_changes_the_settings(lobby, friend):
    with pytest.raises(NotHost):
        services.race_settings(code=lobby.code, player=friend, time_limit=300)
