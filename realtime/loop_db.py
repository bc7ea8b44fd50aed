"""Single statements sent from the event loop itself, on a few PostgreSQL connections each process keeps
for them, so the busiest write of all (a plain socket move, games/store.py) needs no database thread.

A call on the database threads (accordion_site/db.py) cost a socket about 0.3 ms of CPU for the hop
there and back alone (bench/socket_floor.py, `consumer` against `thread`), and Django's cursor
machinery as much again: as much as the rest of a move. Here a statement is sent on an idle
connection of this event loop's own, waited for by the loop, and answered: no thread, no hop.

An idle connection that the server ended (a restart) is found before use, by a look at its socket,
and replaced. Bounded, with a short wait: when every connection of the loop is busy, a statement
waits up to HANDOVER_WAIT_S for one to be handed back; past that `execute` raises `LoopConnectionsBusy`
and the caller takes the database threads instead, so no socket waits long behind another's statement
(one held up by a row lock, say). The wait is for a busy database, whose statements end within
milliseconds: on the threads each would cost a hop and a connection check, about 0.8 ms of CPU more
than from the loop (docs/performance.md), when the machine has the least to spare. A connection that
fails is closed and a fresh one made on a later call; the failure reaches the caller as Django's
`OperationalError`, which every socket answers with "try again" (accordion_site.errors.OUTAGES).

The connections are psycopg's own (autocommit, so each statement is its own transaction), made from
Django's settings for the default database, with its `prepare_threshold` (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import select
import weakref
from collections.abc import Sequence
from typing import Any

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections

logger = logging.getLogger(__name__)

# How these connections name themselves to PostgreSQL (pg_stat_activity), apart from Django's own.
APPLICATION_NAME = "accordion-live event loop"


# How long a statement waits for a busy loop connection before it takes the database threads.
HANDOVER_WAIT_S = 0.05


class LoopConnectionsBusy(Exception):
    """Every connection of this event loop is in use: take the database threads instead."""


class LoopConnections:
    """The connections one event loop keeps for its statements: at most DATABASE_LOOP_CONNECTIONS,
    opened on first need."""

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
        """Run one statement and return its first row (None when it returns none)."""
        connection = await self._idle_alive() or await self._connect()
        try:
            cursor = connection.cursor()
            await cursor.execute(sql, params)
            row = await cursor.fetchone()
        except psycopg.Error as error:
            self.open -= 1
            await connection.close()
            if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
                # The database went away or restarted: the idle connections are gone with it, and each
                # would cost a move its "try again" before a fresh one is made.
                await self.close()
            else:
                logger.error("statement from the event loop failed: %r", error)
            raise OperationalError(str(error)) from error
        self._hand_back(connection)
        return row

    def _hand_back(self, connection: psycopg.AsyncConnection[Any]) -> None:
        """Give a connection whose statement ended to the first statement waiting, else keep it idle."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        self.idle.append(connection)

    async def _handed_over(self) -> psycopg.AsyncConnection[Any]:
        """A connection handed back within HANDOVER_WAIT_S, else LoopConnectionsBusy."""
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
        """An idle connection the server has not ended, or None. An idle connection is sent nothing, so one
        with something to read has heard the server end it (a PostgreSQL restart, a failover): closed
        here, it costs no move its "try again". A look at the socket, no round trip."""
        while self.idle:
            connection = self.idle.pop()
            # poll(), not select(): a process with many sockets has descriptors past select()'s 1,024.
            ended = select.poll()
            ended.register(connection.pgconn.socket, select.POLLIN)
            if not ended.poll(0):
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
        """Close the idle connections (those in use are closed, or kept, when their statement ends)."""
        idle, self.idle = self.idle, []
        self.open -= len(idle)
        for connection in idle:
            await connection.close()


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopConnections] = weakref.WeakKeyDictionary()


def loop_connections() -> LoopConnections:
    """The running event loop's connections (one set per loop: a Daphne process has one loop)."""
    loop = asyncio.get_running_loop()
    found = _by_loop.get(loop)
    if found is None:
        found = _by_loop[loop] = LoopConnections()
    return found


async def close_loop_connections() -> None:
    """Close the running loop's idle connections (for a loop about to close: a test's)."""
    found = _by_loop.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.close()
