"""Account attempts are counted against their address's allowance at the door (accounts/door.py): those
past it get the same 429, message and Retry-After the API gives, before Django takes a thread for them;
those within it reach their view, which does not count them again."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.core.cache import cache
from django.test import Client

from accordion_site.asgi import application
from accordion_site.languages import persian_digits
from accounts.door import AttemptsCountedAtTheDoor
from tests.api_client import post

from .test_throttles import allowed, attempt

ADDRESS = "203.0.113.40"
CREDENTIALS = {"nickname": "Ada", "password": "guess"}


class Recorded:
    """An ASGI app standing in for Django: notes each request it is given and answers 204."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def login(app: Any, *, address: str = ADDRESS, language: str = "en") -> dict[str, Any]:
    body = json.dumps(CREDENTIALS).encode()
    headers = [(b"content-type", b"application/json"), (b"accept-language", language.encode())]
    communicator = HttpCommunicator(app, "POST", "/api/accounts/login", body=body, headers=headers)
    communicator.scope["client"] = (address, 50000)
    response = await communicator.get_response()
    # Let the application finish too: Django's handler still has a task to end on this test's loop.
    await communicator.wait()
    return response


def header(response: dict[str, Any], name: bytes) -> str:
    return dict(response["headers"])[name].decode()


@pytest.fixture
def spent_allowance(db):
    cache.clear()
    answers = [attempt(f"name{index}", address=ADDRESS) for index in range(allowed("accounts_address"))]
    assert set(answers) == {400}


@pytest.mark.django_db(transaction=True)
async def test_an_attempt_under_the_allowance_goes_through_to_its_view():
    cache.clear()
    django = Recorded()
    response = await login(AttemptsCountedAtTheDoor(django))
    assert response["status"] == 204 and django.paths == ["/api/accounts/login"]


@pytest.mark.django_db(transaction=True)
async def test_of_a_burst_exactly_the_allowance_reaches_django():
    cache.clear()
    django = Recorded()
    door = AttemptsCountedAtTheDoor(django)
    answers = await asyncio.gather(*(login(door) for _ in range(allowed("accounts_address") + 15)))
    statuses = [answer["status"] for answer in answers]
    assert statuses.count(204) == len(django.paths) == allowed("accounts_address")
    assert statuses.count(429) == 15


@pytest.mark.django_db(transaction=True)
async def test_an_attempt_the_door_let_through_is_not_counted_again_by_its_view():
    cache.clear()
    answers = [(await login(application))["status"] for _ in range(allowed("accounts_address") + 1)]
    assert answers == [400] * allowed("accounts_address") + [429]


@pytest.mark.django_db(transaction=True)
async def test_an_attempt_past_the_address_allowance_never_reaches_django(spent_allowance):
    django = Recorded()
    response = await login(AttemptsCountedAtTheDoor(django))
    assert response["status"] == 429 and django.paths == []
    assert json.loads(response["body"])["code"] == "rate_limited"
    assert 0 < int(header(response, b"retry-after")) <= 60


@pytest.mark.django_db(transaction=True)
async def test_the_door_answers_as_the_api_does(spent_allowance):
    at_the_door = await login(application)
    from_the_view = await sync_to_async(post)(Client(REMOTE_ADDR=ADDRESS), "/api/accounts/login", CREDENTIALS)
    assert (at_the_door["status"], json.loads(at_the_door["body"])) == from_the_view


@pytest.mark.django_db(transaction=True)
async def test_the_refusal_speaks_the_players_language(spent_allowance):
    response = await login(application, language="fa")
    assert header(response, b"content-language") == "fa"
    seconds = int(header(response, b"retry-after"))
    assert persian_digits(str(seconds)) in json.loads(response["body"])["error"]


@pytest.mark.django_db(transaction=True)
async def test_another_address_is_let_through(spent_allowance):
    django = Recorded()
    response = await login(AttemptsCountedAtTheDoor(django), address="198.51.100.40")
    assert response["status"] == 204 and django.paths == ["/api/accounts/login"]
