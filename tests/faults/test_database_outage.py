"""PostgreSQL goes away for a while (the relay between the Daphne processes and the database is cut):
requests and socket messages are told to try again, nothing half-written remains, and play resumes by
itself when the database is back."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import psycopg
import pytest
from websockets.asyncio.client import connect
from websockets.typing import Origin

from bench.cluster import PreparedSite
from bench.race import Visitor
from realtime.edges import CLOSE_TRY_AGAIN
from tests.faults.conftest import (
    answer,
    health,
    play,
    production_cluster,
    relayed_database_url,
    request,
    until,
    wait_until_healthy,
)
from tests.faults.processes import TcpRelay
from tests.production import postgres_server_url

pytestmark = pytest.mark.services

BACKEND_EXIT_WAIT_MS = 5000


async def test_a_database_outage_asks_clients_to_try_again_and_loses_nothing(
    redis_url: str, database_relay: TcpRelay, tmp_path: Path, production_site: PreparedSite, winning_game
):
    line = winning_game["moves"]
    database_url = relayed_database_url(database_relay)
    with production_cluster(
        tmp_path, site=production_site, redis_url=redis_url, extra_env={"DATABASE_URL": database_url}
    ) as daphnes:
        first, second = daphnes
        visitor = Visitor(first)
        status, game = visitor.request("POST", "/api/games", {"mode": "code", "code": winning_game["deal_code"]})
        assert status == 201, game
        tab = await visitor.socket(f"{game['ws']}?v=1")
        await play(tab, line[:3])

        database_relay.cut()
        await tab.send(json.dumps({"t": "move", "move": line[3], "n": 4}))
        finish, move, refused = await asyncio.gather(
            request(visitor, "POST", f"/api/games/{game['id']}/finish", {"moves": line}),
            answer(tab, 4),
            asyncio.to_thread(refused_socket, visitor, game["ws"], second.port),
        )
        assert finish == (503, {"error": finish[1]["error"], "code": "unavailable"}), finish
        assert (move["t"], move["code"]) == ("reject", "unavailable"), move
        assert refused == ({"t": "refused", "error": refused[0]["error"], "code": "unavailable"}, CLOSE_TRY_AGAIN)
        assert await asyncio.to_thread(health, first) == 503

        database_relay.restore()
        await asyncio.to_thread(wait_until_healthy, daphnes)
        status, stored = await request(visitor, "GET", f"/api/games/{game['id']}/events")
        assert status == 200, stored
        assert [(event["v"], event["kind"]) for event in stored["events"]] == [
            (1, "start"),
            (2, "move"),
            (3, "move"),
            (4, "move"),
        ], "only the acknowledged moves are stored: neither the refused move nor the finish"
        await play(tab, line[3:], first_n=5)
        status, finished = await request(visitor, "GET", f"/api/games/{game['id']}")
        assert status == 200, finished
        assert (finished["status"], finished["result"]["won"], finished["version"]) == ("finished", True, 52)
        await tab.close()


def refused_socket(visitor: Visitor, path: str, port: int) -> tuple[dict[str, object], int | None]:
    """Open the game's socket on another process during the outage: its first message and close code."""

    async def open_and_listen() -> tuple[dict[str, object], int | None]:
        origin = f"http://127.0.0.1:{port}"
        async with connect(
            f"ws://127.0.0.1:{port}{path}", origin=Origin(origin), additional_headers={"Cookie": visitor.cookie()}
        ) as socket:
            message = await until(socket, lambda m: True)
            await socket.wait_closed()
            return message, socket.close_code

    return asyncio.run(open_and_listen())


def end_the_database_connections(database: str) -> int:
    """What a PostgreSQL restart does to the processes' open connections: ends them all, server side, and
    returns once their backends have exited (as a restart serves nothing new before its old server is
    gone). Returns how many were ended."""
    with psycopg.connect(postgres_server_url(), autocommit=True) as maintenance:
        rows = maintenance.execute(
            "SELECT pg_terminate_backend(pid, %s) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [BACKEND_EXIT_WAIT_MS, database],
        ).fetchall()
    assert all(ended for (ended,) in rows), "a backend outlived its termination"
    return len(rows)


async def test_after_the_database_restarts_no_request_or_move_fails(
    redis_url: str, tmp_path: Path, production_site: PreparedSite, winning_game
):
    line = winning_game["moves"]
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url) as daphnes:
        visitors = [Visitor(daphne) for daphne in daphnes]
        status, game = visitors[0].request("POST", "/api/games", {"mode": "code", "code": winning_game["deal_code"]})
        assert status == 201, game
        tab = await visitors[0].socket(f"{game['ws']}?v=1")
        await play(tab, line[:3])  # the event loop's own connections are open now
        for visitor in visitors:  # and each process's pool holds a few
            await asyncio.gather(*(request(visitor, "GET", "/api/live") for _ in range(8)))

        assert end_the_database_connections(f"faults_{os.getpid()}") > 0
        answers = [await request(visitors[index % 2], "GET", "/api/live") for index in range(20)]
        assert [status for status, _ in answers] == [200] * 20
        await play(tab, line[3:8], first_n=4)
        await tab.close()
