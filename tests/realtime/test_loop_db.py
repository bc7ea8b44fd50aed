"""The event loop's own connections (realtime/loop_db.py): with all of them busy, a statement waits a
moment for one to be handed back, and takes the database threads (LoopConnectionsBusy) only when none
is handed back in time."""

from __future__ import annotations

import asyncio

import pytest
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

        assert await connections.execute("SELECT 2", []) == (2,)
        assert (await short)[1] == 1
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

        assert (await held)[1] == 1
        assert await connections.execute("SELECT 3", []) == (3,)  # the connection is idle again
        assert (connections.open, connections.waiting) == (1, type(connections.waiting)())
    finally:
        await connections.close()
