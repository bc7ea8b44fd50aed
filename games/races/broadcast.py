"""Rooms are streams: every stored change to a room (a new `Room.version`) is announced once its
transaction commits, from one place (`announce_on_commit`, called by the services' `_save`), as one
room message on the room's bus group `race.<code>`."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games.serializers import game_payload
from realtime.bus import Message, publish

from . import protocol
from .models import Room
from .selectors import host_away_until, room_get, room_racers, room_readers, room_view
from .serializers import room_payload

ROOM = "room"  # the bus message kind of a room's change


def group_name(code: str) -> str:
    return f"race.{code}"


def racer_who(player_id: int) -> str:
    return f"player:{player_id}"


def room_message(*, code: str, kinds: Iterable[str], now: datetime.datetime, starts: bool) -> dict[str, Any]:
    """Where the room stands, for every process: its frames, encoded once (`room`, and `countdown` or
    `standings` as `kinds` says), each racer's `start` when `starts`, what the relays act on, and who
    may be sent it (`readers`)."""
    kinds = set(kinds)
    room = room_get(code=code)
    seats = room_racers(room=room)
    view = room_view(room=room, now=now, racers=seats)
    frames = [protocol.encode(protocol.room(payload=room_payload(view)))]
    if "countdown" in kinds and room.state == Room.State.COUNTDOWN and room.starts_at is not None:
        frames.append(protocol.encode(protocol.countdown(starts_at=room.starts_at, server_now=now)))
    if kinds & {"standings", "finished"} and view["standings"] is not None:
        final = room.state == Room.State.FINISHED
        frames.append(protocol.encode(protocol.standings(entries=view["standings"], final=final)))
    racing = room.state == Room.State.RACING
    racers = seats if racing else []
    humans = [racer for racer in racers if racer.player_id is not None and racer.game is not None]
    return {
        "code": room.code,
        "version": room.version,
        "state": room.state,
        "frames": frames,
        "starts": {
            str(racer.player_id): protocol.encode(protocol.start(game=game_payload(racer.game, now=now)))  # type: ignore[arg-type]
            for racer in humans
            if starts
        },
        "games": [[racer.game_id, racer.pk, racer.player_id] for racer in humans],
        "racers": {
            racer_who(seat.player_id): seat.connected for seat in seats if seat.player_id and seat.left_at is None
        },
        "ghosts": [[racer.pk, racer.ghost_id, racer.ghost.player_id] for racer in racers if racer.ghost is not None],
        "starts_at": _isoformat(room.starts_at),
        "ends_at": _isoformat(room.ends_at),
        "host_away_until": _isoformat(host_away_until(room=room)),
        "time_limit": room.time_limit,
        "readers": room_readers(room=room, today=now.date()),
    }


def _isoformat(moment: datetime.datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


@dataclass(slots=True)
class RoomNews:
    """What a transaction changed in a room ("changed", "countdown", "started", "standings", "finished"),
    announced once it commits."""

    code: str
    kinds: list[str] = field(default_factory=list)

    def add(self, *kinds: str) -> None:
        self.kinds.extend(kind for kind in kinds if kind not in self.kinds)

    def __call__(self) -> None:
        if self.kinds:
            message = room_message(code=self.code, kinds=self.kinds, now=timezone.now(), starts="started" in self.kinds)
            publish(Message(group_name(self.code), ROOM, message["version"], data=message))


def announce_on_commit(code: str, *kinds: str) -> RoomNews:
    """One announcement per room and transaction, carrying every kind of change it made."""
    savepoints = set(connection.savepoint_ids)
    for entry in connection.run_on_commit:
        pending = entry[1]
        # Registered at the same depth: a savepoint rolled back drops the announcement with its change.
        if isinstance(pending, RoomNews) and pending.code == code and entry[0] == savepoints:
            pending.add(*kinds)
            return pending
    news = RoomNews(code=code, kinds=list(kinds))
    transaction.on_commit(news, robust=True)
    return news
