"""A Daphne process dies (`kill -9`) in the middle of a race: its racers reconnect to the other process,
find every move the dead one had acknowledged, finish the race, and get the right standings; and the
sockets the dead process held leave race seats and watcher counts by the expiry of their presence
(realtime/presence.py), with nothing left for anyone to sweep."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from bench.cluster import PreparedSite
from bench.race import Visitor
from tests.faults.conftest import caught_up_line, places, play, production_cluster, request, start_race, until

pytestmark = pytest.mark.services


async def test_racers_of_a_killed_process_finish_on_the_other_with_no_acknowledged_move_lost(
    redis_url: str, tmp_path: Path, production_site: PreparedSite, winning_game
):
    line = winning_game["moves"]
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url) as (
        doomed,
        survivor,
    ):
        host, friend = Visitor(doomed), Visitor(doomed)
        race = await start_race(host, friend, deal_code=winning_game["deal_code"])
        host_room, friend_room = race.host_room, race.friend_room
        host_game, friend_game = race.host_game, race.friend_game
        host_play = await host.socket(f"{host_game['ws']}?v=1")
        friend_play = await friend.socket(f"{friend_game['ws']}?v=1")
        host_acks = await play(host_play, line[:10])
        friend_acks = await play(friend_play, line[:5])

        os.kill(doomed.pid, signal.SIGKILL)
        for socket in (host_room, friend_room, host_play, friend_play):
            with pytest.raises(ConnectionClosed):
                await until(socket, lambda m: False)

        # The racers' pages reconnect, now to the surviving process, and resume by version.
        host.daphne = friend.daphne = survivor
        host_room, friend_room = await host.socket(race.ws), await friend.socket(race.ws)
        assert (await until(host_room, lambda m: m["t"] == "start"))["game"]["id"] == host_game["id"]
        assert (await until(friend_room, lambda m: m["t"] == "start"))["game"]["id"] == friend_game["id"]
        host_play = await host.socket(f"{host_game['ws']}?v=1")
        friend_play = await friend.socket(f"{friend_game['ws']}?v=1")
        assert await caught_up_line(host_play, host_acks[-1]["v"]) == line[:10]
        assert await caught_up_line(friend_play, friend_acks[-1]["v"]) == line[:5]

        last_ack = (await play(host_play, line[10:]))[-1]
        assert (last_ack["status"], last_ack["result"]["won"]) == ("finished", True)
        status, finished = await request(friend, "POST", f"/api/games/{friend_game['id']}/finish", {"moves": line[:5]})
        assert (status, finished["result"]["piles"]) == (200, 47)
        for socket in (host_room, friend_room):
            assert await places(socket) == [(race.host_id, 1, True), (race.friend_id, 2, False)]

        # The friend closes the room page: the killed process never said its socket left; it expired.
        await friend_room.close()
        await until(
            host_room,
            lambda m: (
                m["t"] == "room" and not next(r for r in m["racers"] if r["player"] == race.friend_id)["connected"]
            ),
        )
        for socket in (host_play, friend_play, host_room):
            await socket.close()


async def test_a_killed_process_s_sockets_leave_race_seats_and_watcher_counts_within_ten_seconds(
    redis_url: str, tmp_path: Path, production_site: PreparedSite, winning_game
):
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url) as (survivor, doomed):
        host, friend, watcher = Visitor(survivor), Visitor(doomed), Visitor(doomed)
        race = await start_race(host, friend, deal_code=winning_game["deal_code"])
        host_play = await host.socket(f"{race.host_game['ws']}?v=1")
        watching = await watcher.socket(f"/ws/watch/{race.host_game['id']}/")
        await until(watching, lambda m: m["t"] == "state")
        await until(host_play, lambda m: m["t"] == "crowd" and m["watchers"] == 1)

        os.kill(doomed.pid, signal.SIGKILL)

        # No process says the friend's room socket or the watcher left: their presence expires unrenewed.
        async with asyncio.timeout(10):
            await until(host_play, lambda m: m["t"] == "crowd" and m["watchers"] == 0)
            await until(
                race.host_room,
                lambda m: (
                    m["t"] == "room" and not next(r for r in m["racers"] if r["player"] == race.friend_id)["connected"]
                ),
            )
        for socket in (host_play, race.host_room):
            await socket.close()
