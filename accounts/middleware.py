"""Which player a socket belongs to, decided once when it connects (HTTP views ask
accounts.selectors.player_from_session per request)."""

from __future__ import annotations

from typing import Any

from channels.middleware import BaseMiddleware

from accordion_site.db import db_call

from .selectors import player_from_session


class PlayerMiddleware(BaseMiddleware):
    """Puts the session's Player in `scope["player"]` (None for a visitor who has not played), so that
    consumers never look the session up themselves. Goes inside SessionMiddlewareStack, which loads
    `scope["session"]` first. (Channels' AuthMiddleware is left out: `player_from_session` checks the
    account's login itself, and a lazy `scope["user"]` nobody reads cost every socket a hop to
    Channels' shared database thread and memory for as long as it stays open.)"""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if "session" not in scope:
            raise ValueError("PlayerMiddleware needs the session: wrap it in SessionMiddlewareStack")
        # The lookup runs on the database threads shared by the consumers (thread_sensitive=False), not on
        # Channels' one thread per process that every socket would queue for.
        player = await db_call(player_from_session)(scope["session"])
        return await super().__call__({**scope, "player": player}, receive, send)
