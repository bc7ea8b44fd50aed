"""A socket knows its player from the session, as an HTTP view does: SocketPlayerMiddleware puts it in
scope["player"] when the socket connects."""

from __future__ import annotations

from typing import Any

import pytest
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts.middleware import SocketPlayerMiddleware

pytestmark = pytest.mark.django_db(transaction=True)


class ScopePlayerConsumer(AsyncJsonWebsocketConsumer):
    """Tells the client which player the middleware gave the socket."""

    async def connect(self) -> None:
        await self.accept()
        player = self.scope["player"]
        await self.send_json({"player": None if player is None else player.nickname})


application = SocketPlayerMiddleware(ScopePlayerConsumer.as_asgi())


def session_cookie(client: Client) -> tuple[bytes, bytes]:
    """The Cookie header a browser with this client's session sends."""
    client.session.save()  # a visitor's session exists once the test client has been asked for it
    return b"cookie", f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def player_seen_by_a_socket(*headers: tuple[bytes, bytes]) -> Any:
    socket = WebsocketCommunicator(application, "/ws/anything/", headers=list(headers))
    accepted, _ = await socket.connect()
    assert accepted
    answer = await socket.receive_json_from()
    await socket.disconnect()
    return answer["player"]


@pytest.fixture
def visitor_cookie(db: None) -> tuple[bytes, bytes]:
    return session_cookie(Client())


@pytest.fixture
def player_cookie(client: Client) -> tuple[bytes, bytes]:
    return session_cookie(client)


async def test_a_socket_opened_with_a_players_session_belongs_to_that_player(player, player_cookie):
    assert await player_seen_by_a_socket(player_cookie) == player.nickname


async def test_a_socket_opened_by_a_visitor_who_has_not_played_has_no_player(visitor_cookie):
    assert await player_seen_by_a_socket(visitor_cookie) is None


async def test_a_socket_opened_without_a_session_cookie_has_no_player():
    assert await player_seen_by_a_socket() is None
