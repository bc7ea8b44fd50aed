"""The long-lived tasks of a web process (the hub's reader and publisher, the race rooms' reader, the
still-winnable badge, the live list) log a failed step and carry on; they end when they are cancelled.

A library may turn the CancelledError it receives into an error of its own: an exception raised while
cleaning up (redis-py giving a connection back to its pool, say) replaces the CancelledError in
flight. A loop that logs that error and carries on never ends, and whoever awaits its end (`Hub.stop`)
waits forever. Such a loop calls `raise_if_stopping` before logging, and whoever stops a task does it
with `stop_task`, which sends the cancel again while the task runs and fails loudly, naming the task
and where it waits, rather than wait forever."""

from __future__ import annotations

import asyncio
import contextlib

# A task still running this long after it was first cancelled is a bug, not a slow stop.
STOP_TIMEOUT_S = 5.0
RECANCEL_S = 0.1


def raise_if_stopping() -> None:
    """Raise CancelledError if the running task has been asked to stop (cancelled), whatever error the
    cancellation became on its way up."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def stop_task(task: asyncio.Task[None]) -> None:
    """Cancel `task` and wait for its end. A cancel that a library swallowed whole is sent again every
    RECANCEL_S; a task still running after STOP_TIMEOUT_S raises RuntimeError with its stack."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_TIMEOUT_S
    while not task.done():
        if loop.time() > deadline:
            raise RuntimeError(f"task {task.get_name()} did not stop when cancelled; it waits in {task.get_stack()}")
        task.cancel()
        await asyncio.wait({task}, timeout=RECANCEL_S)
    with contextlib.suppress(asyncio.CancelledError):
        await task
