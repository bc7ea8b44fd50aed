"""Stopping a long-lived task (accordion_site/tasks.py, `stop_task`): a cancel a library swallowed is
sent again, and a task that will not stop fails the stop loudly instead of hanging it."""

from __future__ import annotations

import asyncio

import pytest

from accordion_site import tasks


async def test_a_task_that_swallows_its_first_cancel_is_stopped_all_the_same():
    swallowed = []

    async def stubborn() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            swallowed.append(True)  # as a library cleaning up a connection may do
        await asyncio.sleep(60)

    task = asyncio.get_running_loop().create_task(stubborn())
    await asyncio.sleep(0)
    await tasks.stop_task(task)
    assert task.cancelled() and swallowed == [True]


async def test_a_task_that_never_stops_fails_the_stop_naming_it(monkeypatch):
    monkeypatch.setattr(tasks, "STOP_TIMEOUT_S", 0.3)
    released = False

    async def immortal() -> None:
        while not released:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                continue

    task = asyncio.get_running_loop().create_task(immortal(), name="immortal")
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="immortal did not stop"):
        await tasks.stop_task(task)
    released = True  # the test's loop closes with no task left behind
    task.cancel()
    await asyncio.wait({task})
