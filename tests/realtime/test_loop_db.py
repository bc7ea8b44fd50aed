"""The event loop's own connections (realtime/loop_db.py): a statement's values go as text to its cast
placeholders and its first row comes back as text; with all of them busy, a statement waits a moment for
one to be handed back, and takes the database threads (LoopConnectionsBusy) only when none is handed
back in time; an idle one is used again whatever its descriptor's number; a statement that fails or is
called off gives its connection up, never leaving it half-way for the next."""

from __future__ import annotations

import asyncio
import datetime
import os
import resource
import socket

import psycopg
import pytest
from django.db import OperationalError, connection
from django.test import override_settings

from realtime import loop_db
from realtime.loop_db import LoopConnections, LoopConnectionsBusy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres")]


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_a_statement_waits_for_the_busy_connection_when_it_is_handed_back_in_time(monkeypatch):
    monkeypatch.setattr(loop_db, "HANDOVER_WAIT_S", 5.0)  # in time even on a busy machine
    connections = LoopConnections()
    try:
        await connections.execute("SELECT 0", [])  # opened: the only connection, idle
        short = asyncio.create_task(connections.execute("SELECT pg_sleep(0.05), 1", []))
        await asyncio.sleep(0)  # the first statement takes the only connection

        assert await connections.execute("SELECT 2", []) == ("2",)
        assert (await short)[1] == "1"
        assert connections.open == 1
    finally:
        await connections.close()


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_a_statement_goes_elsewhere_when_the_busy_connection_is_held_longer(monkeypatch):
    monkeypatch.setattr(loop_db, "HANDOVER_WAIT_S", 0.05)
    connections = LoopConnections()
    try:
        await connections.execute("SELECT 0", [])
        held = asyncio.create_task(connections.execute("SELECT pg_sleep(1), 1", []))
        await asyncio.sleep(0)

        with pytest.raises(LoopConnectionsBusy):
            await connections.execute("SELECT 2", [])

        assert (await held)[1] == "1"
        assert await connections.execute("SELECT 3", []) == ("3",)  # the connection is idle again
        assert (connections.open, connections.waiting) == (1, type(connections.waiting)())
    finally:
        await connections.close()


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
    connections = LoopConnections()
    at = datetime.datetime(2026, 12, 6, 21, 30, 5, 250000, tzinfo=datetime.UTC)
    try:
        row = await connections.execute(
            "SELECT $1::integer + 1, $2::jsonb -> 'line', $3::timestamp with time zone = $4::timestamp with time zone,"
            " $5::boolean, $6::varchar(16) IS NULL, $7::text",
            [41, '{"line": [[5, 4]]}', at, at.isoformat(), True, None, "Ünïcode"],
        )
        again = await connections.execute("SELECT $1::integer * 2", [21])  # the prepared statement reused

        assert row == ("42", "[[5, 4]]", "t", "t", "t", "Ünïcode")
        assert again == ("42",)
        assert await connections.execute("SELECT 1 WHERE false", []) is None
    finally:
        await connections.close()


async def test_a_failing_statement_answers_try_again_and_its_connection_is_not_used_again():
    connections = LoopConnections()
    try:
        await connections.execute("SELECT 0", [])
        with pytest.raises(OperationalError, match="division by zero"):
            await connections.execute("SELECT 1 / $1::integer", [0])

        assert (connections.open, connections.idle) == (0, [])
        assert await connections.execute("SELECT $1::integer", [5]) == ("5",)
        assert connections.open == 1
    finally:
        await connections.close()


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
    connections = LoopConnections()
    try:
        slow = asyncio.create_task(connections.execute("SELECT pg_sleep(5)", []))
        await asyncio.sleep(0.2)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow

        assert connections.open == 0
        assert await connections.execute("SELECT 7", []) == ("7",)
        assert await sleeping_backends(connections) == 0  # cancelled on the server too
    finally:
        await connections.close()


async def test_a_connection_the_server_ended_leaves_the_loop_watching_the_socket_that_took_its_number():
    """The server ends an idle connection (a restart): libpq closes its socket, and the next socket the
    process opens takes its number. Dropping the dead connection must not stop the loop from reading that one."""
    connections = LoopConnections()
    loop = asyncio.get_running_loop()
    try:
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
    finally:
        await connections.close()


async def test_a_connection_whose_server_says_goodbye_while_it_is_idle_is_not_used_again():
    """The server's farewell arrives a moment before its hang-up: a move between the two must not take
    the connection and be told to try again."""
    connections = LoopConnections()
    try:
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
    finally:
        await connections.close()


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
    connections = LoopConnections()
    try:
        assert await connections.execute("SELECT $1::integer + 1", [1]) == ("2",)
        assert await connections.execute("SELECT $1::integer + 1", [2]) == ("3",)

        assert await connections.execute("SELECT count(*) FROM pg_prepared_statements", []) == (prepared,)
    finally:
        await connections.close()
