"""Talking to the REST API the way the pages do, for tests."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client


def post(client: Client, path: str, body: object) -> tuple[int, Any]:
    """POST `body` as JSON; return the status code and the decoded answer."""
    response = client.post(path, data=json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def start(client: Client, **body: object) -> dict[str, Any]:
    """Start (or resume) a game, e.g. start(client, mode="code", code="2222-2222")."""
    status, game = post(client, "/api/games", body)
    assert status in (200, 201), game
    return game
