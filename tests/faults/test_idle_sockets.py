"""A peer that goes silent (a laptop lid shut, a phone off the network) stops answering Daphne's pings:
the server closes its socket about `--ping-interval` plus `--ping-timeout` seconds after it last heard
from it, instead of holding it until `--websocket_timeout` (a day). A client that answers the pings stays
connected however long it sends nothing. Production's flags (deploy/accordion-daphne@.service) are 20 and
30 seconds; here they are 1 and 1, on a real Daphne."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import struct
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.datastructures import Headers
from websockets.typing import Origin

from bench.cluster import Daphne, PreparedSite, log_problems
from tests.faults.conftest import production_cluster

pytestmark = pytest.mark.services

PING_INTERVAL_S = 1
PING_TIMEOUT_S = 1
# Daphne looks for idle sockets every 2 s: a silent peer is pinged up to 2 s after its interval is up.
CHECK_EVERY_S = 2
# autobahn times the ping's timeout on txaio's batched timer, which rounds the moment it falls due down to
# a whole second of the wall clock: the timeout may end up to 1 s early.
TIMER_GRAIN_S = 1
# At the latest: interval, one check and the timeout, with room for a busy machine's delays.
CLOSED_WITHIN_S = PING_INTERVAL_S + CHECK_EVERY_S + PING_TIMEOUT_S + 6.0
OPCODE_TEXT = 0x1
OPCODE_PING = 0x9
OPCODE_CLOSE = 0x8


async def silent_socket(daphne: Daphne, path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket handshake from the site's page, written by hand; the peer then never answers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", daphne.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{daphne.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {daphne.origin}\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


async def next_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The opcode and payload of the server's next frame."""
    first, second = await reader.readexactly(2)
    length = second & 0x7F  # a server's frames are not masked
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    return first & 0x0F, await reader.readexactly(length)


async def frames_until_closed(reader: asyncio.StreamReader) -> list[int]:
    """The opcodes of the frames the server sends, until it ends the connection."""
    opcodes: list[int] = []
    try:
        while True:
            opcodes.append((await next_frame(reader))[0])
    except (asyncio.IncompleteReadError, ConnectionResetError):
        return opcodes


async def test_a_socket_that_stops_answering_pings_is_closed_and_one_that_answers_stays_open(
    tmp_path: Path, redis_url: str, production_site: PreparedSite
):
    options = ["--ping-interval", str(PING_INTERVAL_S), "--ping-timeout", str(PING_TIMEOUT_S)]
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url, daphnes=1, daphne_options=options) as (
        daphne,
    ):
        answering = await connect(
            f"ws://127.0.0.1:{daphne.port}/ws/live/",
            origin=Origin(daphne.origin),
            additional_headers=Headers(),
            ping_interval=None,  # it sends no pings of its own; it answers the server's (as browsers do)
            compression=None,
        )
        # The server's ping timer starts with the connection, so the clock starts before the handshake. Daphne,
        # autobahn and Twisted time pings and their timeout on the wall clock: measured on the same clock, a
        # step of the machine's clock during the test moves both ends alike.
        opened = time.time()
        reader, writer = await silent_socket(daphne, "/ws/live/")
        async with asyncio.timeout(CLOSED_WITHIN_S):
            opcodes = await frames_until_closed(reader)
        closed_after = time.time() - opened
        writer.close()

        assert OPCODE_PING in opcodes, f"the server pinged the silent peer before closing it: {opcodes}"
        assert PING_INTERVAL_S + PING_TIMEOUT_S - TIMER_GRAIN_S < closed_after <= CLOSED_WITHIN_S
        # The answering socket was idle as long, and pinged at the same checks: it is still open both ways.
        async with asyncio.timeout(5):
            await (await answering.ping())
        await answering.close()
        assert log_problems(daphne) == []


async def test_a_client_slow_to_answer_the_servers_close_still_gets_its_code_and_a_clean_end(
    tmp_path: Path, redis_url: str, production_site: PreparedSite
):
    """autobahn gives a client at most 1 s to answer the server's close frame, then resets the connection;
    a browser busy loading a page answered later and lost the close frame with its code (a refusal's 4403
    read as 1006, and the page retried). Daphne here gives it CLOSE_HANDSHAKE_S less up to TIMER_GRAIN_S
    (realtime/daphne_limits.py)."""
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url, daphnes=1) as (daphne,):
        reader, writer = await silent_socket(daphne, "/ws/games/-1/")  # no such socket: refused with 4404
        async with asyncio.timeout(5):
            frames = [await next_frame(reader), await next_frame(reader)]
        assert [opcode for opcode, _ in frames] == [OPCODE_TEXT, OPCODE_CLOSE]
        assert struct.unpack("!H", frames[1][1][:2]) == (4404,)

        await asyncio.sleep(2.5)  # busy: more than autobahn's 1 s, less than CLOSE_HANDSHAKE_S - TIMER_GRAIN_S
        with pytest.raises(TimeoutError):  # nothing came: no reset, no end; the server still waits
            await asyncio.wait_for(reader.read(1), timeout=0.2)
        mask = os.urandom(4)
        payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(struct.pack("!H", 1000)))
        writer.write(bytes([0x80 | OPCODE_CLOSE, 0x80 | len(payload)]) + mask + payload)
        async with asyncio.timeout(5):  # answered, the server ends the connection (autobahn may reset it)
            with contextlib.suppress(ConnectionResetError):
                assert await reader.read() == b""
        writer.close()
        assert log_problems(daphne) == []
