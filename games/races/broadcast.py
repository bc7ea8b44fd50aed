"""Room messages: built once from the stored room, after the change that caused them has committed,
and sent once to the room's channel-layer group `race.<code>`, which each process's relay hears
(games/races/relay.py)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from accordion_site.db import db_call
from games.serializers import game_payload

from . import protocol
from .models import Room
from .selectors import host_away_until, room_get, room_racers, room_readers, room_view
from .serializers import room_payload
from .services import RoomNews

# The channel-layer message type the relays listen for.
ROOM_MESSAGE = "race.room"


def group_name(code: str) -> str:
    return f"race.{code}"


def room_message(*, code: str, kinds: Iterable[str], now: datetime.datetime, starts: bool) -> dict[str, Any]:
    """The channel-layer message that tells every process where the room stands: its frames, encoded
    once (`room`, and `countdown` or `standings` when `kinds` says so), each racer's `start` frame when
    `starts` (the deal is in it: only for the racing room), and what the relays act on (the racers'
    games to follow, the times to act at, the ghosts to replay), and who may be sent it (`readers`:
    games/withheld.py)."""
    kinds = set(kinds)
    room = room_get(code=code)
    view = room_view(room=room, now=now)
    frames = [protocol.encode(protocol.room(payload=room_payload(view)))]
    if "countdown" in kinds and room.state == Room.State.COUNTDOWN and room.starts_at is not None:
        frames.append(protocol.encode(protocol.countdown(starts_at=room.starts_at, server_now=now)))
    if "finished" in kinds and room.state == Room.State.FINISHED:
        frames.append(protocol.encode(protocol.standings(entries=view["standings"])))
    racing = room.state == Room.State.RACING
    racers = room_racers(room=room) if racing else []
    humans = [racer for racer in racers if racer.player_id is not None and racer.game is not None]
    return {
        "type": ROOM_MESSAGE,
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
        "ghosts": [[racer.pk, racer.ghost_id, racer.ghost.player_id] for racer in racers if racer.ghost is not None],
        "starts_at": _isoformat(room.starts_at),
        "ends_at": _isoformat(room.ends_at),
        "host_away_until": _isoformat(host_away_until(room=room)),
        "time_limit": room.time_limit,
        # Who may be sent it: each socket refuses itself when its player is not among them.
        "readers": room_readers(room=room, today=now.date()),
    }


def _isoformat(moment: datetime.datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _news_message(news: RoomNews) -> dict[str, Any]:
    return room_message(code=news.code, kinds=news.kinds, now=timezone.now(), starts="started" in news.kinds)


async def announce(news: RoomNews) -> None:
    """Tell every process's sockets of the room what `news` says changed (it is stored already)."""
    if not news.kinds:
        return
    message = await db_call(_news_message)(news)
    await get_channel_layer().group_send(group_name(message["code"]), message)


def announce_from_sync(news: RoomNews) -> None:
    """`announce`, from a request's thread (the REST views): the message is read on this thread."""
    if news.kinds:
        message = _news_message(news)
        async_to_sync(get_channel_layer().group_send)(group_name(message["code"]), message)
