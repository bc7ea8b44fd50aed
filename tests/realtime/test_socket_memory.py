"""A socket's inbox under Daphne (realtime/socket_memory.py): every message Daphne puts reaches the
consumer once, in order, whether the consumer was waiting or not, and a read cancelled half-way loses
nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from realtime import socket_memory
from realtime.socket_memory import Inbox


async def test_messages_come_out_in_the_order_daphne_put_them() -> None:
    inbox = Inbox()
    inbox.put_nowait({"type": "websocket.connect"})
    inbox.put_nowait({"type": "websocket.receive", "text": "1"})
    assert await inbox.get() == {"type": "websocket.connect"}
    assert await inbox.get() == {"type": "websocket.receive", "text": "1"}


async def test_a_reader_waiting_gets_the_message_put_after_it_began_to_wait() -> None:
    inbox = Inbox()
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()
    inbox.put_nowait({"type": "websocket.receive", "text": "move"})
    inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
    assert await asyncio.wait_for(reader, 1) == {"type": "websocket.receive", "text": "move"}
    assert await inbox.get() == {"type": "websocket.disconnect", "code": 1000}


async def test_a_read_cancelled_while_waiting_leaves_the_next_message_for_the_next_read() -> None:
    inbox = Inbox()
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    inbox.put_nowait({"type": "websocket.disconnect", "code": 1001})
    assert await asyncio.wait_for(inbox.get(), 1) == {"type": "websocket.disconnect", "code": 1001}


class StandInServer:
    """What Daphne's `Server.create_application` uses of its server: its connections and application."""

    def __init__(self) -> None:
        self.connections: dict[Any, dict[str, Any]] = {}
        self.heard: list[dict[str, Any]] = []

    async def application(self, *, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.heard.append(await receive())

    async def handle_reply(self, protocol: Any, message: dict[str, Any]) -> None:
        raise AssertionError("nothing is sent here")


@pytest.mark.parametrize(("kind", "inbox_type"), [("websocket", Inbox), ("http", asyncio.Queue)])
async def test_daphne_gives_a_socket_an_inbox_and_a_request_its_own_queue(kind: str, inbox_type: type) -> None:
    from daphne.server import Server

    socket_memory.install()
    server, protocol = StandInServer(), object()
    server.connections[protocol] = {}
    inbox = Server.create_application(server, protocol, {"type": kind})  # type: ignore[arg-type]
    assert isinstance(inbox, inbox_type)
    inbox.put_nowait({"type": f"{kind}.connect"})
    await asyncio.wait_for(server.connections[protocol]["application_instance"], 1)
    assert server.heard == [{"type": f"{kind}.connect"}]
