"""The event loop's own database pool (accordion_site/loop_db.py): what a socket's plain move runs on."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError, connection, connections

from accordion_site import loop_db
from tests.conftest import stop_socket_services

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the loop's pool serves PostgreSQL only"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(autouse=True)
async def pool_closed_after_each_test():
    yield
    await stop_socket_services()


@sync_to_async
def cut_the_loops_connections() -> int:
    """End the sessions of the loop's pool, as a database restart or a network cut would."""
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [loop_db.APPLICATION_NAME],
        )
        return int(cursor.fetchone()[0])


async def test_a_statement_commits_by_itself_and_returns_its_first_row():
    assert await loop_db.fetch_one("SELECT %s::int + 1", [41]) == (42,)
    assert await loop_db.fetch_one("SELECT 1 WHERE false", []) is None


async def test_a_connection_cut_while_idle_is_replaced_before_the_next_statement(monkeypatch):
    monkeypatch.setattr(loop_db, "IDLE_CHECK_S", 0.0)  # every connection counts as idle: checked first
    first = await loop_db.fetch_one("SELECT pg_backend_pid()", [])
    assert await cut_the_loops_connections() >= 1
    second = await loop_db.fetch_one("SELECT pg_backend_pid()", [])
    assert second is not None and second != first


async def test_a_connection_in_use_is_not_checked_and_its_failure_is_an_outage(monkeypatch):
    monkeypatch.setattr(loop_db, "IDLE_CHECK_S", 3600.0)
    await loop_db.fetch_one("SELECT 1", [])
    await cut_the_loops_connections()
    # Never retried: a statement that failed may have committed before its connection broke.
    with pytest.raises(OperationalError):
        await loop_db.fetch_one("SELECT 1", [])
    assert await loop_db.fetch_one("SELECT 1", []) == (1,)  # the broken connection was not kept
