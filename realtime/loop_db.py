"""Single statements sent from the event loop itself, on a few PostgreSQL connections each process keeps
for them, so a plain socket move (games/store.py) needs no database thread: the hop to a thread and
back cost as much CPU as the rest of the move (bench/socket_floor.py).

A statement goes to libpq directly (`LoopLink`), prepared once per connection, its parameters sent as
text with each placeholder cast to its type: psycopg's cursor (adapting each value, converting the
query, registering the socket with the loop for every wait) cost half as much CPU again
(bench/loop_statement.py).

Bounded: when every connection of the loop is busy for HANDOVER_WAIT_S, `execute` raises
`LoopConnectionsBusy` and the caller takes the database threads. A failure reaches the caller as
Django's `OperationalError` ("try again"). The connections are psycopg's own, in autocommit, made from
Django's settings for the default database.
"""

from __future__ import annotations

import asyncio
import collections
import datetime
import logging
import weakref
from collections.abc import Sequence
from typing import Any

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections
from psycopg import errors, pq

from accordion_site.postgresql.base import ended_by_server

logger = logging.getLogger(__name__)

APPLICATION_NAME = "accordion-live event loop"  # in pg_stat_activity, apart from Django's own
# How long a statement waits for a busy loop connection before it takes the database threads.
HANDOVER_WAIT_S = 0.05
# How long cancelling a statement that was called off may take.
CANCEL_TIMEOUT_S = 2.0


class LoopConnectionsBusy(Exception):
    """Every connection of this event loop is in use: take the database threads instead."""


def _text(value: Any) -> bytes | None:
    """A parameter as the text PostgreSQL reads for its placeholder's cast (datetimes are aware)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, datetime.datetime):
        return value.isoformat().encode()
    return str(value).encode()


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class LoopLink:
    """One connection of the loop, driven through libpq: its socket is watched by the loop for as long as
    it is open, and a statement's answer is read as it arrives."""

    def __init__(self, connection: psycopg.AsyncConnection[Any], *, prepare: bool) -> None:
        self.connection = connection
        self.pgconn = connection.pgconn
        self.socket = self.pgconn.socket
        # Behind a pooler that cannot keep prepared statements (DATABASE_PREPARED_STATEMENTS=false), each
        # statement is parsed with its values, unnamed.
        self.prepare = prepare
        self.prepared: dict[str, bytes] = {}  # statement → its name on this connection
        self.answer: asyncio.Future[None] | None = None  # set when libpq is no longer busy
        self.asked = False  # a statement is on its way or being answered
        self.hung_up = False  # the server spoke unasked or hung up: the connection is not used again
        # The loop is not kept here: loop_connections() keys the loop weakly, so nothing it holds may hold it.
        asyncio.get_running_loop().add_reader(self.socket, self._readable)
        self.watched = True

    def _unwatch(self) -> None:
        """Stop watching the socket, once: as soon as libpq has closed it, its number may be another
        socket's, which the loop must go on watching."""
        if self.watched:
            self.watched = False
            asyncio.get_running_loop().remove_reader(self.socket)

    @property
    def ended(self) -> bool:
        """Whether the server has ended this idle connection, known with no round trip."""
        return self.hung_up or ended_by_server(self.connection)

    def _readable(self) -> None:
        try:
            self.pgconn.consume_input()
        except psycopg.OperationalError as error:
            self.hung_up = True
            self._unwatch()  # libpq has closed the socket
            if self.answer is not None and not self.answer.done():
                self.answer.set_exception(error)
            return
        if not self.asked:
            # Nothing asked, yet the server speaks: it says goodbye (a restart, a terminated backend),
            # read here before its hang-up, which a look at the socket would otherwise have found.
            self.hung_up = True
        elif self.answer is not None and not self.answer.done() and not self.pgconn.is_busy():
            self.answer.set_result(None)

    async def execute(self, sql: str, params: Sequence[Any]) -> tuple[str | None, ...] | None:
        if not self.prepare:
            self.pgconn.send_query_params(sql.encode(), [_text(value) for value in params])
            return await self._first_row()
        name = self.prepared.get(sql)
        if name is None:
            name = f"loop_{len(self.prepared)}".encode()
            self.pgconn.send_prepare(name, sql.encode())
            await self._first_row()
            self.prepared[sql] = name
        self.pgconn.send_query_prepared(name, [_text(value) for value in params])
        return await self._first_row()

    async def _first_row(self) -> tuple[str | None, ...] | None:
        """The answer to what was just sent (no turn of the loop in between): its first row, if any."""
        self.asked = True
        loop = asyncio.get_running_loop()
        while self.pgconn.flush():  # what the socket did not take at once
            writable: asyncio.Future[None] = loop.create_future()
            loop.add_writer(self.socket, _wake, writable)
            try:
                await writable
            finally:
                loop.remove_writer(self.socket)
        row = None
        while True:
            while self.pgconn.is_busy():
                self.answer = loop.create_future()
                await self.answer
            result = self.pgconn.get_result()
            if result is None:
                self.asked = False  # answered to the end
                return row
            if result.status == pq.ExecStatus.FATAL_ERROR:
                raise errors.error_from_result(result, encoding="utf-8")
            if row is None and result.ntuples:
                cells = (result.get_value(0, column) for column in range(result.nfields))
                row = tuple(None if cell is None else cell.decode() for cell in cells)

    async def call_off(self) -> None:
        """Close, the statement in flight cancelled on the server: its backend would run it to the end."""
        try:
            await self.connection.cancel_safe(timeout=CANCEL_TIMEOUT_S)
        except psycopg.Error as error:
            logger.warning("a statement called off could not be cancelled on the server: %r", error)
        await self.close()

    async def close(self) -> None:
        self._unwatch()
        await self.connection.close()


class LoopConnections:
    def __init__(self) -> None:
        # Django's wrapper of the default database, for its settings and value conversions only: it
        # never runs a query here. Taken once, as each async context would otherwise make its own.
        self.database: Any = connections[DEFAULT_DB_ALIAS]
        self.idle: list[LoopLink] = []
        # Statements waiting for a connection to be handed back, first come first served.
        self.waiting: collections.deque[asyncio.Future[LoopLink]] = collections.deque()
        self.open = 0  # idle, in use or being opened
        self.limit: int = settings.DATABASE_LOOP_CONNECTIONS
        self.prepare = self.database.settings_dict["OPTIONS"].get("prepare_threshold") is not None

    async def execute(self, sql: str, params: Sequence[Any]) -> tuple[str | None, ...] | None:
        """Run one statement, its placeholders `$1`, `$2`, … each cast to its type (`$1::integer`), and
        return its first row, if any, as text."""
        link = await self._idle_alive() or await self._connect()
        try:
            row = await link.execute(sql, params)
        except BaseException as failure:
            # A statement failed or was called off while in flight: the connection is not reused.
            self.open -= 1
            if not isinstance(failure, psycopg.Error):
                await link.call_off()
                raise
            await link.close()
            if isinstance(failure, psycopg.OperationalError | psycopg.InterfaceError):
                # The database restarted: each idle connection would cost a move its "try again".
                await self.close()
            else:
                logger.error("statement from the event loop failed: %r", failure)
            raise OperationalError(str(failure)) from failure
        self._hand_back(link)
        return row

    def _hand_back(self, link: LoopLink) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(link)
                return
        self.idle.append(link)

    async def _handed_over(self) -> LoopLink:
        waiter: asyncio.Future[LoopLink] = asyncio.get_running_loop().create_future()
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

    async def _idle_alive(self) -> LoopLink | None:
        """An idle connection the server has not ended (a restart), found with no round trip."""
        while self.idle:
            link = self.idle.pop()
            if not link.ended:
                return link
            self.open -= 1
            await link.close()
        return None

    async def _connect(self) -> LoopLink:
        if self.open >= self.limit:
            return await self._handed_over()
        self.open += 1
        params = self.database.get_connection_params()
        params.pop("cursor_factory", None)  # Django's is for its own (threaded) connections
        params.setdefault("connect_timeout", 3)
        params.setdefault("application_name", APPLICATION_NAME)
        try:
            return LoopLink(await psycopg.AsyncConnection.connect(**params, autocommit=True), prepare=self.prepare)
        except psycopg.Error as error:
            self.open -= 1
            raise OperationalError(str(error)) from error

    async def close(self) -> None:
        idle, self.idle = self.idle, []
        self.open -= len(idle)
        for link in idle:
            await link.close()


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
