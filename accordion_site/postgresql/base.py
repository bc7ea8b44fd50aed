"""Django's PostgreSQL backend, whose pooled connections are checked as they are handed out.

A PostgreSQL restart or failover ends every connection of the pool at once, and the pool only learns it
when one is used: each request that drew one failed (7 of 20 `GET /api/live` answered 503 for about
10 s). psycopg_pool's own check (Django's CONN_HEALTH_CHECKS) drops a dead connection but then waits a
second, two, four before trying the next one, past the pool's timeout when several died together. Here
a connection is tried with an empty statement (one round trip) before use; a dead one is given back to
be replaced, and since the others died with it, the pool is drained and refilled at once, so the request
gets a fresh connection instead of the next dead one.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        pool = self.pool  # type: ignore[attr-defined]  # not in django-stubs
        if pool is None:
            return connection
        try:
            ConnectionPool.check_connection(connection)
        except psycopg.Error:
            pool.putconn(connection)  # broken: the pool closes it and opens another
            pool.drain()
            return super().get_new_connection(conn_params)
        return connection
