"""Single statements sent from the event loop itself, on a few PostgreSQL connections each process keeps
for them, so a plain socket move (games/store.py) needs no database thread: the hop to a thread and
back cost as much CPU as the rest of the move (bench/socket_floor.py).

A statement goes to libpq directly (`LoopLink`), prepared once per connection, its parameters sent as
text with each placeholder cast to its type: psycopg's cursor (adapting each value, converting the
query, registering the socket with the loop for every wait) cost half as much CPU again
(bench/loop_statement.py).

Coalesced: the rows given for one statement during one turn of the loop go to PostgreSQL as one
statement over arrays (`execute_coalesced`), so that a busy turn's moves cost the server one statement,
one transaction and one commit, not one each (docs/performance.md, "The move from the event loop").

Bounded: when every connection of the loop is busy for HANDOVER_WAIT_S, a statement raises
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

Row = tuple[str | None, ...]  # a row of an answer, as text

APPLICATION_NAME = "accordion-live event loop"  # in pg_stat_activity, apart from Django's own
# How long a statement waits for a busy loop connection before it takes the database threads.
HANDOVER_WAIT_S = 0.05
# How long cancelling a statement that was called off may take.
CANCEL_TIMEOUT_S = 2.0
# The most rows one coalesced statement carries; more in one turn go in another.
COALESCED_ROWS = 64
# The loop's connections keep the coalesced move statement's generic plan (lookups a row at a time), which
# suits any number of rows: PostgreSQL, which cannot tell an array's length, would plan it again at every
# run. Set only where statements are prepared: a pooler that cannot keep them may refuse the option too.
PLANNER_OPTIONS = "-c plan_cache_mode=force_generic_plan"


class LoopConnectionsBusy(Exception):
    """Every connection of this event loop is in use: take the database threads instead."""


def _literal(value: Any) -> str:
    """A value as the text PostgreSQL reads for its type (datetimes are aware)."""
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return str(value)


def _text(value: Any) -> bytes | None:
    """A parameter as the text PostgreSQL reads for its placeholder's cast."""
    return None if value is None else _literal(value).encode()


def _array(values: Sequence[Any]) -> str:
    """A column's values as the literal of an array, for a placeholder cast to an array type."""
    return "{" + ",".join(map(_element, values)) + "}"


def _element(value: Any) -> str:
    if value is None:
        return "NULL"
    return '"' + _literal(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


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

    async def execute(self, sql: str, params: Sequence[Any]) -> list[Row]:
        if not self.prepare:
            self.pgconn.send_query_params(sql.encode(), [_text(value) for value in params])
            return await self._rows()
        name = self.prepared.get(sql)
        if name is None:
            name = f"loop_{len(self.prepared)}".encode()
            self.pgconn.send_prepare(name, sql.encode())
            await self._rows()
            self.prepared[sql] = name
        self.pgconn.send_query_prepared(name, [_text(value) for value in params])
        return await self._rows()

    async def _rows(self) -> list[Row]:
        """The answer to what was just sent (no turn of the loop in between): its rows."""
        self.asked = True
        loop = asyncio.get_running_loop()
        while self.pgconn.flush():  # what the socket did not take at once
            writable: asyncio.Future[None] = loop.create_future()
            loop.add_writer(self.socket, _wake, writable)
            try:
                await writable
            finally:
                loop.remove_writer(self.socket)
        rows: list[Row] = []
        while True:
            while self.pgconn.is_busy():
                self.answer = loop.create_future()
                await self.answer
            result = self.pgconn.get_result()
            if result is None:
                self.asked = False  # answered to the end
                return rows
            if result.status == pq.ExecStatus.FATAL_ERROR:
                raise errors.error_from_result(result, encoding="utf-8")
            for number in range(result.ntuples):
                cells = (result.get_value(number, column) for column in range(result.nfields))
                rows.append(tuple(None if cell is None else cell.decode() for cell in cells))

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


# The rows given for a coalesced statement during one turn of the loop, by key, each with its caller's answer.
Gathering = dict[str, tuple[Sequence[Any], asyncio.Future[Row | None]]]


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
        self.gathering: dict[str, Gathering] = {}  # by coalesced statement: the rows of this turn
        self.sending: set[asyncio.Task[None]] = set()  # coalesced statements on their way (kept from the GC)

    async def execute(self, sql: str, params: Sequence[Any]) -> Row | None:
        """Run one statement, its placeholders `$1`, `$2`, … each cast to its type (`$1::integer`), and
        return its first row, if any, as text."""
        rows = await self._run(sql, params)
        return rows[0] if rows else None

    async def execute_coalesced(self, sql: str, sql_alone: str, key: str, row: Sequence[Any]) -> Row | None:
        """Run `row` with the other rows given for it during this turn of the loop, as one statement
        once the turn is over, and return its answer, None if there is none.

        Several rows go through `sql`: its placeholders `$1`, `$2`, … are each cast to an array type
        (`$1::integer[]`) and take one column of the rows, in `row`'s order; it answers a row for each
        row it acted on, whose first column is that row's `key`. A row alone in its turn goes through
        `sql_alone`, which takes its values as `execute` does and answers with its first row.

        Keys are one to a statement: a second row with a key waits for the first one's statement. A
        caller called off before its statement goes takes its row back; once it has gone, the row is
        acted on anyway, as a statement that was called off may have been."""
        while True:
            gathering = self.gathering.get(sql)
            if gathering is None or len(gathering) >= COALESCED_ROWS:
                gathering = self.gathering[sql] = {}
                task = asyncio.get_running_loop().create_task(self._send(sql, sql_alone, gathering))  # next turn
                self.sending.add(task)
                task.add_done_callback(self.sending.discard)
            earlier = gathering.get(key)
            if earlier is None or earlier[1].done():  # done before it went: called off
                break
            await asyncio.wait([earlier[1]])
        answer: asyncio.Future[Row | None] = asyncio.get_running_loop().create_future()
        gathering[key] = (row, answer)
        return await answer

    async def _send(self, sql: str, sql_alone: str, gathering: Gathering) -> None:
        if self.gathering.get(sql) is gathering:
            del self.gathering[sql]
        rows = [(key, row, answer) for key, (row, answer) in gathering.items() if not answer.done()]
        if not rows:
            return
        try:
            answers = await self._answers(sql, sql_alone, [(key, row) for key, row, _ in rows])
        except (LoopConnectionsBusy, OperationalError) as failure:
            for _, _, answer in rows:
                if not answer.done():
                    answer.set_exception(type(failure)(*failure.args))  # one for each caller to raise
            return
        except BaseException:
            for _, _, answer in rows:
                answer.cancel()  # called off with the loop
            raise
        for key, _, answer in rows:
            if not answer.done():
                answer.set_result(answers.get(key))

    async def _answers(self, sql: str, sql_alone: str, rows: list[tuple[str, Sequence[Any]]]) -> dict[str, Row]:
        """The answers to `rows` by key: a row alone in its own statement, with no arrays to build or read."""
        if len(rows) == 1:
            ((key, row),) = rows
            found = await self._run(sql_alone, row)
            return {key: found[0]} if found else {}
        columns = [_array(column) for column in zip(*(row for _, row in rows), strict=True)]
        return {str(found[0]): found for found in await self._run(sql, columns)}

    async def _run(self, sql: str, params: Sequence[Any]) -> list[Row]:
        link = await self._idle_alive() or await self._connect()
        try:
            rows = await link.execute(sql, params)
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
        return rows

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
        if self.prepare:
            params["options"] = f"{params.get('options', '')} {PLANNER_OPTIONS}".strip()
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
