"""Socket tests run each on an event loop of their own: what a test's sockets started is stopped before
its loop closes."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def stopped_after_each_test(socket_services_stopped: None) -> None:
    """Every test here may open sockets (tests/conftest.py, `socket_services_stopped`)."""
