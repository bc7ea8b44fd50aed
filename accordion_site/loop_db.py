"""One statement run on the event loop itself, through psycopg's async pool (one pool per event loop).

A socket's plain move is a single statement that is its own transaction (games/store.py). Sent to the
database threads (accordion_site/db.py), it paid two thread switches: on a 2-core machine, a bare hop
to a thread and back cost 0.27 ms of CPU (0.42 ms through asgiref's wrapper), measured with an echo
socket under Daphne at 400 messages a second (docs/performance.md). On the loop, psycopg's async
connection waits for the database without any thread. Only such single statements belong here:
work that needs the ORM, a transaction or a lock stays on the database threads.

The pool connects as Django's connections do (DATABASES["default"]: server, user, adapters) in
autocommit, opens on first use and lives as long as its loop; `close_pool` closes the running loop's
(tests close theirs before their loop ends). Its errors come out as Django's `OperationalError` and
`InterfaceError`, so a caller meets an outage exactly as on the database threads.

A connection left idle for more than IDLE_CHECK_S is checked (one empty round trip) before it is
handed out: after a database restart or a network cut, the first move would otherwise meet a dead
connection and be refused although the database is back. A statement that fails is never retried: it
may have committed before its connection broke. Under load connections are never idle that long, so
moves pay no check.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from typing import Any

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from psycopg_pool import AsyncConnectionPool

IDLE_CHECK_S = 1.0
APPLICATION_NAME = "accordion-live loop"

_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncConnectionPool[Any]] = weakref.WeakKeyDictionary()
# When each connection last finished a statement (loop time).
_last_used: weakref.WeakKeyDictionary[psycopg.AsyncConnection[Any], float] = weakref.WeakKeyDictionary()


async def fetch_one(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    """Run `sql` as its own transaction and return its first row (None if it returned none)."""
    pool = await _running_pool()
    try:
        async with pool.connection() as connection:
            cursor = await connection.execute(sql, params)
            row = await cursor.fetchone()
            _last_used[connection] = asyncio.get_running_loop().time()
            return row
    except psycopg.InterfaceError as error:
        raise InterfaceError(str(error)) from error
    except psycopg.OperationalError as error:  # the pool's timeout is one too
        raise OperationalError(str(error)) from error


async def close_pool() -> None:
    """Close the running loop's pool, if it has one."""
    pool = _pools.pop(asyncio.get_running_loop(), None)
    if pool is not None:
        await pool.close()


async def _running_pool() -> AsyncConnectionPool[Any]:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = _new_pool()
    if pool.closed:
        await pool.open()  # safe to call twice: two first statements at once share one pool
    return pool


def _new_pool() -> AsyncConnectionPool[Any]:
    db = connections[DEFAULT_DB_ALIAS]
    params = db.get_connection_params()  # without the threads' pool options; Django's adapters included
    params.pop("cursor_factory", None)  # a sync cursor class: the async connection has its own
    params["autocommit"] = True
    params.setdefault("application_name", APPLICATION_NAME)  # for pg_stat_activity
    timeout = db.settings_dict["OPTIONS"].get("pool", {}).get("timeout", 3.0)
    return AsyncConnectionPool(
        kwargs=params,
        min_size=1,
        max_size=settings.DATABASE_LOOP_CONNECTIONS,
        timeout=timeout,
        check=_check_if_idle,
        open=False,
    )


async def _check_if_idle(connection: psycopg.AsyncConnection[Any]) -> None:
    """Raise if `connection`, idle for a while (or never used), no longer reaches the database."""
    last_used = _last_used.get(connection)
    if last_used is None or asyncio.get_running_loop().time() - last_used > IDLE_CHECK_S:
        await AsyncConnectionPool.check_connection(connection)
