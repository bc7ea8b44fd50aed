"""Race rooms for the tests: a host, friends, a room on a deal with a known winning line, and a
started race."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from accounts.models import Player
from games.races import services
from games.races.broadcast import group_name, racer_who
from games.races.models import Room
from realtime import presence

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


def later(seconds: float) -> datetime.datetime:
    return NOON + datetime.timedelta(seconds=seconds)


class Sockets:
    """Room sockets as the presence store has them (this process's memory: realtime/presence.py), so a
    service test says whose socket is open, and when one closed."""

    OPEN = 4_000_000_000.0  # an entry that expires in 2096

    def __init__(self, store: presence.LocalStore) -> None:
        self.store = store

    def open(self, room: Room, player: Player, socket: str = "tab") -> None:
        self.store.write({(group_name(room.code), racer_who(player.pk)): {socket: self.OPEN}})

    def close(self, room: Room, player: Player, at: datetime.datetime, socket: str = "tab") -> None:
        self.store.write({(group_name(room.code), racer_who(player.pk)): {socket: at.timestamp()}})


@pytest.fixture
def sockets(monkeypatch: pytest.MonkeyPatch) -> Sockets:
    local = presence.LocalStore()
    monkeypatch.setattr(presence, "store", lambda: local)
    return Sockets(local)


@pytest.fixture
def host(db: None) -> Player:
    return Player.objects.create(nickname="Hostess")


@pytest.fixture
def friend(db: None) -> Player:
    return Player.objects.create(nickname="Friend")


@pytest.fixture
def third(db: None) -> Player:
    return Player.objects.create(nickname="Third")


@pytest.fixture
def room(host: Player, winning_game: dict[str, Any]) -> Room:
    """A lobby on the winning game's deal, the host its only racer."""
    return services.room_create(host=host, deal_code=winning_game["deal_code"], now=NOON)


@pytest.fixture
def lobby(room: Room, friend: Player) -> Room:
    """The room with the friend seated too, both ready."""
    services.race_join(code=room.code, player=friend, now=later(1))
    services.race_ready(code=room.code, player=friend, ready=True, now=later(2))
    return room


@pytest.fixture
def racing(lobby: Room, host: Player) -> Room:
    """The lobby's race, past its start signal: both racers have their game."""
    services.race_start(code=lobby.code, player=host, now=later(3))
    services.race_advance(code=lobby.code, now=later(3 + services.COUNTDOWN_SECONDS))
    return Room.objects.get(pk=lobby.pk)
