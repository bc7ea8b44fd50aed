"""Per-frame costs of autobahn (Daphne's WebSocket library) and Twisted that serve nobody here
(bench/socket_floor.py measures them; docs/performance.md, "Daphne's floor"):

- every frame sent, and every read, builds (and colours) a discarded debug line's arguments: its
  helpers here hand the value on as it is; and every socket opened pretty-prints its 29 settings into
  another (`pformat`, 0.15 ms a socket: 7.5 % of a web process's GIL time while an arena's thousand
  first games open), here written by a plain `repr` (0.02 ms);
- every frame received gets a masker of its own (cffi buffers for a 40-byte move): this one unmasks
  the payload as one integer XOR, keeping autobahn's running position;
- Twisted queues every write behind two epoll changes and a turn of the loop: a TCP connection with
  nothing queued sends a frame at once and queues only what the socket did not take (TLS keeps
  Twisted's path);
- a frame many sockets get (a watched game's events) is encoded and framed for each of them: `shared`
  frames it once (autobahn's `PreparedMessage`, its broadcast API), and each socket writes those bytes.
"""

from __future__ import annotations

from typing import Any

# The key of a `websocket.send` message that carries its frame ready to write.
PREPARED = "prepared"
# autobahn's PreparedMessage once installed (a web process); None elsewhere: messages go as text alone.
_prepare: Any = None


def _as_is(value: Any, *args: Any, **kwargs: Any) -> Any:
    return value


def shared(text: str) -> dict[str, Any]:
    """A `websocket.send` message of `text` for many sockets, framed once where Daphne serves them."""
    message: dict[str, Any] = {"type": "websocket.send", "text": text}
    if _prepare is not None:
        message[PREPARED] = _prepare(text.encode(), isBinary=False, applyMask=False, doNotCompress=False)
    return message


class XorMasker:
    """Unmask (or mask) a payload with a frame's 4-byte key, from the payload's current position."""

    __slots__ = ("key", "position")

    def __init__(self, mask: bytes, length: int | None = None) -> None:
        self.key = bytes(mask)
        self.position = 0

    def pointer(self) -> int:
        return self.position

    def reset(self) -> None:
        self.position = 0

    def process(self, data: bytes) -> bytes:
        size = len(data)
        shift = self.position & 3
        self.position += size
        key = (self.key[shift:] + self.key[:shift]) * (size // 4 + 1)
        masked = int.from_bytes(data, "little") ^ int.from_bytes(key[:size], "little")
        return masked.to_bytes(size, "little")


def install() -> None:
    """Patch autobahn's WebSocket protocol and Twisted's TCP writes in this process (a no-op where
    autobahn is not installed)."""
    try:
        from autobahn.twisted import websocket
        from autobahn.websocket import protocol
    except ImportError:
        return
    for module in (protocol, websocket):
        patched: Any = module
        patched.hltype = patched.hlval = _as_is
    opening: Any = protocol
    opening.pformat = repr  # for its debug lines (and the timings it does not keep here)
    protocol.create_xor_masker = XorMasker  # type: ignore[assignment]
    _install_prompt_writes()
    _install_prepared_sends()


def _install_prompt_writes() -> None:
    from twisted.internet import tcp

    queued = getattr(tcp.Connection.write, "queued", tcp.Connection.write)  # Twisted's own, if installed twice

    def write(self: Any, data: bytes) -> None:
        """Twisted's `write`, sending at once what the socket takes when nothing is queued before it."""
        if self.TLS or not self.connected or self._writeDisconnected or self._tempDataBuffer or self.dataBuffer:
            queued(self, data)
            return
        sent = self.writeSomeData(data) if data else 0
        if isinstance(sent, int) and sent > 0:
            data = data[sent:]
        # The rest, or a failed send's data, takes Twisted's way: a failure then ends the connection there.
        if data:
            queued(self, data)

    write.queued = queued  # type: ignore[attr-defined]
    tcp.Connection.write = write  # type: ignore[method-assign]


def _install_prepared_sends() -> None:
    global _prepare
    from autobahn.websocket.protocol import PreparedMessage
    from daphne.server import Server

    reply = getattr(Server.handle_reply, "unprepared", Server.handle_reply)  # Daphne's own, if installed twice

    async def handle_reply(self: Any, protocol: Any, message: dict[str, Any]) -> None:
        """Daphne's `handle_reply`, writing a prepared frame as it is to a socket still open."""
        prepared = message.get(PREPARED)
        if prepared is None:
            await reply(self, protocol, message)
            return
        connection = self.connections.get(protocol)
        if connection is not None and not connection.get("disconnected") and protocol.state == protocol.STATE_OPEN:
            protocol.sendPreparedMessage(prepared)

    handle_reply.unprepared = reply  # type: ignore[attr-defined]
    Server.handle_reply = handle_reply
    _prepare = PreparedMessage
