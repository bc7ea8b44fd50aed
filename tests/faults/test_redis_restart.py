"""Redis restarts in the middle of a game (everything in it is lost: subscriptions, throttle counts).
The site recovers by itself: moves are acknowledged throughout, since the truth is in PostgreSQL, and the
other tab, on another process, catches up by version and hears the game live again."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection

from bench.cluster import PreparedSite
from bench.race import Visitor
from tests.faults.conftest import caught_up_line, play, production_cluster, until, wait_until_healthy
from tests.faults.processes import RedisServer

pytestmark = pytest.mark.services

# How long a move's event may take to reach the other process once the processes hear each other again.
LIVE_WAIT_S = 1.0
# The moves the test may spend waiting for that (the winning line has 51).
RECOVERY_MOVES = 40


async def heard_line(socket: ClientConnection, version: int) -> list[list[int]]:
    """Follow the game as the page's link does until `version`: apply each event's version once and
    in order, and on a gap ask for what is missing with `sync`. Returns the line it ends up with."""
    line: list[list[int]] = []
    n = 0

    def is_news(message: dict[str, Any]) -> bool:
        return message["t"] == "event" or (message["t"] == "reject" and message["n"] == n)

    while 1 + len(line) < version:
        n += 1
        await socket.send(json.dumps({"t": "sync", "v": 1 + len(line), "n": n}))
        while 1 + len(line) < version:
            message = await until(socket, is_news)
            assert message["t"] == "event", message
            if message["v"] > 2 + len(line):
                break  # a gap: sync again
            if message["v"] == 2 + len(line):
                line.append(message["move"])
    return line


async def test_a_redis_restart_loses_no_move_and_the_other_tab_resynchronises_by_version(
    private_redis: RedisServer, tmp_path: Path, production_site: PreparedSite, winning_game
):
    line = winning_game["moves"]
    with production_cluster(tmp_path, site=production_site, redis_url=private_redis.url) as daphnes:
        first, second = daphnes
        visitor = Visitor(first)
        status, game = visitor.request("POST", "/api/games", {"mode": "code", "code": winning_game["deal_code"]})
        assert status == 201, game
        tab = await visitor.socket(f"{game['ws']}?v=1")
        other_tab = await visitor.socket(f"{game['ws']}?v=1", on=second)
        await play(tab, line[:3])
        assert await caught_up_line(other_tab, 4) == line[:3]

        private_redis.restart()
        acks = await play(tab, line[3:6], first_n=4)
        assert [ack["v"] for ack in acks] == [5, 6, 7]
        wait_until_healthy(daphnes)

        # Events published while a process was resubscribing are lost (delivery is at most once), so
        # play on until the other tab hears a move unasked: the processes talk through Redis again.
        n = 6
        heard_live = None
        while heard_live is None:
            n += 1
            assert n <= RECOVERY_MOVES, "no event reached the other process after Redis came back"
            await play(tab, [line[n - 1]], first_n=n)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(LIVE_WAIT_S):
                    heard_live = await until(other_tab, lambda m: m["t"] == "event" and m["v"] > 7)
        assert await heard_line(other_tab, n + 1) == line[:n]
        for socket in (tab, other_tab):
            await socket.close()
