"""Socket tests run each on an event loop of their own: what a test's sockets started is stopped before
its loop closes."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from accounts.models import Player
from games import services, store


@pytest.fixture(autouse=True)
def stopped_after_each_test(socket_services_stopped: None) -> None:
    """Every test here may open sockets (tests/conftest.py, `socket_services_stopped`)."""


@pytest.fixture
def move_on_known(monkeypatch: pytest.MonkeyPatch) -> Callable[..., services.KnownGame]:
    """A socket's move on the game as it knows it (`services.game_move_async`), called from a sync test:
    its database calls run on the test's own connection, so they see the test's transaction."""
    monkeypatch.setattr(services, "db_call", lambda function: sync_to_async(function, thread_sensitive=True))
    monkeypatch.setattr(store, "changes_from_loop", lambda: False)

    def move(
        *, known: services.KnownGame, player: Player, move: Sequence[int], now: datetime.datetime
    ) -> services.KnownGame:
        return async_to_sync(services.game_move_async)(
            game_id=known.game_id, player=player, move=move, now=now, known=known
        )

    return move
