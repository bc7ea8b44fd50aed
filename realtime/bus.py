"""The process's bus: one channel-layer subscription per group per process, however many local sockets
and services listen to it, so a message costs one delivery per process, not one per socket; and one
publisher that sends what committed transactions announce.

A message is generic: its group (`game.12`, `race.ABC123`), kind, version, frame (the JSON text clients
get, encoded once where the change was made and never decoded on the way out) and optional plain `data`
for listeners that act on it (a race's progress, a sign-out). The bus also keeps the process's
long-lived services (watching, race rooms, presence, sign-outs), one per event loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from asgiref.sync import async_to_sync
from autobahn.exception import Disconnected
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

from accordion_site.errors import OUTAGES, log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task

from .loop_db import close_loop_connections
from .shards import GroupMessage, ShardPublisher, ShardSubscriber

logger = logging.getLogger(__name__)

# The channel-layer message type of every bus message.
BUS_MESSAGE = "bus.message"


@dataclass(frozen=True, slots=True)
class Message:
    group: str
    kind: str
    v: int = 0
    frame: str = ""
    data: dict[str, Any] | None = None

    def for_layer(self) -> dict[str, Any]:
        return {"type": BUS_MESSAGE, "group": self.group, "kind": self.kind, "v": self.v, "frame": self.frame,
                "data": self.data}  # fmt: skip


class Listener(Protocol):
    async def hear(self, message: Message) -> None:
        """Act on one message of a group this listener follows (write it to a socket, say)."""


class Service(Protocol):
    async def stop(self) -> None: ...


S = TypeVar("S", bound=Service)


async def deliver_to_one_of_many(delivery: Awaitable[None], what: str, *args: object) -> None:
    """Await one listener's copy of a message that many get. A socket that is closing (autobahn's
    `Disconnected`: its disconnect is on the way and will take it out) is skipped quietly; any other
    failure is logged, naming the message, and never keeps it from the others."""
    try:
        await delivery
    except Disconnected:
        pass
    except Exception:
        raise_if_stopping()
        logger.exception(what + " was not delivered to a socket", *args)


class Bus:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        layer = get_channel_layer()
        # On Redis the bus sends and follows groups on connections of its own, else through the layer.
        self.outlet: ShardPublisher | LayerLink
        self.inlet: ShardSubscriber | LayerLink
        if isinstance(layer, RedisPubSubChannelLayer):
            self.outlet, self.inlet = ShardPublisher(layer), ShardSubscriber(layer, self._hear)
        else:
            self.outlet = self.inlet = LayerLink(layer, self._hear)
        self.listeners: dict[str, set[Listener]] = {}
        self.ready = asyncio.Lock()
        self.services: dict[str, tuple[Service, asyncio.Task[None]]] = {}
        self.outbox: asyncio.Queue[Message] = asyncio.Queue()
        self.idle = asyncio.Event()  # nothing queued or being sent
        self.idle.set()
        self.failures = 0  # batches that could not be sent
        self.publisher = loop.create_task(self._publish())

    async def subscribe(self, group: str, listener: Listener) -> None:
        async with self.ready:
            listeners = self.listeners.get(group)
            if not listeners:
                # Kept only once subscribed, or a failed subscription (Redis away) would deafen the group.
                await self.inlet.subscribe(group)
                listeners = self.listeners[group] = set()
            listeners.add(listener)

    async def unsubscribe(self, group: str, listener: Listener) -> None:
        async with self.ready:
            listeners = self.listeners.get(group)
            if listeners is None or listener not in listeners:
                return
            listeners.discard(listener)
            if not listeners:
                del self.listeners[group]
                await self.inlet.unsubscribe(group)

    def following(self, group: str) -> int:
        return len(self.listeners.get(group, ()))

    async def deliver(self, message: Message) -> None:
        for listener in tuple(self.listeners.get(message.group, ())):
            await deliver_to_one_of_many(listener.hear(message), "%s: %s v%s", message.group, message.kind, message.v)

    def put(self, message: Message) -> None:
        """Publish `message` from this bus's loop, in order; callable from any thread."""
        if _running_loop() is self.loop:
            self._enqueue(message)
        else:
            self.loop.call_soon_threadsafe(self._enqueue, message)

    def _enqueue(self, message: Message) -> None:
        self.idle.clear()
        self.outbox.put_nowait(message)

    async def published(self, *, since: int) -> bool:
        """Wait until everything queued so far is sent; whether no batch failed since `failures` was
        `since` (a socket whose change could not be announced tells its client to come back for it)."""
        await self.idle.wait()
        return self.failures == since

    async def service(self, name: str, make: Callable[[Bus], S], start: Callable[[S], Coroutine[Any, Any, None]]) -> S:
        """The process's one service called `name`, made and started on first use. A start that meets an
        outage is forgotten, so a later socket starts it afresh instead of every one failing alike."""
        found = self.services.get(name)
        if found is None:
            made = make(self)
            found = self.services[name] = (made, self.loop.create_task(start(made)))
        starting = found[1]
        try:
            await asyncio.shield(starting)
        except OUTAGES:
            if self.services.get(name) is found:
                del self.services[name]
            raise
        return found[0]  # type: ignore[return-value]

    async def stop(self) -> None:
        """Stop the services, reading and publishing (for an event loop that is about to close)."""
        global _current
        for made, starting in reversed(list(self.services.values())):
            if starting.done() and not starting.cancelled() and starting.exception() is None:
                await made.stop()
        self.services.clear()
        with _current_lock:
            if _current is self:
                _current = None
        await stop_task(self.publisher)
        await self.inlet.close()
        await self.outlet.close()
        await close_loop_connections()

    async def _hear(self, raw: dict[str, Any]) -> None:
        if raw.get("type") == BUS_MESSAGE:
            await self.deliver(Message(raw["group"], raw["kind"], raw["v"], raw["frame"], raw.get("data")))

    async def _publish(self) -> None:
        while True:
            raise_if_stopping()  # a cancel that a send swallowed whole
            # Everything committed since the last send goes out together: one round trip to Redis.
            batch = [await self.outbox.get()]
            while not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            try:
                await send(self.outlet, batch)
            except Exception:
                raise_if_stopping()
                # What was announced is stored; clients that missed it catch up by version.
                self.failures += 1
                names = ", ".join(f"{message.group} {message.kind} v{message.v}" for message in batch)
                log_background_failure(logger, "could not be published: %s", names)
            if self.outbox.empty():
                self.idle.set()


async def send(outlet: ShardPublisher | LayerLink, batch: Sequence[Message]) -> None:
    await outlet.group_send_many([(message.group, message.for_layer()) for message in batch])


async def _ignore(raw: dict[str, Any]) -> None:
    """What a link that only sends does with a message."""


class LayerLink:
    """Sending to and following groups through the channel layer itself, one message at a time: the
    in-memory layer of the embedded default, and a process with no bus running."""

    def __init__(self, layer: Any, hear: Callable[[dict[str, Any]], Awaitable[None]] = _ignore) -> None:
        self.layer = layer
        self.hear = hear
        self.channel: str | None = None
        self.reader: asyncio.Task[None] | None = None

    async def subscribe(self, group: str) -> None:
        if self.channel is None:
            self.channel = await self.layer.new_channel(prefix="bus.")
            self.reader = asyncio.get_running_loop().create_task(self._read(self.channel))
        await self.layer.group_add(group, self.channel)

    async def unsubscribe(self, group: str) -> None:
        if self.channel is not None:
            await self.layer.group_discard(group, self.channel)

    async def group_send_many(self, messages: Sequence[GroupMessage]) -> None:
        for group, message in messages:
            await self.layer.group_send(group, message)

    async def _read(self, channel: str) -> None:
        while True:
            await self.hear(await self.layer.receive(channel))

    async def close(self) -> None:
        if self.reader is not None:
            await stop_task(self.reader)
            self.reader = None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a database thread
        return None


_buses: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Bus] = weakref.WeakKeyDictionary()
# The bus that publishes for this process's threads (the newest one a socket started).
_current_lock = threading.Lock()
_current: Bus | None = None


def running_bus() -> Bus | None:
    return _buses.get(asyncio.get_running_loop())


def bus() -> Bus:
    """This process's bus (one per event loop, which in a Daphne process means one)."""
    global _current
    loop = asyncio.get_running_loop()
    found = _buses.get(loop)
    if found is None:
        found = _buses[loop] = Bus(loop)
        with _current_lock:
            _current = found
    return found


def publish(message: Message) -> None:
    """Send a committed change to its group's listeners in every process, once, from any thread."""
    if _running_loop() is not None:
        bus().put(message)  # from a socket's own loop (a statement sent from the loop itself)
        return
    current = _current
    if current is not None and current.loop.is_running() and not current.loop.is_closed():
        current.put(message)
        return
    # No socket loop in this process (a management command, a sync test): send it from here.
    try:
        async_to_sync(send)(LayerLink(get_channel_layer()), [message])
    except Exception:
        log_background_failure(logger, "%s: %s v%s could not be published", message.group, message.kind, message.v)
