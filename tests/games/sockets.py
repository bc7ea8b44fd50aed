"""Helpers for socket tests: a communicator that arrives from the site's page with a player's session
cookie."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from accordion_site.asgi import application
from accounts.models import Player
from accounts.selectors import SESSION_PLAYER_KEY

SITE_HOST = b"127.0.0.1:8000"
ALLOWED_ORIGIN = b"http://" + SITE_HOST
# What a browser on a page of the site (`make run`'s) sends with a socket's handshake.
FROM_THE_SITE = [(b"host", SITE_HOST), (b"origin", ALLOWED_ORIGIN)]


@database_sync_to_async
def session_cookie_for(player: Player | None) -> bytes:
    session = SessionStore()
    if player is not None:
        session[SESSION_PLAYER_KEY] = player.pk
    session.create()
    return f"sessionid={session.session_key}".encode()


async def game_socket(
    game_id: int, player: Player | None, *, v: int | None = None, origin: bytes = ALLOWED_ORIGIN
) -> WebsocketCommunicator:
    """An unconnected communicator for /ws/games/<id>/ (resuming after version `v`, if given) carrying
    `player`'s session, from a page at `origin` on the site."""
    headers = [(b"host", SITE_HOST), (b"origin", origin), (b"cookie", await session_cookie_for(player))]
    query = "" if v is None else f"?v={v}"
    return WebsocketCommunicator(application, f"/ws/games/{game_id}/{query}", headers=headers)


async def refusal(socket: WebsocketCommunicator) -> tuple[int | None, dict[str, Any] | None]:
    """Connect a socket the server should refuse; return its close code and the `refused` message
    that came before it (None when the handshake itself was refused)."""
    accepted, close_code = await socket.connect()
    if not accepted:
        await socket.disconnect()  # as Daphne does after a refusal, so the consumer ends cleanly
        return close_code, None
    message = await socket.receive_json_from()
    closing = await socket.receive_output()
    assert closing["type"] == "websocket.close", closing
    await socket.disconnect()
    return closing["code"], message
