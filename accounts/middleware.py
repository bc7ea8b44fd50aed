"""Which player a socket belongs to, decided once when it connects (HTTP views ask
accounts.selectors.player_from_session per request)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.http import parse_cookie

from accordion_site.db import db_call
from accordion_site.handshake import handshake_header

from .selectors import player_from_session


class SocketPlayerMiddleware:
    """Reads, once per socket, the handshake's cookies into `scope["cookies"]`, the session they name into
    `scope["session"]` (read-only) and the session's Player into `scope["player"]` (None for a visitor
    who has not played), so that consumers never look the session up themselves.

    One layer, one copy of the scope: each layer's frame and scope stay in memory for as long as its
    socket is open, which Channels' CookieMiddleware, SessionMiddleware and AuthMiddleware in a row
    would triple. Channels' SessionMiddleware would also wrap every frame the socket sends, to save a
    changed session on an HTTP response that never comes on a socket: each frame looked through the
    lazy session twice (2.6 % of a web process's time in bench/load.py, 4.5 % in bench/race.py). Its
    AuthMiddleware's lazy `scope["user"]`, which nobody reads, would cost every socket a hop to Channels'
    one database thread per process: `player_from_session` checks the account's login itself, on the
    database threads the consumers share (thread_sensitive=False)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        cookies = parse_cookie(handshake_header(scope, b"cookie") or "")
        session = self.session_store(cookies.get(settings.SESSION_COOKIE_NAME))
        player = await db_call(player_from_session)(session)
        return await self.inner({**scope, "cookies": cookies, "session": session, "player": player}, receive, send)
