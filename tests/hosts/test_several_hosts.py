"""Two web hosts behind a load balancer, on one PostgreSQL through PgBouncer and a channel layer sharded
over two Redis servers (tests/hosts/conftest.py): racers on different hosts see each other's moves, a
watcher on one host follows a player on the other, and when a whole host dies mid-game its clients
reconnect through the balancer to the other host within 5 s with no acknowledged move lost.

The host-killing test runs last: the host stays dead for the rest of the module."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import redis
from channels_redis.utils import _consistent_hash
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tests.faults.conftest import caught_up_line, places, play, request, start_race, until
from tests.hosts.conftest import Browser, Rehearsal, served_by

pytestmark = [pytest.mark.hosts, pytest.mark.services]

RECONNECT_S = 5


def shard_channels(rehearsal: Rehearsal) -> list[set[bytes]]:
    """The channels each Redis shard of the channel layer carries for the site's processes now."""
    return [
        set(redis.Redis(port=shard.port).pubsub_channels(f"{rehearsal.channels_prefix}*"))
        for shard in rehearsal.channel_shards
    ]


async def watched_moves(watching: ClientConnection, *, until_version: int) -> list[tuple[int, list[int]]]:
    """(version, move) of each event a watcher hears, up to `until_version`: events close together come
    in one `events` frame (docs/api.md)."""
    heard: list[tuple[int, list[int]]] = []
    while not heard or heard[-1][0] < until_version:
        frame = await until(watching, lambda m: m["t"] in ("event", "events"))
        heard += [(event["v"], event["move"]) for event in frame.get("events", [frame])]
    return heard


async def test_racers_on_different_hosts_see_each_other_s_moves(rehearsal: Rehearsal, winning_game: dict[str, Any]):
    line = winning_game["moves"]
    first, second = rehearsal.hosts
    host, friend = Browser(first.endpoint), Browser(second.endpoint)
    race = await start_race(host, friend, deal_code=winning_game["deal_code"])
    host_play = await host.socket(f"{race.host_game['ws']}?v=1")
    friend_play = await friend.socket(f"{race.friend_game['ws']}?v=1")

    await play(host_play, line[:2])
    await play(friend_play, line[:1])
    # Each racer's room, on its own host, hears the other's moves from the other host.
    friend_heard = await until(race.friend_room, lambda m: m["t"] == "progress" and m["player"] == race.host_id)
    host_heard = await until(race.host_room, lambda m: m["t"] == "progress" and m["player"] == race.friend_id)
    assert (friend_heard["v"], friend_heard["move"]) == (2, line[0])
    assert (host_heard["v"], host_heard["move"]) == (2, line[0])

    last_ack = (await play(host_play, line[2:], first_n=3))[-1]
    assert (last_ack["status"], last_ack["result"]["won"]) == ("finished", True)
    status, finished = await request(friend, "POST", f"/api/games/{race.friend_game['id']}/finish", {"moves": line[:1]})
    assert status == 200, finished
    for room in (race.host_room, race.friend_room):
        assert await places(room) == [(race.host_id, 1, True), (race.friend_id, 2, False)]

    # The layer's channels are spread over both Redis shards (the rehearsal's prefix puts the presence group
    # and this first game's on different ones), each on the one its name hashes to: every process, on
    # either host, put it there (channels_redis's hash of the name over the list of shards).
    carried = shard_channels(rehearsal)
    assert all(carried), "a Redis shard of the channel layer carries no channel"
    for index, channels in enumerate(carried):
        assert {_consistent_hash(channel, len(carried)) for channel in channels} == {index}
    for socket in (host_play, friend_play, race.host_room, race.friend_room):
        await socket.close()


async def test_a_watcher_on_one_host_follows_a_player_on_the_other(rehearsal: Rehearsal, winning_game: dict[str, Any]):
    line = winning_game["moves"]
    first, second = rehearsal.hosts
    player, watcher = Browser(first.endpoint), Browser(second.endpoint)
    status, game = player.request("POST", "/api/games", {"mode": "code", "code": winning_game["deal_code"]})
    assert status == 201, game
    playing = await player.socket(game["ws"])
    await until(playing, lambda m: m["t"] == "state")  # its process follows the game from now on
    watching = await watcher.socket(f"/ws/watch/{game['id']}/")
    assert (await until(watching, lambda m: m["t"] == "state"))["game"]["id"] == game["id"]
    # Presence is shared: the player, on the other host, sees that someone watches.
    await until(playing, lambda m: m["t"] == "crowd" and m["watchers"] == 1)

    await play(playing, line[:3])
    assert await watched_moves(watching, until_version=4) == [(2, line[0]), (3, line[1]), (4, line[2])]
    for socket in (playing, watching):
        await socket.close()


async def test_a_host_killed_mid_game_its_clients_resume_on_the_other_with_no_acknowledged_move_lost(
    rehearsal: Rehearsal, winning_game: dict[str, Any]
):
    line = winning_game["moves"]
    player, watcher = Browser(rehearsal.balancer), Browser(rehearsal.balancer)
    status, game = player.request("POST", "/api/games", {"mode": "code", "code": winning_game["deal_code"]})
    assert status == 201, game
    playing = await player.socket(f"{game['ws']}?v=1")
    doomed = rehearsal.host_at(served_by(playing))
    watching = await watcher.socket(f"/ws/watch/{game['id']}/")
    await until(watching, lambda m: m["t"] == "state")
    acks = await play(playing, line[:10])

    doomed.kill()
    killed_at = time.monotonic()
    with pytest.raises(ConnectionClosed):
        await until(playing, lambda m: False)

    # The page reconnects through the balancer, which passes it to the other host, and resumes by version.
    async with asyncio.timeout(RECONNECT_S - (time.monotonic() - killed_at)):
        playing = await player.socket(f"{game['ws']}?v=1")
        assert await caught_up_line(playing, acks[-1]["v"]) == line[:10]
    assert rehearsal.host_at(served_by(playing)) is not doomed

    more = await play(playing, line[10:15], first_n=11)
    assert more[-1]["v"] == 16
    # The watcher, wherever it was, follows the game to its last move after the host's death.
    if rehearsal.host_at(served_by(watching)) is doomed:
        with pytest.raises(ConnectionClosed):
            await until(watching, lambda m: False)
        watching = await watcher.socket(f"/ws/watch/{game['id']}/")
        latest = await until(watching, lambda m: m["t"] == "state")
        assert latest["v"] == 16
    else:
        assert (await watched_moves(watching, until_version=16))[-1] == (16, line[14])
    # The game's page, loaded anew through the balancer, has every acknowledged move.
    status, stored = await request(player, "GET", f"/api/games/{game['id']}")
    assert (status, stored["version"], stored["moves"]) == (200, 16, line[:15])
    for socket in (playing, watching):
        await socket.close()
