"""Under ASGI a request's middleware and view run as one call on the request's thread
(accordion_site/http_stack.py): no hop back to the event loop between them, and no middleware that
would make Django adapt the chain."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.testing import HttpCommunicator

from accordion_site.asgi import application
from accordion_site.http_stack import OneHopASGIHandler


async def get(app: Any, path: str) -> dict[str, Any]:
    communicator = HttpCommunicator(app, "GET", path, headers=[(b"host", b"testserver")])
    response = await communicator.get_response()
    await communicator.wait()
    return response


@pytest.mark.django_db(transaction=True)
async def test_an_api_request_goes_to_a_thread_once_for_all_its_middleware_and_its_view(monkeypatch):
    hops: list[str] = []
    hop = SyncToAsync.__call__

    async def noted(self: SyncToAsync[Any, Any], *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await hop(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", noted)
    response = await get(application, "/api/arenas")

    assert response["status"] == 200 and set(json.loads(response["body"])) == {"upcoming", "live", "finished"}
    # The request's start signal, the whole chain (Django's own handler: 20 here, one a middleware
    # step), and the answer's close.
    assert len(hops) == 3, hops


def test_no_middleware_of_the_site_makes_django_adapt_the_chain(settings, caplog):
    settings.DEBUG = True  # Django names each adapted middleware in its debug log
    with caplog.at_level(logging.DEBUG, logger="django.request"):
        OneHopASGIHandler()
    assert [record.getMessage() for record in caplog.records if "adapted" in record.getMessage()] == []


@pytest.mark.django_db(transaction=True)
async def test_the_health_check_answers_over_asgi(settings, redis_url):
    settings.REDIS_URL = redis_url
    response = await get(application, "/healthz")

    assert response["status"] == 200
    body = json.loads(response["body"])
    assert body["status"] == "ok" and body["checks"]["database"]["ok"] and body["checks"]["redis"]["ok"]
