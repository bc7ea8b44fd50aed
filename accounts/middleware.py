"""Which player a socket belongs to, decided once when it connects (HTTP views ask
accounts.selectors.player_from_session per request)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from channels.middleware import BaseMiddleware
from django.conf import settings

from accordion_site.db import db_call

from .selectors import player_from_session


class SocketSessionMiddleware:
    """Puts the session named by the handshake's cookie in `scope["session"]`, read-only. Goes inside
    Channels' CookieMiddleware, which parses `scope["cookies"]`.

    Channels' SessionMiddleware loads it the same way but also wraps every frame the socket sends, so
    as to save a changed session on an HTTP response: each frame looked through the lazy session twice
    for a save that never comes on a socket (a socket never writes its session). That cost 2.6 % of a
    web process's time in bench/load.py and 4.5 % in bench/race.py, where every move becomes frames
    for several sockets."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        session = self.session_store(scope["cookies"].get(settings.SESSION_COOKIE_NAME))
        return await self.inner({**scope, "session": session}, receive, send)


class PlayerMiddleware(BaseMiddleware):
    """Puts the session's Player in `scope["player"]` (None for a visitor who has not played), so that
    consumers never look the session up themselves. Goes inside SocketSessionMiddleware, which loads
    `scope["session"]` first. (Channels' AuthMiddleware is left out: `player_from_session` checks the
    account's login itself, and a lazy `scope["user"]` nobody reads cost every socket a hop to
    Channels' shared database thread and memory for as long as it stays open.)"""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if "session" not in scope:
            raise ValueError("PlayerMiddleware needs the session: wrap it in SocketSessionMiddleware")
        # The lookup runs on the database threads shared by the consumers (thread_sensitive=False), not on
        # Channels' one thread per process that every socket would queue for.
        player = await db_call(player_from_session)(scope["session"])
        return await super().__call__({**scope, "player": player}, receive, send)
