"""Watchers' and live-list sockets for the tests, and waiting for what they hear."""

from __future__ import annotations

import weakref
from typing import Any

from channels.testing import WebsocketCommunicator

from accordion_site.asgi import application
from accounts.models import Player
from games.models import Game

from ..sockets import FROM_THE_SITE, session_cookie_for

# Time enough for a socket message a test waits for (the counts are written every half second).
HEAR_S = 5.0
CONNECT_S = 30.0


async def watch_socket(game_id: int, viewer: Player | None, *, v: int | None = None) -> WebsocketCommunicator:
    """An unconnected communicator for /ws/watch/<id>/ (resuming after version `v`) with `viewer`'s session."""
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(viewer))]
    query = "" if v is None else f"?v={v}"
    return WebsocketCommunicator(application, f"/ws/watch/{game_id}/{query}", headers=headers)


async def live_socket(viewer: Player | None) -> WebsocketCommunicator:
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(viewer))]
    return WebsocketCommunicator(application, "/ws/live/", headers=headers)


async def watching(game: Game, viewer: Player | None, *, v: int | None = None) -> WebsocketCommunicator:
    """A connected watcher; its first messages (the state, the count) are left for the test to read."""
    socket = await watch_socket(game.pk, viewer, v=v)
    # Generous: a test may open a hundred at once, and the machine is shared.
    accepted, _ = await socket.connect(timeout=CONNECT_S)
    assert accepted
    return socket


# What each socket has received and a test has not read yet: the rest of its last frame.
_unread: weakref.WeakKeyDictionary[WebsocketCommunicator, list[dict[str, Any]]] = weakref.WeakKeyDictionary()


async def next_message(socket: WebsocketCommunicator, *, timeout: float = HEAR_S) -> dict[str, Any]:
    """The next message the socket hears, in order: an `events` frame gives its events one by one, then
    the messages that rode in it (its `also`: a count, a badge)."""
    unread = _unread.setdefault(socket, [])
    if not unread:
        frame = await socket.receive_json_from(timeout=timeout)
        unread += [*frame["events"], *frame.get("also", [])] if frame["t"] == "events" else [frame]
    return unread.pop(0)


async def frame_heard(socket: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    """The next whole frame of type `kind`, skipping others (and what is left of the last one read)."""
    _unread.pop(socket, None)
    while (frame := await socket.receive_json_from(timeout=HEAR_S))["t"] != kind:
        pass
    return frame  # type: ignore[no-any-return]


async def heard(socket: WebsocketCommunicator, kind: str, *, timeout: float = HEAR_S) -> dict[str, Any]:
    """The next message of type `kind`, skipping others (counts and badges come when they come)."""
    while True:
        message = await next_message(socket, timeout=timeout)
        if message["t"] == kind:
            return message


async def events_heard(socket: WebsocketCommunicator, count: int) -> list[dict[str, Any]]:
    """The next `count` events the socket hears; none is a `state`."""
    found: list[dict[str, Any]] = []
    while len(found) < count:
        message = await next_message(socket)
        assert message["t"] != "state", message
        if message["t"] == "event":
            found.append(message)
    return found


async def count_heard(socket: WebsocketCommunicator, watchers: int, *, timeout: float = HEAR_S) -> None:
    """Wait until the socket is told that `watchers` are watching."""
    while (await heard(socket, "crowd", timeout=timeout))["watchers"] != watchers:
        pass


async def counted(game: Game, viewer: Player | None) -> WebsocketCommunicator:
    """A connected watcher that has been counted (its first `crowd` comes after it is)."""
    socket = await watching(game, viewer)
    await heard(socket, "crowd", timeout=CONNECT_S)
    return socket


async def until_quiet(socket: WebsocketCommunicator, *, quiet: float) -> list[dict[str, Any]]:
    """Every message the socket hears until it hears nothing for `quiet` seconds."""
    messages = []
    while _unread.get(socket) or not await socket.receive_nothing(timeout=quiet):
        messages.append(await next_message(socket))
    return messages


async def last_count(socket: WebsocketCommunicator, *, quiet: float = 1.5) -> int | None:
    """The last count the socket is told before it hears nothing for `quiet` seconds."""
    counts = [message["watchers"] for message in await until_quiet(socket, quiet=quiet) if message["t"] == "crowd"]
    return counts[-1] if counts else None
