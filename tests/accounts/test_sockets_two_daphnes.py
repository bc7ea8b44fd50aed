"""A password change on one Daphne process closes the account's socket held by another: the sign-out
reaches every process through Redis (production settings, the real PostgreSQL and Redis)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from accounts.signouts import CLOSE_SIGNED_OUT
from bench.cluster import PreparedSite
from bench.race import Visitor
from tests.faults.conftest import production_cluster

pytestmark = pytest.mark.services

PASSWORD = "correct horse battery"


async def test_a_password_change_on_one_process_closes_the_accounts_socket_on_another(
    redis_url: str, tmp_path: Path, production_site: PreparedSite
):
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url) as (first, second):
        old_device = Visitor(first)
        status, _ = old_device.request("POST", "/api/accounts/signup", {"nickname": "Ada", "password": PASSWORD})
        assert status == 201
        status, game = old_device.request("POST", "/api/games", {"mode": "new"})
        assert status == 201, game
        tab = await old_device.socket(game["ws"], on=second)  # without ?v=, it is sent the whole game
        async with asyncio.timeout(5):
            assert json.loads(await tab.recv())["t"] == "state"

        new_device = Visitor(first)
        assert new_device.request("POST", "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD})[0] == 200
        changed = new_device.request("POST", "/api/accounts/password", {"old": PASSWORD, "new": "a new secret 42"})
        assert changed[0] == 204

        async with asyncio.timeout(2):
            message = json.loads(await tab.recv())
            with pytest.raises(ConnectionClosed):
                await tab.recv()
        assert (message["t"], message["code"]) == ("refused", "signed_out")
        assert tab.close_code == CLOSE_SIGNED_OUT
