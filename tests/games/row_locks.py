"""Another request's transaction held open, for tests of writes that must not wait behind it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator

from django.db import connection, transaction
from django.utils import timezone

from games.models import Game, GameEvent


@contextlib.contextmanager
def transaction_held(work: Callable[[], object]) -> Iterator[None]:
    """Inside the block, a transaction on another thread has done `work` (taking its locks) and is open."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                work()
                holding.set()
                release.wait(timeout=20)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(timeout=10)
        yield
    finally:
        release.set()
        holder.join(timeout=10)


@contextlib.asynccontextmanager
async def row_locked(game: Game) -> AsyncIterator[None]:
    """Inside the block, another transaction holds `game`'s row lock."""
    with transaction_held(lambda: Game.objects.select_for_update().get(pk=game.pk)):
        yield


@contextlib.asynccontextmanager
async def event_pending(game: Game, v: int) -> AsyncIterator[None]:
    """Inside the block, another transaction has inserted `game`'s event `v` and is open (it rolls back
    at the end): a statement inserting that event waits for it, the game's row left free."""

    def insert() -> None:
        GameEvent.objects.create(game_id=game.pk, v=v, kind=GameEvent.Kind.MOVE, piles=52, at=timezone.now())
        transaction.set_rollback(True)

    with transaction_held(insert):
        yield
