"""The arena socket (/ws/arenas/<code>/): the first frame, batched standings, next, ended, refusals."""

from __future__ import annotations

import asyncio
import datetime
import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accordion_site.asgi import application
from accounts.models import Player
from arenas import runtime, services
from arenas.models import Arena
from realtime.bus import Message, publish
from tests.games.sockets import FROM_THE_SITE, session_cookie_for

from .conftest import current_game, lose, win

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("socket_services_stopped")]


async def arena_socket(code: str, player: Player | None) -> WebsocketCommunicator:
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(player))]
    socket = WebsocketCommunicator(application, f"/ws/arenas/{code}/", headers=headers)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def until(socket: WebsocketCommunicator, kind: str, *, timeout: float = 5) -> dict[str, Any]:
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["t"] == kind:
            return message


async def standings_where(socket: WebsocketCommunicator, holds: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first standings frame that `holds`: one for another change (a spectator counted) may come first."""
    while not holds(frame := await until(socket, "standings")):
        pass
    return frame


join = sync_to_async(services.arena_join)


async def spectating(arena: Arena, *, player: Player, spectator: Player) -> WebsocketCommunicator:
    """`player` takes part; `spectator`'s arena socket, its first frame read."""
    await join(code=arena.code, player=player, now=timezone.now())
    socket = await arena_socket(arena.code, spectator)
    await until(socket, "arena")
    return socket


async def test_the_first_frame_is_the_arena_with_its_standings(player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    socket = await arena_socket(live_arena.code, player)
    first = await socket.receive_json_from(timeout=5)
    assert first["t"] == "arena"
    assert first["arena"]["code"] == live_arena.code and first["arena"]["state"] == "live"
    assert first["arena"]["players"] == 1
    assert [row["nickname"] for row in first["standings"]] == ["Ada"]
    assert first["me"]["rank"] == 1
    await socket.disconnect()


async def test_an_unknown_arena_is_refused_with_4404(player: Player) -> None:
    socket = await arena_socket("NOSUCH", player)
    refused = await socket.receive_json_from(timeout=5)
    assert refused["t"] == "refused" and refused["code"] == "not_found"
    assert (await socket.receive_output(timeout=5))["code"] == 4404


async def test_a_spectator_command_is_refused(player: Player, other_player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    for who in (other_player, None):
        socket = await arena_socket(live_arena.code, who)
        first = await until(socket, "arena")
        assert first["me"] is None
        await socket.send_json_to({"t": "next", "n": 1})
        refused = await until(socket, "reject")
        assert (refused["n"], refused["code"]) == (1, "not_participant")
        await socket.disconnect()


async def test_a_participant_whose_game_ends_gets_the_next_one_and_everyone_the_standings(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    mine = await arena_socket(live_arena.code, player)
    spectator = await arena_socket(live_arena.code, other_player)
    await until(mine, "arena")
    await until(spectator, "arena")
    first = await sync_to_async(current_game)(live_arena, player)
    finished = await sync_to_async(win)(first, at=timezone.now())
    pushed = await until(mine, "next")
    assert pushed["game"]["id"] != first.pk and pushed["game"]["status"] == "playing"
    assert pushed["game"]["ws"] == f"/ws/games/{pushed['game']['id']}/"
    standings = await standings_where(spectator, lambda frame: frame["standings"][0]["games"] == 1)
    assert standings["players"] == 1 and standings["me"] is None
    assert [(row["nickname"], row["wins"], row["fire"]) for row in standings["standings"]] == [("Ada", 1, True)]
    assert (await standings_where(mine, lambda frame: frame["me"]["games"] == 1))["me"]["points"] == finished.score
    await mine.disconnect()
    await spectator.disconnect()


async def test_every_open_tab_of_a_participant_gets_the_next_game_and_a_spectator_none(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    tabs = [await arena_socket(live_arena.code, player) for _ in range(2)]
    spectator = await arena_socket(live_arena.code, other_player)
    for socket in (*tabs, spectator):
        await until(socket, "arena")
    first = await sync_to_async(current_game)(live_arena, player)
    await sync_to_async(win)(first, at=timezone.now())
    second = [(await until(tab, "next"))["game"]["id"] for tab in tabs]
    assert second[0] == second[1] != first.pk

    await tabs[0].disconnect()  # the tab left open still gets the game after the next
    await sync_to_async(lose)(await sync_to_async(current_game)(live_arena, player), at=timezone.now())
    third = (await until(tabs[1], "next"))["game"]["id"]
    assert third not in (first.pk, second[0])

    # The spectator hears both finishes in the standings, and no game.
    kinds = []
    frame = await spectator.receive_json_from(timeout=5)
    while not (frame["t"] == "standings" and frame["standings"][0]["games"] == 2):
        kinds.append(frame["t"])
        frame = await spectator.receive_json_from(timeout=5)
    assert "next" not in kinds
    await tabs[1].disconnect()
    await spectator.disconnect()


async def test_standings_come_at_most_once_a_second_per_socket(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    spectator = await spectating(live_arena, player=player, spectator=other_player)
    arrivals: list[tuple[float, dict[str, Any]]] = []

    async def read() -> None:
        # Reading while the games finish, so that each frame's time is when the server wrote it.
        while True:
            message = await spectator.receive_json_from(timeout=30)
            if message["t"] == "standings":
                arrivals.append((time.monotonic(), message))

    reader = asyncio.get_running_loop().create_task(read())
    game = await sync_to_async(current_game)(live_arena, player)
    for _ in range(6):  # six finishes in quick succession, each a change of the standings
        await sync_to_async(lose)(game, at=timezone.now())
        game = await sync_to_async(services.arena_next)(code=live_arena.code, player=player, now=timezone.now())
    async with asyncio.timeout(30):
        while not arrivals or arrivals[-1][1]["standings"][0]["games"] < 6:
            await asyncio.sleep(0.1)
    reader.cancel()
    times = [at for at, _ in arrivals]
    assert all(later - earlier >= 0.9 for earlier, later in itertools.pairwise(times))
    await spectator.disconnect()


async def test_every_socket_hears_the_end_with_the_seed(player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    await sync_to_async(Arena.objects.filter(pk=live_arena.pk).update)(
        ends_at=timezone.now() + datetime.timedelta(seconds=1)
    )
    socket = await arena_socket(live_arena.code, player)
    await until(socket, "arena")
    ended = await until(socket, "ended", timeout=10)
    assert ended["arena"]["state"] == "finished" and ended["arena"]["seed"] == live_arena.seed
    assert ended["me"]["games"] == 1  # the game in play at the end counted as it stood
    await socket.disconnect()


async def test_a_participant_may_ask_for_the_next_game_on_the_socket(player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    socket = await arena_socket(live_arena.code, player)
    await until(socket, "arena")
    await socket.send_json_to({"t": "next", "n": 1})
    early = await until(socket, "reject")
    assert (early["n"], early["code"]) == (1, "game_in_play")
    await socket.send_json_to({"t": "shuffle", "n": 2})
    assert (await until(socket, "reject"))["code"] == "bad_message"
    await socket.disconnect()


async def test_at_the_start_a_participant_gets_the_first_game(player: Player) -> None:
    arena = await sync_to_async(services.arena_create)(created_by=player, minutes=5, starts_in=1, now=timezone.now())
    joined = await join(code=arena.code, player=player, now=timezone.now())
    assert joined.game_id is None
    socket = await arena_socket(arena.code, player)
    assert (await until(socket, "arena"))["arena"]["state"] == "upcoming"
    first = await until(socket, "next", timeout=10)
    assert first["game"]["status"] == "playing" and len(first["game"]["deal"]) == 52
    await socket.disconnect()


async def test_the_standings_count_the_spectators(player: Player, other_player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    mine = await arena_socket(live_arena.code, player)
    assert (await until(mine, "arena"))["spectators"] == 0
    spectators = [await arena_socket(live_arena.code, who) for who in (other_player, None)]
    for spectator in spectators:
        await until(spectator, "arena")
    standings = await until(mine, "standings", timeout=10)
    while standings["spectators"] < 2:
        standings = await until(mine, "standings", timeout=10)
    assert standings["spectators"] == 2 and standings["players"] == 1
    await spectators[0].disconnect()
    while standings["spectators"] != 1:
        standings = await until(mine, "standings", timeout=10)
    await spectators[1].disconnect()
    await mine.disconnect()


async def test_a_change_that_leaves_a_socket_s_view_as_it_was_sends_it_nothing(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    spectator = await spectating(live_arena, player=player, spectator=other_player)
    assert (await until(spectator, "standings", timeout=10))["spectators"] == 1  # itself, once counted
    publish(Message(group=services.group(live_arena.code), kind="changed", data={}))
    assert await spectator.receive_nothing(timeout=2.5)
    await sync_to_async(lose)(await sync_to_async(current_game)(live_arena, player), at=timezone.now())
    assert (await until(spectator, "standings"))["standings"][0]["games"] == 1
    await spectator.disconnect()


async def test_a_player_who_has_just_joined_is_no_spectator(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    watching = await spectating(live_arena, player=player, spectator=other_player)  # the standings are read
    await join(code=live_arena.code, player=other_player, now=timezone.now())
    playing = await arena_socket(live_arena.code, other_player)
    frames = [await until(playing, "arena")]
    until_then = asyncio.get_running_loop().time() + 3
    while asyncio.get_running_loop().time() < until_then:
        if not await playing.receive_nothing(timeout=0.2):
            frames.append(await playing.receive_json_from())
    assert frames[-1]["players"] == 2
    assert max(frame["spectators"] for frame in frames if "spectators" in frame) == 1  # the other socket
    await playing.disconnect()
    await watching.disconnect()


async def test_a_read_made_for_a_socket_that_opens_reaches_the_sockets_already_open(
    player: Player, other_player: Player, live_arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The room looks for due work every 2 s here, so that the newcomer's socket, opened between two
    # looks, is what reads the standings that hold the newcomer.
    monkeypatch.setattr(runtime, "TICK_S", 2.0)
    await join(code=live_arena.code, player=player, now=timezone.now())
    mine = await arena_socket(live_arena.code, player)
    assert (await until(mine, "arena"))["arena"]["players"] == 1
    opened = time.monotonic()
    await join(code=live_arena.code, player=other_player, now=timezone.now())
    await asyncio.sleep(runtime.STANDINGS_EVERY_S + 0.1 - (time.monotonic() - opened))
    newcomer = await arena_socket(live_arena.code, other_player)
    assert (await until(newcomer, "arena"))["arena"]["players"] == 2
    assert (await until(mine, "standings"))["players"] == 2
    await newcomer.disconnect()
    await mine.disconnect()
