"""Single statements sent from the event loop itself, on a few PostgreSQL connections each process keeps
for them, so a plain socket move (games/store.py) needs no database thread: the hop to a thread and
back cost as much CPU as the rest of the move (bench/socket_floor.py).

Bounded: when every connection of the loop is busy for HANDOVER_WAIT_S, `execute` raises
`LoopConnectionsBusy` and the caller takes the database threads. A failure reaches the caller as
Django's `OperationalError` ("try again"). The connections are psycopg's own, in autocommit, made from
Django's settings for the default database.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import weakref
from collections.abc import Sequence
from typing import Any

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections

from accordion_site.postgresql.base import ended_by_server

logger = logging.getLogger(__name__)

APPLICATION_NAME = "accordion-live event loop"  # in pg_stat_activity, apart from Django's own
# How long a statement waits for a busy loop connection before it takes the database threads.
HANDOVER_WAIT_S = 0.05


class LoopConnectionsBusy(Exception):
    """Every connection of this event loop is in use: take the database threads instead."""


class LoopConnections:
    def __init__(self) -> None:
        # Django's wrapper of the default database, for its settings and value conversions only: it
        # never runs a query here. Taken once, as each async context would otherwise make its own.
        self.database: Any = connections[DEFAULT_DB_ALIAS]
        self.idle: list[psycopg.AsyncConnection[Any]] = []
        # Statements waiting for a connection to be handed back, first come first served.
        self.waiting: collections.deque[asyncio.Future[psycopg.AsyncConnection[Any]]] = collections.deque()
        self.open = 0  # idle, in use or being opened
        self.limit: int = settings.DATABASE_LOOP_CONNECTIONS

    async def execute(self, sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        """Run one statement and return its first row, if any."""
        connection = await self._idle_alive() or await self._connect()
        try:
            cursor = connection.cursor()
            await cursor.execute(sql, params)
            row = await cursor.fetchone()
        except psycopg.Error as error:
            self.open -= 1
            await connection.close()
            if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
                # The database restarted: each idle connection would cost a move its "try again".
                await self.close()
            else:
                logger.error("statement from the event loop failed: %r", error)
            raise OperationalError(str(error)) from error
        self._hand_back(connection)
        return row

    def _hand_back(self, connection: psycopg.AsyncConnection[Any]) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        self.idle.append(connection)

    async def _handed_over(self) -> psycopg.AsyncConnection[Any]:
        waiter: asyncio.Future[psycopg.AsyncConnection[Any]] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            await asyncio.wait([waiter], timeout=HANDOVER_WAIT_S)
        except asyncio.CancelledError:
            if waiter.done():
                self._hand_back(waiter.result())  # handed over to a statement that was called off
            waiter.cancel()
            raise
        if not waiter.done():
            waiter.cancel()
            self.waiting.remove(waiter)
            raise LoopConnectionsBusy
        return waiter.result()

    async def _idle_alive(self) -> psycopg.AsyncConnection[Any] | None:
        """An idle connection the server has not ended (a restart), found with no round trip."""
        while self.idle:
            connection = self.idle.pop()
            if not ended_by_server(connection):
                return connection
            self.open -= 1
            await connection.close()
        return None

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        if self.open >= self.limit:
            return await self._handed_over()
        self.open += 1
        params = self.database.get_connection_params()
        params.pop("cursor_factory", None)  # Django's is for its own (threaded) connections
        params.setdefault("connect_timeout", 3)
        params.setdefault("application_name", APPLICATION_NAME)
        try:
            return await psycopg.AsyncConnection.connect(**params, autocommit=True)
        except psycopg.Error as error:
            self.open -= 1
            raise OperationalError(str(error)) from error

    async def close(self) -> None:
        idle, self.idle = self.idle, []
        self.open -= len(idle)
        for connection in idle:
            await connection.close()


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopConnections] = weakref.WeakKeyDictionary()


def loop_connections() -> LoopConnections:
    loop = asyncio.get_running_loop()
    found = _by_loop.get(loop)
    if found is None:
        found = _by_loop[loop] = LoopConnections()
    return found


async def close_loop_connections() -> None:
    found = _by_loop.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.close()
