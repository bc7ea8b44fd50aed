"""What Daphne keeps for each open socket, for as long as it is open (bench/watch.py's "memory per
watcher"; docs/performance.md):

- an `asyncio.Queue` as the application's inbox: four deques (the queue's, its getters', its putters'
  and its `finished` event's), each with a 64-slot block allocated up front, about 2.9 KiB a socket.
  Daphne only puts without waiting and the consumer awaits one message at a time, so a socket's inbox
  here is a list and the one waiter.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any


class Inbox:
    """The messages Daphne puts for one application instance, awaited by one reader at a time."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.waiter: asyncio.Future[None] | None = None

    def put_nowait(self, message: dict[str, Any]) -> None:
        self.items.append(message)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def get(self) -> dict[str, Any]:
        while not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:  # cancelled or woken, the message (if any) stays in `items` for the next get
                self.waiter = None
        return self.items.pop(0)


def install() -> None:
    """Give Daphne's WebSocket application instances an Inbox (HTTP keeps Daphne's own queue: a request
    lives for moments, and Django's handler may await its messages from two tasks)."""
    try:
        from daphne.server import Server
    except ImportError:
        return
    if getattr(Server, "_socket_inbox_installed", False):
        return
    original = Server.create_application

    def create_application(self: Any, protocol: Any, scope: dict[str, Any]) -> Any:
        if scope.get("type") != "websocket":
            return original(self, protocol, scope)
        # Daphne's own method (daphne/server.py), with the inbox in place of its queue.
        assert "application_instance" not in self.connections[protocol]
        inbox = Inbox()
        scope.setdefault("asgi", {"version": "3.0"})
        instance = self.application(scope=scope, receive=inbox.get, send=partial(self.handle_reply, protocol))
        if protocol not in self.connections:
            return None
        self.connections[protocol]["application_instance"] = asyncio.ensure_future(instance)
        return inbox

    Server.create_application = create_application
    Server._socket_inbox_installed = True
