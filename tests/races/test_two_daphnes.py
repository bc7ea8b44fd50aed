"""Any process serves any socket: a race with the host on one Daphne process and the friend on another,
sharing the real PostgreSQL and Redis. Each hears the other's progress and both get the standings."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from websockets.asyncio.client import ClientConnection

from bench.cluster import ClusterError, Daphne, cluster, log_problems
from bench.race import Visitor
from tests.conftest import need_service

pytestmark = pytest.mark.services

# The countdown is the production one (5 s); everything else answers in well under a second.
WAIT_S = 15.0


async def until(socket: ClientConnection, test: Any) -> dict[str, Any]:
    """The first message from `socket` that `test` accepts."""
    async with asyncio.timeout(WAIT_S):
        while True:
            message = json.loads(await socket.recv())
            if test(message):
                return message


@pytest.fixture
def daphnes(redis_url: str, tmp_path: Path) -> Iterator[list[Daphne]]:
    parts = urlsplit(os.environ.get("DATABASE_URL", ""))
    if parts.scheme not in ("postgres", "postgresql"):
        need_service("DATABASE_URL does not name a PostgreSQL server")
    try:
        with cluster(
            daphnes=2,
            postgres_url=urlunsplit(parts._replace(path="/postgres")),
            database=f"race_two_daphnes_{os.getpid()}",
            redis_url=redis_url,
            workdir=tmp_path,
            extra_env={"LOG_LEVEL": "WARNING"},
        ) as started:
            yield started
            problems = [line for daphne in started for line in log_problems(daphne)]
            assert not problems, problems
    except ClusterError as error:
        pytest.fail(str(error))


async def test_racers_on_two_processes_see_each_others_progress_and_the_standings(daphnes, winning_game):
    first, second = daphnes
    host, friend = Visitor(first), Visitor(second)
    status, room = host.request("POST", "/api/races", {"code": winning_game["deal_code"]})
    assert status == 201, room
    assert friend.request("POST", f"/api/races/{room['code']}/join", {})[0] == 200
    host_room = await host.socket(room["ws"], on=first)
    friend_room = await friend.socket(room["ws"], on=second)
    friend_id = (await until(friend_room, lambda m: m["t"] == "welcome"))["player"]
    host_id = (await until(host_room, lambda m: m["t"] == "welcome"))["player"]

    await friend_room.send(json.dumps({"t": "ready", "ready": True, "n": 1}))
    await until(
        host_room, lambda m: m["t"] == "room" and any(r["player"] == friend_id and r["ready"] for r in m["racers"])
    )
    await host_room.send(json.dumps({"t": "start", "n": 1}))
    host_game = (await until(host_room, lambda m: m["t"] == "start"))["game"]
    friend_game = (await until(friend_room, lambda m: m["t"] == "start"))["game"]
    assert host_game["deal"] == friend_game["deal"] == winning_game["deal"]

    # Each plays on the other process than the one their room socket is on.
    host_play = await host.socket(f"{host_game['ws']}?v=1", on=second)
    friend_play = await friend.socket(f"{friend_game['ws']}?v=1", on=first)
    line = winning_game["moves"]
    for n, move in enumerate(line[:3], start=1):
        await host_play.send(json.dumps({"t": "move", "move": move, "n": n}))
        heard = await until(friend_room, lambda m: m["t"] == "progress" and m["player"] == host_id)
        assert (heard["v"], heard["piles"], heard["move"]) == (n + 1, 52 - n, move)
    await friend_play.send(json.dumps({"t": "move", "move": line[0], "n": 1}))
    heard = await until(host_room, lambda m: m["t"] == "progress" and m["player"] == friend_id)
    assert (heard["v"], heard["piles"]) == (2, 51)

    for n, move in enumerate(line[3:], start=4):
        await host_play.send(json.dumps({"t": "move", "move": move, "n": n}))
    await until(friend_room, lambda m: m["t"] == "progress" and m["player"] == host_id and m["status"] == "finished")
    assert friend.request("POST", f"/api/games/{friend_game['id']}/finish", {"moves": [line[0]]})[0] == 200
    for socket in (host_room, friend_room):
        table = (await until(socket, lambda m: m["t"] == "standings"))["standings"]
        assert [(entry["player"], entry["place"], entry["won"]) for entry in table] == [
            (host_id, 1, True),
            (friend_id, 2, False),
        ]
    for socket in (host_play, friend_play, host_room, friend_room):
        await socket.close()
