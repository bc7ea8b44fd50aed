"""The long-lived tasks of a web process (the hub's reader and publisher, the race rooms' reader, the
still-winnable badge, the live list) log a failed step and carry on; they end when they are cancelled.

A library may turn the CancelledError it receives into an error of its own: an exception raised while
cleaning up (redis-py giving a connection back to its pool, say) replaces the CancelledError in
flight. A loop that logs that error and carries on never ends, and whoever awaits its end (`Hub.stop`)
waits forever; a test run hung so, in the teardown of a socket test, while its event was being
published. Such a loop calls `raise_if_stopping` before logging."""

from __future__ import annotations

import asyncio


def raise_if_stopping() -> None:
    """Raise CancelledError if the running task has been asked to stop (cancelled), whatever error the
    cancellation became on its way up."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
