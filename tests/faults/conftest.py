"""Fault tests run the site as production does — Daphne processes with DEBUG off on PostgreSQL and
Redis — on a fresh database of their own, then break something for real: kill a process, restart Redis,
cut the database's connections. They talk to the processes only over HTTP and WebSocket, like browsers.

Under CI a missing PostgreSQL, Redis or `redis-server` fails these tests; elsewhere they are skipped."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from websockets.asyncio.client import ClientConnection

from bench.cluster import ClusterError, Daphne, PreparedSite, cluster
from bench.race import Visitor
from tests.conftest import need_service
from tests.production import postgres_server_url

from .processes import RedisServer, TcpRelay

# Every answer the tests wait for comes in well under a second; a race's countdown takes 5 s, and a
# request during a database outage waits for the connection pool's timeout (10 s).
WAIT_S = 20.0
RECOVERY_S = 30.0


@contextmanager
def production_cluster(
    tmp_path: Path,
    *,
    site: PreparedSite,
    redis_url: str,
    daphnes: int = 2,
    extra_env: dict[str, str] | None = None,
    daphne_options: Sequence[str] = (),
) -> Iterator[list[Daphne]]:
    try:
        with cluster(
            daphnes=daphnes,
            postgres_url=postgres_server_url(),
            database=f"faults_{os.getpid()}",
            redis_url=redis_url,
            workdir=tmp_path,
            extra_env={"LOG_LEVEL": "WARNING", **(extra_env or {})},
            daphne_options=daphne_options,
            prepared=site,
        ) as started:
            yield started
    except ClusterError as error:
        pytest.fail(str(error))


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis server only this test uses, so that restarting it disturbs no one else."""
    executable = shutil.which("redis-server")
    if executable is None:
        need_service("redis-server is not installed")
    server = RedisServer(executable, tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def database_relay() -> Iterator[TcpRelay]:
    """A relay in front of the PostgreSQL server, which the test can cut and restore."""
    parts = urlsplit(postgres_server_url())
    relay = TcpRelay(parts.hostname or "127.0.0.1", parts.port or 5432)
    relay.start()
    try:
        yield relay
    finally:
        relay.stop()


def relayed_database_url(relay: TcpRelay) -> str:
    """The test database's URL with the relay in place of the PostgreSQL server."""
    parts = urlsplit(postgres_server_url())
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@127.0.0.1:{relay.port}" if credentials else f"127.0.0.1:{relay.port}"
    return urlunsplit(parts._replace(netloc=netloc, path=f"/faults_{os.getpid()}"))


async def until(socket: ClientConnection, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first message from `socket` that `test` accepts."""
    async with asyncio.timeout(WAIT_S):
        while True:
            message = json.loads(await socket.recv())
            if test(message):
                return message


@dataclass(frozen=True, slots=True)
class StartedRace:
    """A race of two racers at its start signal: the room socket's path, each racer's room socket, player
    id and game (its `ws` is the game's socket)."""

    ws: str
    host_room: ClientConnection
    friend_room: ClientConnection
    host_id: int
    friend_id: int
    host_game: dict[str, Any]
    friend_game: dict[str, Any]


async def start_race(host: Visitor, friend: Visitor, *, deal_code: str) -> StartedRace:
    """The host opens a room on the deal, the friend joins and is ready (everyone present is: the race
    starts by itself): each racer's room socket is on the racer's own process, and has heard the start
    signal."""
    status, room = host.request("POST", "/api/races", {"code": deal_code})
    assert status == 201, room
    assert friend.request("POST", f"/api/races/{room['code']}/join", {})[0] == 200
    host_room, friend_room = await host.socket(room["ws"]), await friend.socket(room["ws"])
    host_id = (await until(host_room, lambda m: m["t"] == "welcome"))["player"]
    friend_id = (await until(friend_room, lambda m: m["t"] == "welcome"))["player"]
    await friend_room.send(json.dumps({"t": "ready", "ready": True, "n": 1}))
    await until(
        host_room, lambda m: m["t"] == "room" and any(r["player"] == friend_id and r["ready"] for r in m["racers"])
    )
    host_game = (await until(host_room, lambda m: m["t"] == "start"))["game"]
    friend_game = (await until(friend_room, lambda m: m["t"] == "start"))["game"]
    return StartedRace(room["ws"], host_room, friend_room, host_id, friend_id, host_game, friend_game)


async def places(room_socket: ClientConnection) -> list[tuple[int, int, bool]]:
    """The final standings a room socket hears: (player, place, won) for each racer, in order."""
    table = (await until(room_socket, lambda m: m["t"] == "standings" and m["final"]))["standings"]
    return [(entry["player"], entry["place"], entry["won"]) for entry in table]


async def answer(socket: ClientConnection, n: int) -> dict[str, Any]:
    """The ack or reject of this socket's message `n`."""
    return await until(socket, lambda m: m["t"] in ("ack", "reject") and m.get("n") == n)


async def play(socket: ClientConnection, moves: list[list[int]], *, first_n: int = 1) -> list[dict[str, Any]]:
    """Send the moves one by one, each after the previous one's answer; every one must be acked."""
    acks = []
    for n, move in enumerate(moves, start=first_n):
        await socket.send(json.dumps({"t": "move", "move": move, "n": n}))
        reply = await answer(socket, n)
        assert reply["t"] == "ack", reply
        acks.append(reply)
    return acks


async def caught_up_line(socket: ClientConnection, version: int) -> list[list[int]]:
    """Read a freshly (re)connected `?v=1` socket's catch-up up to `version`: the line its events tell."""
    line: list[list[int]] = []
    while version > 1 + len(line):
        event = await until(socket, lambda m: m["t"] in ("event", "state"))
        assert event["t"] == "event", "a client resuming by version gets the events it missed, not a state"
        assert event["v"] == 2 + len(line), event
        line.append(event["move"])
    return line


async def request(visitor: Visitor, method: str, path: str, body: object = None) -> tuple[int, Any]:
    """An HTTP request off the event loop, so that the test's sockets keep reading meanwhile."""
    return await asyncio.to_thread(visitor.request, method, path, body)


def health(daphne: Daphne) -> int:
    """The status /healthz of this process answers: 200 when its database and Redis answer."""
    connection = http.client.HTTPConnection("127.0.0.1", daphne.port, timeout=WAIT_S)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    finally:
        connection.close()


def wait_until_healthy(daphnes: list[Daphne]) -> None:
    """Poll every process's /healthz until each says the database and Redis answer again."""
    deadline = time.monotonic() + RECOVERY_S
    for daphne in daphnes:
        while (status := health(daphne)) != 200:
            assert time.monotonic() < deadline, f"{daphne.origin} still answers /healthz with {status}"
            time.sleep(0.2)
