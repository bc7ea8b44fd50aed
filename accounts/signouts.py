"""An account's open sockets (game, watch, race room) close when the session they were opened with stops
being logged in to it: a password change elsewhere (every other session is logged out), a logout, the
account deleted. A socket is the account's for as long as it is open, so without this a tab left open
on another device kept playing for the account after its owner changed the password.

The service that signs sessions out publishes the account's id to every process (a channel-layer group
each process's bus hears); each process looks again at the sessions of that account's sockets it holds
and closes those no longer logged in, with `{"t": "refused", "code": "signed_out"}` and close code 4401.
A socket opened with a session a password change has signed out is refused the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext_lazy

from accordion_site.db import db_call
from accordion_site.languages import socket_language
from realtime.bus import Message, bus, deliver_to_one_of_many, publish
from realtime.edges import ASGIApp, refuse
from realtime.protocol import encode, refused

from .selectors import player_from_session

logger = logging.getLogger(__name__)

GROUP = "accounts.signouts"
CLOSE_SIGNED_OUT = 4401
SIGNED_OUT = gettext_lazy("this session is signed out of the account (a password change or a logout): log in again")


@dataclass(eq=False)
class AccountSocket:
    session_key: str
    language: str  # of the handshake, for the refusal
    send: Callable[[dict[str, Any]], Awaitable[None]]


# This process's open sockets of accounts, by player id.
_open: dict[int, set[AccountSocket]] = {}


def signout_publish(*, player_id: int, kept_session: str | None = None) -> None:
    """Once the current transaction commits, have every process close the account's sockets whose session
    is no longer logged in to it. `kept_session`: the key the sockets of the session that made the change
    were opened with; it stays logged in under a new key (Django cycles the key on a password change),
    which its open sockets do not know."""

    transaction.on_commit(lambda: publish(Message(GROUP, "signout", data={"player": player_id, "kept": kept_session})))


def _still_logged_in(session_key: str, player_id: int) -> bool:
    player = player_from_session(import_module(settings.SESSION_ENGINE).SessionStore(session_key))
    return player is not None and player.pk == player_id


class SignOuts:
    """Hears the sign-outs on the bus, for this process's sockets of accounts."""

    async def hear(self, message: Message) -> None:
        assert message.data is not None
        await _close_signed_out(message.data["player"], message.data["kept"])


_signouts = SignOuts()


async def _close_signed_out(player_id: int, kept: str | None) -> None:
    for socket in tuple(_open.get(player_id, ())):
        if socket.session_key == kept or await db_call(_still_logged_in)(socket.session_key, player_id):
            continue
        _open.get(player_id, set()).discard(socket)
        logger.info("socket of player %s closed: its session is signed out", player_id)
        await deliver_to_one_of_many(_refuse_open(socket), "player %s: sign-out", player_id)


async def _refuse_open(socket: AccountSocket) -> None:
    with translation.override(socket.language):
        text = encode(refused(error=str(SIGNED_OUT), code="signed_out"))
    await socket.send({"type": "websocket.send", "text": text})
    await socket.send({"type": "websocket.close", "code": CLOSE_SIGNED_OUT})


class SignedOutSocketsClosed:
    """Inside SocketPlayerMiddleware: keeps track of this process's sockets of accounts, so that a sign-out
    elsewhere closes them, and refuses a socket whose session a password change has signed out."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        player, session = scope.get("player"), scope.get("session")
        if player is None and session is not None and session.get(SESSION_KEY) is not None:
            logger.info("socket %s refused: its session is signed out", scope.get("path"))
            with translation.override(socket_language(scope)):
                error = str(SIGNED_OUT)
            await refuse(receive, send, error=error, code="signed_out", close_code=CLOSE_SIGNED_OUT)
            return None
        if player is None or not player.is_account or session is None or session.session_key is None:
            return await self.inner(scope, receive, send)
        await bus().subscribe(GROUP, _signouts)
        socket = AccountSocket(session_key=session.session_key, language=socket_language(scope), send=send)
        _open.setdefault(player.pk, set()).add(socket)
        try:
            return await self.inner(scope, receive, send)
        finally:
            sockets = _open.get(player.pk)
            if sockets is not None:
                sockets.discard(socket)
                if not sockets:
                    del _open[player.pk]
