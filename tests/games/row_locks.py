"""Another transaction holding a game's row lock, for tests of sockets that must not wait behind it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

from django.db import connection, transaction

from games.models import Game


@contextlib.asynccontextmanager
async def row_locked(game: Game) -> AsyncIterator[None]:
    """Inside the block, a transaction on another thread (another request's) holds `game`'s row lock."""
    holding, release = threading.Event(), threading.Event()

    def hold_row_lock() -> None:
        try:
            with transaction.atomic():
                Game.objects.select_for_update().get(pk=game.pk)
                holding.set()
                release.wait(timeout=20)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_row_lock)
    holder.start()
    loop = asyncio.get_running_loop()
    try:
        assert await loop.run_in_executor(None, holding.wait, 10)
        yield
    finally:
        release.set()
        await loop.run_in_executor(None, holder.join, 10)
