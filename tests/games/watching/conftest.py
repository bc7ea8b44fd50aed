"""Fixtures for the watching tests: games being played, and watchers' sockets.

Socket tests run each on an event loop of their own; tests/conftest.py's `socket_services_stopped`
stops the process's bus (and with it the watching machinery) before the loop closes."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts.models import Player
from games import services
from games.errors import SolverBusy
from games.events import group_name
from games.models import Game
from games.watching import badge, runtime
from games.watching.selectors import WATCHER
from realtime import presence


@pytest.fixture
async def playing_game(player, winning_game) -> Game:
    """Ada's game on the winning deal, in progress."""
    game, _ = await sync_to_async(services.game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    return game


@pytest.fixture
def watcher(db: None) -> Player:
    return Player.objects.create(nickname="Watcher")


@pytest.fixture
def move(player, winning_game) -> Callable[[Game, int], Coroutine[Any, Any, Game]]:
    """Play the winning line's move number `index` on the game, as its player."""

    async def play(game: Game, index: int) -> Game:
        return await sync_to_async(services.game_move)(
            game_id=game.pk, player=player, move=winning_game["moves"][index], now=timezone.now()
        )

    return play


@pytest.fixture
def quick_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Watcher counts written as soon as they change."""
    monkeypatch.setattr(presence, "FLUSH_S", 0.02)


@pytest.fixture
def long_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Watchers' events coalesced over a whole second, so a test can make several moves in one tick."""
    monkeypatch.setattr(runtime, "AUDIENCE_TICK_S", 1.0)


@pytest.fixture
def quick_live_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "LIVE_TICK_S", 0.1)


@pytest.fixture(autouse=True)
def busy_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """No solver process pool in these tests: the still-winnable badge is left out as when the pool is
    busy (test_watch_badge.py puts a fake solver in its place)."""

    def busy(*args: Any, **kwargs: Any) -> Any:
        raise SolverBusy("the solver is busy right now")

    monkeypatch.setattr(badge, "solver_run", busy)


@pytest.fixture(autouse=True)
def crowds_allowed(settings: Any) -> None:
    """These tests open hundreds of watchers from one test client: lift the per-address socket cap."""
    settings.SOCKETS_PER_ADDRESS = 10_000


@pytest.fixture
def start(winning_game) -> Callable[..., Game]:
    """Start `player`'s game on the winning deal, `moves` moves into its winning line."""

    def start_game(player: Player, *, moves: int = 0, at: datetime.datetime | None = None) -> Game:
        now = at or timezone.now()
        game, _ = services.game_start(player=player, mode="code", code=winning_game["deal_code"], now=now)
        for move in winning_game["moves"][:moves]:
            game = services.game_move(game_id=game.pk, player=player, move=move, now=now)
        return game

    return start_game


@pytest.fixture
def watchers_of() -> Iterator[Callable[[dict[int, int]], None]]:
    """Set how many watch each game, as another server process would count them."""
    written: list[tuple[str, str]] = []

    def write(counts: dict[int, int]) -> None:
        for game, count in counts.items():
            key = (group_name(game), WATCHER)
            written.append(key)
            presence.store().write({key: {f"another.{n}": time.time() + 60 for n in range(count)}})

    yield write
    presence.store().write({key: {f"another.{n}": 0.0 for n in range(100)} for key in written})
