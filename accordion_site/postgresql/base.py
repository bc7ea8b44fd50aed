"""Django's PostgreSQL backend, whose pooled connections are checked as they are handed out.

A PostgreSQL restart or failover ends every connection of the pool at once, and the pool only learns it
when one is used: each request that drew one failed (7 of 20 `GET /api/live` answered 503 for about
10 s). psycopg_pool's own check (Django's CONN_HEALTH_CHECKS) drops a dead connection but then waits a
second, two, four before trying the next one, past the pool's timeout when several died together. Here
a connection is looked at before use, with no round trip (`ended_by_server`); an ended one is given
back to be replaced, and since the others ended with it, the pool is drained and refilled at once, so
the request gets a fresh connection instead of the next dead one.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.postgresql import base


def ended_by_server(connection: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> bool:
    """Whether the server has ended this idle connection (a restart, a failover, a terminated backend).
    An idle connection has nothing to read unless the server said goodbye or hung up, so a look at its
    socket tells, without the round trip of a statement."""
    if connection.closed:
        return True
    # poll(), not select(): a process with many sockets has descriptors past select()'s 1,024.
    ended = select.poll()
    ended.register(connection.pgconn.socket, select.POLLIN)
    return bool(ended.poll(0))


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        pool = self.pool  # type: ignore[attr-defined]  # not in django-stubs
        if pool is None or not ended_by_server(connection):
            return connection
        connection.close()
        pool.putconn(connection)  # closed: the pool discards it and opens another
        pool.drain()
        return super().get_new_connection(conn_params)
