"""Any process serves any socket: a race with the host on one Daphne process and the friend on another,
sharing the real PostgreSQL and Redis. Each hears the other's progress and both get the standings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cluster import Daphne, PreparedSite, log_problems
from bench.race import Visitor
from tests.faults.conftest import places, production_cluster, start_race, until

pytestmark = pytest.mark.services


@pytest.fixture
def daphnes(redis_url: str, tmp_path: Path, production_site: PreparedSite) -> Iterator[list[Daphne]]:
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url) as started:
        yield started
        problems = [line for daphne in started for line in log_problems(daphne)]
        assert not problems, problems


async def test_racers_on_two_processes_see_each_others_progress_and_the_standings(daphnes, winning_game):
    first, second = daphnes
    host, friend = Visitor(first), Visitor(second)
    race = await start_race(host, friend, deal_code=winning_game["deal_code"])
    host_room, friend_room, host_id, friend_id = race.host_room, race.friend_room, race.host_id, race.friend_id
    host_game, friend_game = race.host_game, race.friend_game
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
        assert await places(socket) == [(host_id, 1, True), (friend_id, 2, False)]
    for socket in (host_play, friend_play, host_room, friend_room):
        await socket.close()
