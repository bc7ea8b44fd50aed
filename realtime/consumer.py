"""The base of every live socket (game, watch, live list, race room), and its conventions:

- accepted first, then served or refused: a refusal is `{"t": "refused", "error", "code"}` and a
  4xxx close (a close before accepting reaches a browser as a bare HTTP 403, without the code);
- an outage answers "try again" (3503), and a socket that fails leaves what it joined (its disconnect
  runs even when Channels would not run it);
- flood control: a socket over its message rate is told to slow down, and closed after FLOOD_STRIKES;
- `?v=` resume: a socket that follows a versioned stream catches up from the version its client has,
  and holds what the bus brings meanwhile, sending it in version order once caught up;
- no channel of its own: its messages come through the process's bus (realtime/bus.py), so it awaits
  its client's messages alone, and it skips Channels' per-message hop to its shared database thread
  (its database calls manage their own).
"""

from __future__ import annotations

import json
import logging
from functools import cached_property
from typing import Any
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import translation
from django.utils.translation import gettext as _

from accordion_site.errors import OUTAGES, ServiceError
from accordion_site.languages import socket_language

from . import protocol
from .bus import Message
from .edges import CLOSE_NOT_ALLOWED, CLOSE_NOT_FOUND, CLOSE_SERVER_ERROR, CLOSE_TOO_MANY, CLOSE_TRY_AGAIN, UNAVAILABLE

logger = logging.getLogger(__name__)

# Refused messages over the rate a socket may send before the server hangs up on it.
FLOOD_STRIKES = 100
# A client further behind than this gets the whole state instead of the events it missed.
MAX_CATCH_UP_EVENTS = 50


class LiveSocket(AsyncWebsocketConsumer):
    disconnect_began = False
    rate: protocol.MessageRate | None = None  # made on the first message: most sockets only listen
    strikes = 0
    # Bus messages heard while the socket catches up, sent in version order once it has; None once live.
    held: list[Message] | None = None
    # The newest version of its stream this socket has been sent, and older ones it still expects (an
    # ack jumped over them: changes stored elsewhere just before the socket's own, not yet heard).
    version_sent = -1
    jumped: set[int] = frozenset()  # type: ignore[assignment]

    @property
    def described(self) -> str:
        """What this socket serves, for the log ("game 12")."""
        return str(self.scope.get("path"))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await self._serve(scope, receive, send)
        except Exception as failure:
            # A consumer that fails gets no disconnect from Channels: it runs its own, so that it does
            # not stay for good in what it joined (a game's listeners, a room, its presence).
            if not self.disconnect_began:
                self.disconnect_began = True
                code = CLOSE_TRY_AGAIN if isinstance(failure, OUTAGES) else CLOSE_SERVER_ERROR
                try:
                    await self.disconnect(code)
                except Exception as error:
                    logger.warning(
                        "socket %s: could not leave what it joined after a failure: %r", self.described, error
                    )
            raise

    async def _serve(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Channels' `AsyncConsumer.__call__` for a consumer with no channel layer: each message from the
        client is awaited and dispatched in turn, without the task and `asyncio.wait` that Channels'
        `await_many_dispatch` spends on every message to listen to a channel this socket does not have."""
        self.scope = scope
        self.channel_layer = None
        self.base_send = send
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.disconnect_began = True
        await super().websocket_disconnect(message)

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        with translation.override(self.language):
            await handler(message)

    @cached_property
    def language(self) -> str:
        """The language of this socket's refusals, chosen once from its handshake."""
        return socket_language(self.scope)

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        # A frame written after the client began to close has no reader: its disconnect is on the way.
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            return

    async def send_frame(self, message: dict[str, Any]) -> None:
        """Write a prepared `websocket.send` message: the one text many sockets of the process get."""
        await self.base_send(message)

    async def send_content(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content))

    # --- refusals and flood control ---

    async def refuse(self, error: ServiceError, *, close_code: int | None = None) -> None:
        logger.warning("socket for %s refused: %s", self.described, error.message)
        await self.send(text_data=protocol.encode(protocol.refused(error=error.message, code=error.code)))
        await self.close(code=close_code or (CLOSE_NOT_FOUND if error.status == 404 else CLOSE_NOT_ALLOWED))

    async def refuse_outage(self) -> None:
        await self.refuse(ServiceError(UNAVAILABLE, code="unavailable", status=503), close_code=CLOSE_TRY_AGAIN)

    async def over_rate(self) -> bool:
        """Whether the message just received is over the rate (and so refused, or the socket closed)."""
        if self.rate is None:
            self.rate = protocol.MessageRate()
        if self.rate.allow():
            return False
        self.strikes += 1
        if self.strikes >= FLOOD_STRIKES:
            logger.warning("%s: socket closed for flooding", self.described)
            await self.close(code=CLOSE_TOO_MANY)
        else:
            await self.send_content(
                protocol.reject(n=None, error=_("too many messages: slow down"), code="rate_limited")
            )
        return True

    # --- a versioned stream: resume, hold while catching up ---

    @cached_property
    def since(self) -> int | None:
        """The `?v=` a reconnecting client sends: the last version it has."""
        values = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get("v", [])
        return int(values[0]) if values and values[0].isdigit() and len(values[0]) < 10 else None

    def hold(self) -> None:
        """Hold what the bus brings from now on, until `release`."""
        if self.held is None:
            self.held = []

    async def hear(self, message: Message) -> None:
        if self.held is not None:
            self.held.append(message)
        else:
            await self.on_message(message)

    async def on_message(self, message: Message) -> None:
        """Write a message of the socket's stream (once it is live): an event newer than any sent, or
        one an ack jumped over."""
        if message.v > self.version_sent:
            self.version_sent = message.v
            await self.send(text_data=message.frame)
        elif message.v in self.jumped:
            self.jumped.discard(message.v)
            await self.send(text_data=message.frame)

    async def release(self, *, below: int | None = None) -> None:
        """Send the held messages under version `below` in order and keep holding the rest; with no
        bound, send them all and stop holding. Messages that arrive meanwhile join the queue."""
        while self.held:
            self.held.sort(key=lambda message: message.v)
            if below is not None and self.held[0].v >= below:
                return
            await self.on_message(self.held.pop(0))
        if below is None:
            self.held = None

    async def caught_up(self, version: int, frames: list[str]) -> None:
        """Send the frames that bring the client to `version`, then what was held meanwhile."""
        for frame in frames:
            await self.send(text_data=frame)
        self.version_sent = max(self.version_sent, version)
        self.jumped = set()  # all older than `version`: the frames covered them
        await self.release()

    async def acknowledged(self, ack: dict[str, Any]) -> None:
        """Send the answer to the socket's own change (version `ack["v"]`): others' changes stored before
        it first, its own event never, and the events it jumped over when they come."""
        await self.release(below=ack["v"])
        await self.send_content(ack)
        if 0 <= self.version_sent < ack["v"] - 1 and ack["v"] - self.version_sent <= MAX_CATCH_UP_EVENTS:
            self.jumped = {*self.jumped, *range(self.version_sent + 1, ack["v"])}
        self.version_sent = max(self.version_sent, ack["v"])
        await self.release()

    async def answer_outage(self, n: int | None, error: BaseException) -> None:
        """A message failed in an outage: nothing was stored (each change is one transaction)."""
        logger.warning("%s: message %s failed, outage: %r", self.described, n, error)
        await self.release()
        await self.send_content(protocol.reject(n=n, error=UNAVAILABLE, code="unavailable"))
