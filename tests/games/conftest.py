"""Socket tests run each on an event loop of their own: the hub that a test's sockets started is
stopped before its loop closes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from games.hub import running_hub


@pytest.fixture(autouse=True)
async def stop_hub_after_test() -> AsyncIterator[None]:
    yield
    hub = running_hub()
    if hub is not None:
        await hub.stop()
