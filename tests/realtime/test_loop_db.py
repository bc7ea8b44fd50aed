"""The event loop's own connections (realtime/loop_db.py): with all of them busy, a statement waits a
moment for one to be handed back, and takes the database threads (LoopConnectionsBusy) only when none
is handed back in time; an idle one is used again whatever its descriptor's number."""

from __future__ import annotations

import asyncio
import os
import resource

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


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_an_idle_connection_past_descriptor_1024_is_used_again():
    """A process with over a thousand sockets: its loop connection's descriptor is past select()'s limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    taken = [os.open(os.devnull, os.O_RDONLY) for _ in range(max(0, 1100 - len(os.listdir("/proc/self/fd"))))]
    connections = LoopConnections()
    try:
        assert await connections.execute("SELECT 1", []) == (1,)
        assert await connections.execute("SELECT 2", []) == (2,)  # the idle one, looked at first
        assert connections.open == 1
    finally:
        await connections.close()
        for descriptor in taken:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
