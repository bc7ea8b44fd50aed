"""The cheaper unmasking autobahn gets in a web process (realtime/frame_costs.py) reads every frame as
autobahn's own masker does, whole or in pieces."""

from __future__ import annotations

import random
import socket
from collections.abc import Callable
from typing import Any

import daphne.server
import pytest

from realtime import frame_costs
from realtime.frame_costs import XorMasker


def reference(mask: bytes, data: bytes, start: int = 0) -> bytes:
    return bytes(byte ^ mask[(start + index) & 3] for index, byte in enumerate(data))


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 40, 127, 128, 1000, 70_000])
def test_a_payload_is_unmasked_as_the_protocol_says(size: int) -> None:
    rng = random.Random(size)
    mask, data = rng.randbytes(4), rng.randbytes(size)
    masker = XorMasker(mask, size)
    assert masker.process(data) == reference(mask, data)
    assert masker.pointer() == size


def test_a_payload_arriving_in_pieces_is_unmasked_from_where_the_last_piece_ended() -> None:
    rng = random.Random(7)
    mask, data = rng.randbytes(4), rng.randbytes(301)
    masker = XorMasker(mask, len(data))
    pieces, at = [], 0
    for size in (1, 2, 7, 64, 3, 224):
        pieces.append(masker.process(data[at : at + size]))
        at += size
    assert b"".join(pieces) == reference(mask, data)
    masker.reset()
    assert masker.pointer() == 0
    assert masker.process(data[:9]) == reference(mask, data[:9])


def test_a_masked_text_message_from_a_client_reads_back() -> None:
    frame_costs.install()
    from autobahn.websocket import protocol

    message = b'{"t": "move", "move": [12, 3], "n": 57}'
    mask = b"\x9a\x01\xff\x10"
    masker = protocol.create_xor_masker(mask, len(message))
    assert masker.process(reference(mask, message)) == message


def test_a_socket_opening_pretty_prints_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """autobahn writes a new socket's settings into a debug line the site discards: not pretty-printed."""
    import pprint

    from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
    from twisted.internet.testing import StringTransport

    printed: list[object] = []
    pretty = pprint.PrettyPrinter.pformat

    def recorded(printer: pprint.PrettyPrinter, value: object) -> str:
        printed.append(value)
        return pretty(printer, value)

    monkeypatch.setattr(pprint.PrettyPrinter, "pformat", recorded)
    frame_costs.install()
    factory = WebSocketServerFactory()
    factory.protocol = WebSocketServerProtocol
    opened: Any = factory.buildProtocol(None)
    opened.makeConnection(StringTransport())
    assert opened.state == WebSocketServerProtocol.STATE_CONNECTING  # opened, waiting for its handshake
    assert printed == []


class Peer:
    """A TCP connection's state as Twisted keeps it, over one end of a socket pair; `queued` records
    what took Twisted's own (queued) write."""

    TLS = False
    connected = True
    _writeDisconnected = False
    SEND_LIMIT = 128 * 1024

    def __init__(self, socket: socket.socket) -> None:
        from twisted.internet import tcp

        self.socket = socket
        self.dataBuffer = b""
        self._tempDataBuffer: list[bytes] = []
        self.queued: list[bytes] = []
        self.write_some = tcp.Connection.writeSomeData

    def writeSomeData(self, data: bytes) -> object:
        return self.write_some(self, data)  # type: ignore[arg-type]  # a stand-in for Twisted's connection


@pytest.fixture
def prompt_write(monkeypatch: pytest.MonkeyPatch) -> Callable[[Peer, bytes], None]:
    from twisted.internet import tcp

    def queued(peer: Peer, data: bytes) -> None:
        peer.queued.append(data)
        peer._tempDataBuffer.append(data)

    monkeypatch.setattr(tcp.Connection, "write", queued)
    frame_costs.install()
    return tcp.Connection.write  # type: ignore[return-value]


def test_a_frame_goes_out_at_once_when_nothing_is_queued_and_after_what_is(prompt_write: Any) -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.setblocking(False)
        theirs.settimeout(1)
        peer = Peer(ours)
        prompt_write(peer, b"first")
        assert theirs.recv(100) == b"first" and peer.queued == []
        peer._tempDataBuffer.append(b"waiting")
        prompt_write(peer, b"second")
        assert peer.queued == [b"second"]  # behind what waits: in order, on the loop's turn


def test_what_the_socket_does_not_take_at_once_is_queued_in_order(prompt_write: Any) -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.setblocking(False)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        peer = Peer(ours)
        frame = bytes(range(256)) * 4096  # 1 MiB: more than a send takes
        prompt_write(peer, frame)
        assert len(peer.queued) == 1
        sent_at_once = len(frame) - len(peer.queued[0])
        assert 0 < sent_at_once < len(frame)
        assert peer.queued[0] == frame[sent_at_once:]


def text_frame(payload: bytes) -> bytes:
    """An unmasked, unfragmented text frame as RFC 6455 lays it out (a server's frames are not masked)."""
    size = len(payload)
    if size < 126:
        header = bytes([0x81, size])
    elif size < 2**16:
        header = bytes([0x81, 126]) + size.to_bytes(2, "big")
    else:
        header = bytes([0x81, 127]) + size.to_bytes(8, "big")
    return header + payload


class Socket:
    """Daphne's protocol for one socket, as far as a reply to it goes: what was written to it, framed
    once for many (`written`) or handed to Daphne's own reply (`replied`)."""

    STATE_OPEN = 3

    def __init__(self, state: int = STATE_OPEN) -> None:
        self.state = state
        self.written: list[bytes] = []
        self.replied: list[dict[str, Any]] = []

    def sendPreparedMessage(self, prepared: Any) -> None:
        self.written.append(prepared.payloadHybi)

    def handle_reply(self, message: dict[str, Any]) -> None:
        self.replied.append(message)


class Server(daphne.server.Server):  # type: ignore[misc]
    """Daphne's server with the sockets it has open, and nothing else."""

    def __init__(self, *sockets: Socket) -> None:
        self.connections: dict[Socket, dict[str, Any]] = {peer: {} for peer in sockets}


@pytest.mark.parametrize("size", [0, 125, 126, 65_535, 65_536])
async def test_a_frame_many_sockets_get_is_framed_once_and_written_to_each_as_it_is(size: int) -> None:
    frame_costs.install()
    text = "é" * (size // 2) + "x" * (size % 2)  # two bytes a letter: the length is counted in bytes
    message = frame_costs.shared(text)
    sockets = [Socket(), Socket()]
    server = Server(*sockets)
    for peer in sockets:
        await server.handle_reply(peer, message)
    assert [peer.written for peer in sockets] == [[text_frame(text.encode())]] * 2
    assert all(not peer.replied for peer in sockets)


async def test_a_shared_frame_reaches_no_socket_that_is_closing_or_gone() -> None:
    frame_costs.install()
    message = frame_costs.shared('{"t": "events"}')
    closing, gone, unknown = Socket(state=Socket.STATE_OPEN + 1), Socket(), Socket()
    server = Server(closing, gone)
    server.connections[gone]["disconnected"] = True
    for peer in (closing, gone, unknown):
        await server.handle_reply(peer, message)
    assert closing.written == gone.written == unknown.written == []


async def test_a_frame_for_one_socket_takes_daphnes_own_way() -> None:
    frame_costs.install()
    peer = Socket()
    message = {"type": "websocket.send", "text": '{"t": "ack"}'}
    await Server(peer).handle_reply(peer, message)
    assert peer.replied == [message] and peer.written == []
