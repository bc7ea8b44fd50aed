"""The event loop's own connections (realtime/loop_db.py): a statement's values go as text to its cast
placeholders and its first row comes back as text; the rows given for a coalesced statement in one turn
of the loop go in one statement, each caller answered by its key (a row alone in its turn, alone); with
all of them busy, a statement waits a moment for one to be handed back, and takes the database threads
(LoopConnectionsBusy) only when none is handed back in time; an idle one is used again whatever its
descriptor's number; a statement that fails or is called off gives its connection up, never leaving it
half-way for the next."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import os
import resource
import socket
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection
from django.test import override_settings

from realtime import loop_db
from realtime.loop_db import LoopConnections, LoopConnectionsBusy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres")]


@contextlib.asynccontextmanager
async def opened_connections() -> AsyncIterator[LoopConnections]:
    """The loop's connections, made inside the block (under its test's settings), closed after it."""
    connections = LoopConnections()
    try:
        yield connections
    finally:
        await connections.close()


async def connection_held(connections: LoopConnections, seconds: float) -> asyncio.Task:
    """A statement holding a connection for `seconds`, started: it has taken its connection."""
    held = asyncio.create_task(connections.execute(f"SELECT pg_sleep({seconds}), 1", []))
    await asyncio.sleep(0)
    return held


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_a_statement_waits_for_the_busy_connection_when_it_is_handed_back_in_time(monkeypatch):
    monkeypatch.setattr(loop_db, "HANDOVER_WAIT_S", 5.0)  # in time even on a busy machine
    async with opened_connections() as connections:
        await connections.execute("SELECT 0", [])  # opened: the only connection, idle
        short = await connection_held(connections, 0.05)

        assert await connections.execute("SELECT 2", []) == ("2",)
        assert (await short)[1] == "1"
        assert connections.open == 1


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_a_statement_goes_elsewhere_when_the_busy_connection_is_held_longer(monkeypatch):
    monkeypatch.setattr(loop_db, "HANDOVER_WAIT_S", 0.05)
    async with opened_connections() as connections:
        await connections.execute("SELECT 0", [])
        held = await connection_held(connections, 1)

        with pytest.raises(LoopConnectionsBusy):
            await connections.execute("SELECT 2", [])

        assert (await held)[1] == "1"
        assert await connections.execute("SELECT 3", []) == ("3",)  # the connection is idle again
        assert (connections.open, connections.waiting) == (1, type(connections.waiting)())


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_an_idle_connection_past_descriptor_1024_is_used_again():
    """A process with over a thousand sockets: its loop connection's descriptor is past select()'s limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    taken = [os.open(os.devnull, os.O_RDONLY) for _ in range(max(0, 1100 - len(os.listdir("/proc/self/fd"))))]
    connections = LoopConnections()
    try:
        assert await connections.execute("SELECT 1", []) == ("1",)
        assert await connections.execute("SELECT 2", []) == ("2",)  # the idle one, looked at first
        assert connections.open == 1
    finally:
        await connections.close()
        for descriptor in taken:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_each_kind_of_value_reaches_its_cast_placeholder_and_comes_back_as_text():
    at = datetime.datetime(2026, 12, 6, 21, 30, 5, 250000, tzinfo=datetime.UTC)
    async with opened_connections() as connections:
        row = await connections.execute(
            "SELECT $1::integer + 1, $2::jsonb -> 'line', $3::timestamp with time zone = $4::timestamp with time zone,"
            " $5::boolean, $6::varchar(16) IS NULL, $7::text",
            [41, '{"line": [[5, 4]]}', at, at.isoformat(), True, None, "Ünïcode"],
        )
        again = await connections.execute("SELECT $1::integer * 2", [21])  # the prepared statement reused

        assert row == ("42", "[[5, 4]]", "t", "t", "t", "Ünïcode")
        assert again == ("42",)
        assert await connections.execute("SELECT 1 WHERE false", []) is None


# Coalesced: each row's key, its value doubled, how many rows went together (0: alone) and the transaction.
DOUBLED = (
    "SELECT c.k::text, c.v * 2, count(*) OVER (), txid_current() FROM unnest($1::integer[], $2::integer[]) AS c(k, v)"
    " WHERE c.v <> 0"
)
DOUBLED_ALONE = "SELECT $1::integer::text, $2::integer * 2, 0, txid_current() WHERE $2::integer <> 0"


def doubled(connections: LoopConnections, *rows: tuple[int, int]) -> list[Any]:
    """Each row given to DOUBLED, all in this turn of the loop."""
    return [connections.execute_coalesced(DOUBLED, DOUBLED_ALONE, str(key), [key, value]) for key, value in rows]


async def test_a_row_alone_in_its_turn_goes_alone():
    async with opened_connections() as connections:
        answer = await connections.execute_coalesced(DOUBLED, DOUBLED_ALONE, "1", [1, 10])

        assert answer[:3] == ("1", "20", "0")  # type: ignore[index]
        assert await connections.execute_coalesced(DOUBLED, DOUBLED_ALONE, "2", [2, 0]) is None


async def test_the_rows_given_in_one_turn_go_in_one_statement_each_caller_answered_by_its_key():
    async with opened_connections() as connections:
        answers = await asyncio.gather(*doubled(connections, (1, 10), (2, 0), (3, 7)))

        assert [answer[:3] if answer else None for answer in answers] == [("1", "20", "2"), None, ("3", "14", "2")]
        assert answers[0][3] == answers[2][3]  # type: ignore[index]  # one transaction
        assert connections.open == 1


async def test_a_second_row_with_the_same_key_waits_for_the_first_ones_statement():
    async with opened_connections() as connections:
        first, second, other = await asyncio.gather(*doubled(connections, (1, 10), (1, 11), (2, 1)))

        assert (first[1:3], other[1:3]) == (("20", "2"), ("2", "2"))  # type: ignore[index]
        assert second[1:3] == ("22", "0")  # type: ignore[index]  # in the next turn, alone
        assert second[3] != first[3]  # type: ignore[index]


async def test_a_caller_called_off_before_its_statement_goes_takes_its_row_back():
    async with opened_connections() as connections:
        kept, called_off, also_kept = (
            asyncio.create_task(call) for call in doubled(connections, (1, 10), (2, 20), (3, 30))
        )
        await asyncio.sleep(0)  # the rows given, their statement not gone yet
        called_off.cancel()

        assert [(await task)[:3] for task in (kept, also_kept)] == [("1", "20", "2"), ("3", "60", "2")]  # type: ignore[index]
        with pytest.raises(asyncio.CancelledError):
            await called_off


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_with_every_connection_held_each_row_of_a_turn_takes_the_threads_and_never_goes(monkeypatch):
    """Such a move is stored by a database thread: the loop must not store it too, later."""
    monkeypatch.setattr(loop_db, "HANDOVER_WAIT_S", 0.05)
    # The only connection's own table: what a coalesced statement is sent for, it keeps.
    sent = "WITH kept AS (INSERT INTO sent SELECT * FROM unnest($1::integer[])) SELECT 1"
    async with opened_connections() as connections:
        await connections.execute("CREATE TEMPORARY TABLE sent (k integer)", [])
        held = await connection_held(connections, 0.5)

        answers = await asyncio.gather(
            *(connections.execute_coalesced(sent, "SELECT 1", str(key), [key]) for key in (1, 2)),
            return_exceptions=True,
        )
        await held
        await asyncio.sleep(0.05)  # time for a statement that should not go

        assert [type(answer) for answer in answers] == [LoopConnectionsBusy, LoopConnectionsBusy]
        assert await connections.execute("SELECT count(*) FROM sent", []) == ("0",)


async def test_each_kind_of_value_reaches_its_array_placeholder():
    """Quotes, backslashes, commas and braces inside an element, NULL, booleans, times and JSON."""
    at = datetime.datetime(2026, 12, 6, 21, 30, 5, 250000, tzinfo=datetime.UTC)
    text = 'a "quoted", \\back\\slashed {braced} Ünïcode'
    sql = (
        "SELECT c.k::text, c.j ->> 'say', c.t, c.n IS NULL, c.b, c.at = '2026-12-06 21:30:05.25+00'"
        " FROM unnest($1::integer[], $2::jsonb[], $3::text[], $4::integer[], $5::boolean[],"
        " $6::timestamp with time zone[]) AS c(k, j, t, n, b, at)"
    )
    async with opened_connections() as connections:
        answers = await asyncio.gather(
            *(
                connections.execute_coalesced(
                    sql, "SELECT 'alone'", str(key), [key, json.dumps({"say": text}), text, None, True, at]
                )
                for key in (1, 2)
            )
        )

        assert answers == [("1", text, text, "t", "t", "t"), ("2", text, text, "t", "t", "t")]


async def test_a_failing_coalesced_statement_answers_each_caller_try_again():
    sql = "SELECT c.k::text, 1 / c.v FROM unnest($1::integer[], $2::integer[]) AS c(k, v)"
    async with opened_connections() as connections:
        answers = await asyncio.gather(
            *(connections.execute_coalesced(sql, "SELECT 1", str(k), [k, v]) for k, v in ((1, 1), (2, 0))),
            return_exceptions=True,
        )

        assert [type(answer) for answer in answers] == [OperationalError, OperationalError]
        assert all("division by zero" in str(answer) for answer in answers)
        assert connections.open == 0  # the failed statement's connection is not used again


async def test_a_failing_statement_answers_try_again_and_its_connection_is_not_used_again():
    async with opened_connections() as connections:
        await connections.execute("SELECT 0", [])
        with pytest.raises(OperationalError, match="division by zero"):
            await connections.execute("SELECT 1 / $1::integer", [0])

        assert (connections.open, connections.idle) == (0, [])
        assert await connections.execute("SELECT $1::integer", [5]) == ("5",)
        assert connections.open == 1


async def sleeping_backends(connections: LoopConnections) -> int:
    """Backends still running a `pg_sleep`, after a moment for a cancel to arrive (it is asynchronous)."""
    for _ in range(40):
        row = await connections.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%'", []
        )
        if row == ("0",):
            return 0
        await asyncio.sleep(0.05)
    return int(row[0])  # type: ignore[index,arg-type]


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_a_statement_called_off_in_flight_gives_its_connection_up():
    """A socket torn down while its move waits for PostgreSQL: the slot is free for the next statement."""
    async with opened_connections() as connections:
        slow = asyncio.create_task(connections.execute("SELECT pg_sleep(5)", []))
        await asyncio.sleep(0.2)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow

        assert connections.open == 0
        assert await connections.execute("SELECT 7", []) == ("7",)
        assert await sleeping_backends(connections) == 0  # cancelled on the server too


async def test_a_connection_the_server_ended_leaves_the_loop_watching_the_socket_that_took_its_number():
    """The server ends an idle connection (a restart): libpq closes its socket, and the next socket the
    process opens takes its number. Dropping the dead connection must not stop the loop from reading that one."""
    loop = asyncio.get_running_loop()
    async with opened_connections() as connections:
        await connections.execute("SELECT 0", [])
        ended = connections.idle[0].socket
        await terminate(connections.idle[0].pgconn.backend_pid)
        for _ in range(100):
            if connections.idle[0].connection.closed:  # the loop read the server's goodbye
                break
            await asyncio.sleep(0.02)
        opened, watched, other = socket_numbered(ended)  # the number taken again
        heard = asyncio.Event()
        loop.add_reader(watched.fileno(), heard.set)
        try:
            assert await connections.execute("SELECT 8", []) == ("8",)  # the dead connection dropped
            other.send(b"x")
            await asyncio.wait_for(heard.wait(), timeout=2)
        finally:
            loop.remove_reader(watched.fileno())
            for end in opened:
                end.close()


async def test_a_connection_whose_server_says_goodbye_while_it_is_idle_is_not_used_again():
    """The server's farewell arrives a moment before its hang-up: a move between the two must not take
    the connection and be told to try again."""
    async with opened_connections() as connections:
        await connections.execute("SELECT 0", [])
        link = connections.idle[0]
        await terminate(link.pgconn.backend_pid)
        for _ in range(100):
            if link.hung_up:
                break
            await asyncio.sleep(0.01)

        assert link.hung_up
        assert await connections.execute("SELECT 9", []) == ("9",)
        assert connections.idle[0] is not link
        assert connections.open == 1


def socket_numbered(number: int) -> tuple[list[socket.socket], socket.socket, socket.socket]:
    """Socket pairs opened until one end takes `number` (another thread may take a lower number first):
    every socket opened, that end, and the other end of its pair."""
    opened: list[socket.socket] = []
    while len(opened) < 100:
        pair = socket.socketpair()
        opened.extend(pair)
        for end, other in (pair, pair[::-1]):
            if end.fileno() == number:
                return opened, end, other
    raise AssertionError(f"no socket took the number {number}: the ended connection's socket is still open")


async def terminate(backend: int) -> None:
    """End a backend from another connection, as a restart or an administrator does."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as other:
        await other.execute("SELECT pg_terminate_backend(%s)", [backend])


# Prepared: the two statements, each once (the count's own included).
@pytest.mark.parametrize(("threshold", "prepared"), [(0, "2"), (None, "0")])
async def test_statements_are_prepared_on_the_connection_unless_prepared_statements_are_off(
    monkeypatch, threshold, prepared
):
    """DATABASE_PREPARED_STATEMENTS=false (a pooler in transaction mode): each statement goes unnamed."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", threshold)
    async with opened_connections() as connections:
        assert await connections.execute("SELECT $1::integer + 1", [1]) == ("2",)
        assert await connections.execute("SELECT $1::integer + 1", [2]) == ("3",)

        assert await connections.execute("SELECT count(*) FROM pg_prepared_statements", []) == (prepared,)
