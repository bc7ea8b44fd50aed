"""The edges every socket passes around its consumer: the page's origin, outages, unknown paths, and
how many sockets one player may hold. A refusal (but the origin's) is accepted, told
`{"t": "refused", "error", "code"}`, then closed with a code the browser sees."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlparse

from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings

from accordion_site.errors import OUTAGES
from accordion_site.handshake import handshake_header

from .protocol import encode, refused

logger = logging.getLogger(__name__)

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[Any]]

# "Try again later": the client reconnects and resumes by version. Daphne will not send WebSocket's own
# 1013, and 4000-4999 tell clients not to reconnect, so it is 3503 (as HTTP's 503).
CLOSE_TRY_AGAIN = 3503
CLOSE_SERVER_ERROR = 1011
CLOSE_NOT_ALLOWED = 4403
CLOSE_NOT_FOUND = 4404  # no such game, room or socket path
CLOSE_TOO_MANY = 4429  # too many messages from a socket, or too many sockets from a player
UNAVAILABLE = "the service is briefly unavailable: try again"


class SiteOriginValidator(OriginValidator):
    """Outermost: a socket opens only from the site's own pages, so that a page served on another port of
    the same host cannot open a player's socket with their cookies. As Django's CSRF check does, the
    whole Origin (scheme, host, port) must be the handshake's own Host or one of CSRF_TRUSTED_ORIGINS,
    and its host one of ALLOWED_HOSTS; a foreign one's handshake is closed unaccepted."""

    def __init__(self, application: ASGIApp) -> None:
        super().__init__(application, allowed_origins=[])  # they depend on each handshake's Host

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if self.allows(origin=handshake_header(scope, b"origin"), host=handshake_header(scope, b"host")):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)

    def allows(self, *, origin: str | None, host: str | None) -> bool:
        if origin is None or host is None:
            return False
        # A socket does not know whether TLS ended in front of it: its own origin may have either scheme.
        own = [f"http://{host}", f"https://{host}"]
        # Channels writes Django's "https://*.example.com" as "https://.example.com"; Django matches
        # nothing with an entry that has no scheme (and its system check refuses one), nor does this.
        trusted = [entry.replace("://*.", "://.", 1) for entry in settings.CSRF_TRUSTED_ORIGINS if "://" in entry]
        try:
            parsed = urlparse(origin)
            allowed_host = any(
                pattern == "*" or self.match_allowed_origin(parsed, pattern) for pattern in settings.ALLOWED_HOSTS
            )
            return allowed_host and any(self.match_allowed_origin(parsed, pattern) for pattern in [*own, *trusted])
        except ValueError:  # a port that is not a number, an unclosed "[": no browser sends these
            return False


async def refuse(
    receive: Any, send: Any, *, error: str, code: str, close_code: int, connected: bool = False, accepted: bool = False
) -> None:
    """Answer a socket with a reason and a close code, accepting it first if nobody has."""
    if not connected and (await receive())["type"] != "websocket.connect":
        return  # the client left before its handshake was answered
    if not accepted:
        await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": encode(refused(error=error, code=code))})
    await send({"type": "websocket.close", "code": close_code})


async def no_such_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The last route: a socket path no consumer serves is closed with 4404."""
    await refuse(receive, send, error="no such socket", code="not_found", close_code=CLOSE_NOT_FOUND)


class OutageGuard:
    """Outermost: when the database or Redis is down, a socket is refused or closed with 3503 ("try again
    later") instead of failing its handshake with a 500 or its connection with 1011."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        connected = accepted = closed = False

        async def tracked_receive() -> dict[str, Any]:
            nonlocal connected
            message: dict[str, Any] = await receive()
            connected = connected or message["type"] == "websocket.connect"
            return message

        async def tracked_send(message: dict[str, Any]) -> None:
            nonlocal accepted, closed
            accepted = accepted or message["type"] == "websocket.accept"
            closed = closed or message["type"] == "websocket.close"
            await send(message)

        try:
            return await self.inner(scope, tracked_receive, tracked_send)
        except OUTAGES as error:
            logger.warning("socket %s: outage, client told to try again: %r", scope.get("path"), error)
            if not closed:
                await refuse(
                    receive,
                    send,
                    error=UNAVAILABLE,
                    code="unavailable",
                    close_code=CLOSE_TRY_AGAIN,
                    connected=connected,
                    accepted=accepted,
                )
            return None


class SocketsPerPlayer:
    """Inside SocketPlayerMiddleware: at most SOCKETS_PER_PLAYER open sockets per player or session in this
    process (SOCKETS_PER_ADDRESS per address without a session): hundreds from one client slowed
    everyone else's acks."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        owner = _owner(scope)
        limit = settings.SOCKETS_PER_ADDRESS if owner.startswith("address:") else settings.SOCKETS_PER_PLAYER
        if self.open[owner] >= limit:
            logger.warning("socket %s refused: %s holds %d sockets", scope.get("path"), owner, self.open[owner])
            await refuse(
                receive,
                send,
                error="too many open sockets: close some tabs",
                code="too_many_sockets",
                close_code=CLOSE_TOO_MANY,
            )
            return None
        self.open[owner] += 1
        try:
            return await self.inner(scope, receive, send)
        finally:
            self.open[owner] -= 1
            if not self.open[owner]:
                del self.open[owner]


def _owner(scope: dict[str, Any]) -> str:
    player = scope.get("player")
    if player is not None:
        return f"player:{player.pk}"
    session = scope.get("session")
    session_key = getattr(session, "session_key", None)
    if session_key:
        return f"session:{session_key}"
    client = scope.get("client") or ("?", 0)
    return f"address:{client[0]}"
