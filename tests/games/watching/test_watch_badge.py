"""The still-winnable badge beside a watched board: worked out by the solver pool once per position of
a game, however many watch it, left out when the pool is busy, and never shown to the game's player."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from arenas import services as arena_services
from arenas.models import Participant
from games import services
from games.engine import legal_moves, replay
from games.errors import SolverBusy
from games.models import Game
from games.watching import badge

from .sockets import heard, until_quiet, watching

pytestmark = pytest.mark.django_db(transaction=True)


class FakeSolver:
    """Stands in for the solver pool: answers `status` (or raises it), counting the positions asked."""

    def __init__(self, status: str | Exception) -> None:
        self.status = status
        self.asked: Counter[int] = Counter()  # by the number of moves in the line
        self.lock = threading.Lock()

    def __call__(self, function: Callable[..., str], deal, moves, *args, time_limit: float) -> str:
        with self.lock:
            self.asked[len(moves)] += 1
        if isinstance(self.status, Exception):
            raise self.status
        return self.status


async def badge_for(socket, v: int) -> dict:
    """The badge of version `v` (a badge for the position a watcher arrived at may come first)."""
    while (message := await heard(socket, "winnable"))["v"] != v:
        pass
    return message


@pytest.fixture
def solver(monkeypatch: pytest.MonkeyPatch) -> Callable[[str | Exception], FakeSolver]:
    def install(status: str | Exception) -> FakeSolver:
        fake = FakeSolver(status)
        monkeypatch.setattr(badge, "solver_run", fake)
        return fake

    return install


async def test_a_watcher_gets_the_badge_of_the_position_it_arrives_at(playing_game, watcher, solver):
    solver("win")
    socket = await watching(playing_game, watcher)

    assert await heard(socket, "winnable") == {"t": "winnable", "game": playing_game.pk, "v": 1, "status": "win"}
    await socket.disconnect()


async def test_every_watcher_gets_the_badge_but_the_solver_is_asked_once_per_position(
    playing_game, watcher, other_player, move, solver
):
    fake = solver("win")
    sockets = [await watching(playing_game, viewer) for viewer in (watcher, other_player, None)]
    for socket in sockets:
        await heard(socket, "state")

    await move(playing_game, 0)

    for socket in sockets:
        assert await badge_for(socket, 2) == {"t": "winnable", "game": playing_game.pk, "v": 2, "status": "win"}
    assert fake.asked[1] == 1 and fake.asked[0] <= 1  # the position they arrived at, if its turn came first
    for socket in sockets:
        await socket.disconnect()


async def test_a_watcher_who_arrives_later_gets_the_badge_of_the_position_on_the_board(
    playing_game, watcher, other_player, move, solver
):
    solver("lost")
    first = await watching(playing_game, watcher)
    await heard(first, "state")
    await move(playing_game, 0)
    await badge_for(first, 2)

    later = await watching(playing_game, other_player)

    assert (await heard(later, "state"))["v"] == 2
    assert await heard(later, "winnable") == {"t": "winnable", "game": playing_game.pk, "v": 2, "status": "lost"}
    await first.disconnect()
    await later.disconnect()


async def test_a_position_reached_from_a_lost_one_is_lost_without_asking_the_solver(
    playing_game, player, watcher, move, solver
):
    fake = solver("win")
    socket = await watching(playing_game, watcher)
    assert (await badge_for(socket, 1))["status"] == "win"
    fake.status = "lost"

    await move(playing_game, 0)
    assert (await badge_for(socket, 2))["status"] == "lost"
    await move(playing_game, 1)
    assert (await badge_for(socket, 3))["status"] == "lost"
    undo = sync_to_async(services.game_undo)
    await undo(game_id=playing_game.pk, player=player, now=timezone.now())
    assert (await badge_for(socket, 4))["status"] == "lost"  # back at the position found lost
    await undo(game_id=playing_game.pk, player=player, now=timezone.now())
    assert (await badge_for(socket, 5))["status"] == "lost"  # before it: the solver decides again

    # Asked for the position the watcher arrived at (twice: once more after the undos) and the first
    # lost one, never for those reached from it.
    assert fake.asked == Counter({0: 2, 1: 1})
    await socket.disconnect()


async def test_there_is_no_badge_while_the_solver_is_busy(playing_game, watcher, move, solver):
    solver(SolverBusy("busy"))
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")

    await move(playing_game, 0)
    await heard(socket, "event")

    messages = [message["t"] for message in await until_quiet(socket, quiet=0.5)]
    assert "winnable" not in messages
    await socket.disconnect()


async def test_the_player_watching_their_own_game_gets_no_badge(playing_game, player, watcher, move, solver):
    fake = solver("win")
    own = await watching(playing_game, player)
    other = await watching(playing_game, watcher)
    for socket in (own, other):
        await heard(socket, "state")

    await move(playing_game, 0)

    await badge_for(other, 2)
    assert fake.asked[1] == 1
    messages = [message["t"] for message in await until_quiet(own, quiet=0.5)]
    assert "event" in messages and "winnable" not in messages
    await own.disconnect()
    await other.disconnect()


def arena_game(player) -> Game:
    """`player`'s first game in an arena that has just started."""
    arena = arena_services.arena_create(created_by=player, minutes=10, starts_in=0, now=timezone.now())
    arena_services.arena_join(code=arena.code, player=player, now=timezone.now())
    game = Participant.objects.select_related("game__deal").get(arena=arena, player=player).game
    assert game is not None
    return game


async def test_an_arena_game_gets_no_badge_and_the_solver_is_never_asked(player, watcher, solver):
    # Everyone in the arena plays this deal: whether a position of it can still be won is a winning
    # line's clue, withheld till the arena ends.
    fake = solver("win")
    game = await sync_to_async(arena_game)(player)
    socket = await watching(game, watcher)
    await heard(socket, "state")

    for _ in range(2):
        move = legal_moves(replay(game.deal.cards, game.moves))[0]
        game = await sync_to_async(services.game_move)(game_id=game.pk, player=player, move=move, now=timezone.now())
        await heard(socket, "event")

    messages = [message["t"] for message in await until_quiet(socket, quiet=0.5)]
    assert "winnable" not in messages
    assert sum(fake.asked.values()) == 0
    await socket.disconnect()
